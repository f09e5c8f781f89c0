// Package layering holds the test that blsim's packages depend on each
// other one way only: model <- sim <- predict <- {report, plots} <- cmd,
// with calibrate beside predict, measure beside model, and parts (the
// part library, which fills in SoC files that name parts) below model.
package layering

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/blsim/blsim/"

// TestLayering: no package depends (directly or not, test files aside)
// on one above it.
func TestLayering(t *testing.T) {
	skipShort(t)
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	for _, tc := range []struct {
		pkg       string
		forbidden []string // package paths or prefixes ending in "/"
	}{
		{"model/enum", []string{"model", "parts", "measure", "sim", "predict", "report", "plots", "calibrate", "calibrate/", "presets", "cmd/"}},
		{"parts", []string{"model", "measure", "sim", "predict", "report", "plots", "calibrate", "calibrate/", "presets", "cmd/"}},
		{"model", []string{"measure", "sim", "predict", "report", "plots", "calibrate", "calibrate/", "presets", "cmd/"}},
		{"measure", []string{"sim", "predict", "report", "plots", "calibrate", "calibrate/", "presets", "cmd/"}},
		{"sim", []string{"measure", "predict", "report", "plots", "calibrate", "calibrate/", "presets", "cmd/"}},
		{"predict", []string{"report", "plots", "calibrate", "calibrate/", "presets", "cmd/"}},
		{"report", []string{"plots", "calibrate", "calibrate/", "presets", "cmd/"}},
		{"plots", []string{"report", "calibrate", "calibrate/", "presets", "cmd/"}},
		{"calibrate/fit", []string{"report", "plots", "cmd/"}},
		{"calibrate", []string{"report", "plots", "cmd/"}},
		{"quantize", []string{"sim", "predict", "report", "plots", "calibrate", "calibrate/", "presets", "hfconfig", "public", "cmd/"}},
		{"hfconfig", []string{"sim", "predict", "report", "plots", "calibrate", "calibrate/", "presets", "public", "cmd/"}},
		{"public", []string{"report", "plots", "calibrate", "calibrate/", "cmd/"}},
	} {
		out, err := exec.Command(gobin, "list", "-deps", mod+tc.pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", tc.pkg, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 2 || deps[len(deps)-1] != mod+tc.pkg {
			t.Fatalf("go list -deps %s printed %q", tc.pkg, deps)
		}
		for _, d := range deps {
			for _, f := range tc.forbidden {
				if d == mod+f || (strings.HasSuffix(f, "/") && strings.HasPrefix(d, mod+f)) {
					t.Errorf("%s depends on %s", tc.pkg, d)
				}
			}
		}
	}
}

// TestSizes: cmd/blsim only turns flags into calls, at most 1,500 lines
// (issue 29: the commands' runs are in internal/cli and the library
// packages, their flags and help in cmd/blsim), and no file of the module
// is over 500 lines, tests aside.
func TestSizes(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	out, err := exec.Command(gobin, "list", "-f", "{{.Dir}} {{join .GoFiles \" \"}}", mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	cmdLines := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		dir := f[0]
		for _, name := range f[1:] {
			n := countLines(t, dir+"/"+name)
			if n > 500 {
				t.Errorf("%s/%s: %d lines, over 500: split it by idea", dir, name, n)
			}
			if strings.HasSuffix(dir, "/cmd/blsim") {
				cmdLines += n
			}
		}
	}
	if cmdLines == 0 || cmdLines > 1500 {
		t.Errorf("cmd/blsim has %d lines; want some, at most 1,500", cmdLines)
	}
}
