//go:build unix

package runner

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
)

// TestRunFile: the header, a line per run and the summary, every run in
// the file with this host; resumed, the points done are skipped.
func TestRunFile(t *testing.T) {
	t.Setenv("MODE", "ok")
	cfg := Config{Grid: Grid{Command: []string{writeBench(t)}, Env: []Axis{{Name: "ORK_MOE_BIGLITTLE", Values: []string{"1"}},
		{Name: "ORK_BL_LITTLE_FRAC", Values: []string{"0", "0.1"}}}}}
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	var out strings.Builder
	sum, err := RunFile(context.Background(), cfg, path, false, &out)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if err != nil || sum.Runs != 2 || sum.OK != 2 || len(lines) != 4 || !strings.HasSuffix(lines[0], "-> "+path) ||
		!strings.HasPrefix(lines[1], "[1/2] ORK_BL_LITTLE_FRAC=0 ") || lines[3] != sum.Line(path) {
		t.Fatalf("%+v, %v\n%s", sum, err, out.String())
	}
	ms, errs := measure.ReadFile(path)
	name, _ := os.Hostname()
	if len(errs) != 0 || len(ms) != 2 || ms[0].Host == nil || ms[0].Host.Arch != runtime.GOARCH || ms[0].Host.Name != name {
		t.Errorf("%d measurements %v, host %+v", len(ms), errs, ms[0].Host)
	}
	out.Reset()
	if sum, err = RunFile(context.Background(), cfg, path, true, &out); err != nil || sum.Runs != 0 || sum.Skipped != 2 {
		t.Errorf("resumed: %+v, %v\n%s", sum, err, out.String())
	}
}
