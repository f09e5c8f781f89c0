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
	})
}

// FuzzParseMapping: a knobs mapping parses and validates, or is one line
// naming the file.
func FuzzParseMapping(f *testing.F) {
	for _, s := range []string{
		"little_frac: [GGML_HYBRID_FRAC]\npoll: --poll\nsplit: GGML_HYBRID_MODE\nsplit_values: {rows: token, experts: expert}\nlittle_threads: E\nbig_threads: -t\nengines: {big: perf, little: eff}\n",
		"little_frac: MY_FRAC\nengines: {big: p, little: e}\n", "engines: {big: a, little: a}\n", "n_threads: total\n", "",
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
