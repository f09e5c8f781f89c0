package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/blsim/blsim/measure"
)

func TestETA(t *testing.T) {
	for _, tc := range []struct {
		elapsed     time.Duration
		done, total int
		want        string
	}{
		{90 * time.Second, 3, 12, "  (eta 4m30s)"},
		{10 * time.Second, 1, 288, "  (eta 47m50s)"},
		{time.Minute, 12, 12, ""},
		{0, 0, 12, ""},
	} {
		if got := eta(tc.elapsed, tc.done, tc.total); got != tc.want {
			t.Errorf("eta(%v, %d, %d) = %q, want %q", tc.elapsed, tc.done, tc.total, got, tc.want)
		}
	}
}

// The header, the progress lines and the summary say what runs, how each
// run went and what was written.
func TestTextLines(t *testing.T) {
	cfg := Config{Grid: Grid{Command: []string{"llama-bench", "-m", "my model.gguf"},
		Env: []Axis{{Name: "ORK_MOE_BIGLITTLE", Values: []string{"1"}}, {Name: "ORK_BL_LITTLE_FRAC", Values: []string{"0.1", "0.2", "0.3"}},
			{Name: "ORK_BL_POLL", Values: []string{"0", "50"}}},
		Args: []Axis{{Name: "-t", Values: []string{"4"}}}}, Timeout: time.Minute, Warmup: 1, Retries: 2}
	if got, want := cfg.Header("runs.jsonl"), "llama-bench -m 'my model.gguf': 6 runs over ORK_BL_LITTLE_FRAC (3) x ORK_BL_POLL (2) (timeout 1m0s, 1 warm-up, 2 retries) -> runs.jsonl"; got != want {
		t.Errorf("header\n %s\nwant\n %s", got, want)
	}
	cfg.Rounds, cfg.Shuffle = 3, true
	if got := cfg.Header("r"); !strings.Contains(got, ": 6 points x 3 rounds, shuffled = 18 runs over ") {
		t.Errorf("header with rounds: %s", got)
	}
	// The split off: the fraction cannot change a run, and the grid says
	// so, with its time at a given pace.
	cfg.Grid.Env[0].Values = []string{"0", "1"}
	cfg.Estimate = func(Point) (time.Duration, bool) { return 10 * time.Second, true }
	if got, want := cfg.Header("r"), ": 12 points, 8 distinct (4 collapse: ORK_BL_LITTLE_FRAC cannot change them) x 3 rounds, shuffled = 24 runs over ORK_MOE_BIGLITTLE (2) x ORK_BL_LITTLE_FRAC (3) x ORK_BL_POLL (2) (timeout 1m0s, 1 warm-up, 2 retries) -> r; about 8m0s"; !strings.HasSuffix(got, want) {
		t.Errorf("header of a collapsing grid\n %s\nwant it to end\n %s", got, want)
	}
	cfg.Estimate = func(Point) (time.Duration, bool) { return 0, false }
	if got := cfg.Header("r"); !strings.HasSuffix(got, "; time unknown until the first runs (each line gives the time left)") {
		t.Errorf("header without an estimate: %s", got)
	}
	cfg.Estimate, cfg.Grid.Env[0].Values = nil, []string{"1"}
	var b strings.Builder
	progress := cfg.LineProgress(&b)
	progress(1, 6, "", &measure.Measurement{Status: "ok", Median: 20, Knobs: map[string]string{"ORK_BL_LITTLE_FRAC": "0", "ORK_BL_POLL": "50", "-t": "4"}})
	progress(6, 6, "", &measure.Measurement{Status: "failed", Error: "exit status 1", Knobs: map[string]string{"ORK_BL_LITTLE_FRAC": "0.2", "ORK_BL_POLL": "0"}})
	lines := strings.Split(b.String(), "\n")
	if !strings.HasPrefix(lines[0], "[1/6] ORK_BL_LITTLE_FRAC=0 ORK_BL_POLL=50  20.00 t/s  (eta ") || lines[1] != "[6/6] ORK_BL_LITTLE_FRAC=0.2 ORK_BL_POLL=0  failed: exit status 1" {
		t.Errorf("progress:\n%s", b.String())
	}
	// Nothing varies: every knob is named.
	b.Reset()
	Config{Grid: Grid{Command: []string{"b"}, Args: []Axis{{Name: "-t", Values: []string{"4"}}}}}.LineProgress(&b)(1, 1, "", &measure.Measurement{Status: "ok", Median: 1, Knobs: map[string]string{"-t": "4"}})
	if b.String() != "[1/1] -t=4  1.00 t/s\n" {
		t.Errorf("no varying knob: %q", b.String())
	}
	for _, tc := range []struct {
		s    Summary
		want string
	}{
		{Summary{Runs: 6, OK: 4, Failed: 2, Measurements: 6}, "6 runs: 4 ok, 2 failed, 0 timed out; 6 measurements appended to p"},
		{Summary{Runs: 2, OK: 1, Flagged: 1, Skipped: 4, Measurements: 2}, "2 runs: 1 ok, 0 failed, 0 timed out, 1 flagged (their records do not match their knobs: kept out of the fit); 4 skipped (already measured); 2 measurements appended to p"},
	} {
		if got := tc.s.Line("p"); got != tc.want {
			t.Errorf("summary\n %s\nwant\n %s", got, tc.want)
		}
	}
}
