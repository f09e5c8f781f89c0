package runner

import (
	"strings"
	"testing"
)

// FuzzParseGridFile: any bytes either parse into a grid that validates, or
// give a one-line error naming the file; never a panic.
func FuzzParseGridFile(f *testing.F) {
	for _, s := range []string{
		"command: llama-bench -p 512\nenv: {ORK_BL_POLL: [0, 50]}\ntimeout_s: 5\nwarmup: 2\nretries: 1\n",
		"command: llama-bench -m \"/m/My Model.gguf\"\nenv:\n  ORK_BL_LITTLE_FRAC: \"0.05:0.30:0.05\"\nargs:\n  -t: 4\n  --poll: [0.10, 50]\nrounds: 3\nshuffle: true\nholdout: [f=0.15]\n",
		"command: [a, b]\n", "env: {X: 0:1:0}\ncommand: x\n", "timeout_s: -1\ncommand: x\n", "",
		// Issue 31: huge counts, and aliases that expand without end.
		"command: x\nrounds: 100000000\nenv: {A: 1:100:1}\n", "command: x\nrounds: 9223372036854775807\n", "command: x\nwarmup: 1001\nretries: 5\n",
		"command: &c [x, y]\nenv: &e {A: *c, B: *c}\nargs: {-t: *c}\n",
		"a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\ncommand: *c\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseGridFile(data, "fuzz.yaml")
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, "fuzz.yaml") || strings.ContainsAny(msg, "\r\n") {
				t.Errorf("error %q: want one line naming the file", msg)
			}
			return
		}
		if g == nil {
			t.Fatal("nil grid without an error")
		}
		// What the counts let through is laid out within MaxPoints.
		cfg := Config{Grid: g.Grid, Warmup: g.Warmup, Retries: g.Retries, Rounds: g.Rounds}
		if len(cfg.Grid.Command) == 0 {
			cfg.Grid.Command = []string{"x"}
		}
		if cfg.Grid.Validate() == nil && cfg.checkCounts() == nil {
			if n := len(Schedule(cfg.Grid.Points(), cfg.Rounds, g.Shuffle)); n > MaxPoints {
				t.Fatalf("%d runs laid out", n)
			}
		}
	})
}

// FuzzParseMapping: a knobs mapping parses and validates, or is one line
// naming the file.
func FuzzParseMapping(f *testing.F) {
	for _, s := range []string{
		"little_frac: [GGML_HYBRID_FRAC]\npoll: --poll\nsplit: GGML_HYBRID_MODE\nsplit_values: {rows: token, experts: expert}\nlittle_threads: E\nbig_threads: -t\nengines: {big: perf, little: eff}\n",
		"little_frac: MY_FRAC\nengines: {big: p, little: e}\n", "engines: {big: a, little: a}\n", "n_threads: total\n", "",
		"little_frac: &n [A, B]\npoll: *n\nsplit: *n\n", "defaults: &d {A: '1', B: '2'}\nsplit_values: *d\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMapping(data, "fuzz.yaml")
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, "fuzz.yaml") || strings.ContainsAny(msg, "\r\n") {
				t.Errorf("error %q: want one line naming the file", msg)
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("accepted a mapping that does not validate: %v", err)
		}
	})
}
