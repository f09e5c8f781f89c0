package calibrate

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// TestOpen: the settings are checked first, each bad one a *SettingError
// naming its field; the clusters come from the topology under SysRoot,
// Clusters replacing them.
func TestOpen(t *testing.T) {
	rk := filepath.Join("topology", "testdata", "rk3588")
	for _, tc := range []struct {
		name    string
		r       Run
		setting string // of the *SettingError, if one
		is      error
	}{
		{"bad grid", Run{Settings: Settings{Grid: "all"}, SysRoot: rk}, "Grid", nil},
		{"negative repeats", Run{Settings: Settings{Repeats: -1}, SysRoot: rk}, "Repeats", nil},
		{"negative rounds", Run{Settings: Settings{Rounds: -1}, SysRoot: rk}, "Rounds", nil},
		{"bad cluster", Run{SysRoot: rk, Clusters: []string{"big:1"}}, "Clusters", nil},
		{"no topology", Run{SysRoot: t.TempDir()}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(tc.r)
			var se *model.SettingError
			switch {
			case err == nil:
				t.Fatal("no error")
			case errors.As(err, &se) != (tc.setting != "") || (se != nil && se.Setting != tc.setting):
				t.Errorf("%v, want a *SettingError of %q", err, tc.setting)
			}
		})
	}
	c, err := Open(Run{SysRoot: rk})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Engines) < 2 || c.Engines[0].Cluster.Name == "" || c.Host == nil {
		t.Errorf("engines %+v, host %+v", c.Engines, c.Host)
	}
}

// TestStartMeasure: Start refuses a measurements file that holds
// something unless resumed, and Measure stops at once when its context is
// done, finishing the progress.
func TestStartMeasure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	run := Run{Settings: Settings{Engines: twoEngines(), Host: &measure.Host{Arch: "test"}, Quick: true, NoMicro: true}, Path: path}
	c, err := Open(run)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if len(c.Steps) == 0 || len(c.Done) != 0 || c.Workload == nil || c.Header() == "" {
		t.Fatalf("%d steps, done %v, workload %v", len(c.Steps), c.Done, c.Workload)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ended := false
	taken, err := c.Measure(ctx, func(done, total int, _ string, _ *measure.Measurement) { ended = total == 0 })
	if len(taken) != 0 || !errors.Is(err, context.Canceled) || !ended {
		t.Errorf("cancelled: %d taken, %v, progress ended %v", len(taken), err, ended)
	}

	os.WriteFile(path, []byte("{}\n"), 0o644)
	c, _ = Open(run)
	if err := c.Start(); !errors.Is(err, ErrMeasured) {
		t.Errorf("a file with something in it: %v, want ErrMeasured", err)
	}
	run.Resume = true
	c, _ = Open(run)
	// A file the rule for bad lines refuses is refused before any
	// measuring, not after the whole grid (issue 31).
	if err := c.Start(); err == nil || !strings.Contains(err.Error(), "no readable measurements") {
		t.Errorf("resumed a file of one bad line: %v", err)
	}
	os.WriteFile(path, []byte(`{"schema":"blsim/measurement/v1","id":"x","kind":"stream","unit":"GB/s","median":10,"status":"ok"}`+"\n"), 0o644)
	c, _ = Open(run)
	if err := c.Start(); err != nil || !c.Done["x"] {
		t.Errorf("resumed: %v, done %v", err, c.Done)
	}
	// Its one record names no clusters: resumed, with a word.
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "its records name no clusters") || !strings.Contains(c.Warnings[0], "(big=1 little=0)") {
		t.Errorf("warnings %q, want one on the unchecked clusters", c.Warnings)
	}
	c.w.Close()
	// A file measured on other clusters is refused, naming both; on the
	// same ones it resumes.
	for _, tc := range []struct {
		clusters string
		err      string
	}{
		{`[{"name":"big","cpus":[2]},{"name":"little","cpus":[0]}]`, "holds runs measured on other clusters (big=2 little=0, record y) than this calibration's (big=1 little=0)"},
		{string(must(json.Marshal(c.Host.Clusters))), ""},
	} {
		os.WriteFile(path, []byte(`{"schema":"blsim/measurement/v1","id":"y","kind":"stream","unit":"GB/s","median":10,"status":"ok","host":{"clusters":`+tc.clusters+`}}`+"\n"), 0o644)
		c, _ = Open(run)
		err := c.Start()
		switch {
		case tc.err == "" && (err != nil || len(c.Warnings) != 0):
			t.Errorf("resumed on the same clusters: %v, warnings %q", err, c.Warnings)
		case tc.err != "" && (!errors.Is(err, ErrOtherClusters) || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("resumed on other clusters: %v, want %q", err, tc.err)
		}
		if c.w != nil {
			c.w.Close()
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
