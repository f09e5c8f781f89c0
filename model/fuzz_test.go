package model

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The seed corpora live in testdata/fuzz/FuzzParseSoC and
// testdata/fuzz/FuzzParseWorkload (the presets' YAML and broken variants);
// `go test` runs them, `go test -fuzz FuzzParseSoC` explores from them.

// addFixtures seeds f with the good and bad fixtures whose names start
// with prefix.
func addFixtures(f *testing.F, prefix string) {
	for _, dir := range []string{"good", "bad"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, prefix+"*.yaml"))
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
}

// checkErr: a rejection is a one-line error naming the input.
func checkErr(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	if !strings.HasPrefix(msg, "fuzz") {
		t.Errorf("error %q does not name the input", msg)
	}
	var fe *FieldError
	if errors.As(err, &fe) && strings.ContainsAny(msg, "\r\n") {
		t.Errorf("error has more than one line: %q", msg)
	}
}

// addVariants seeds f with the first good fixture whose name starts with
// prefix, each replacement made in it once: issue 31's huge counts,
// aliases and types maps, which no fixture holds.
func addVariants(f *testing.F, prefix string, repl ...[2]string) {
	files, _ := filepath.Glob(filepath.Join("testdata", "good", prefix+"*.yaml"))
	if len(files) == 0 {
		f.Fatalf("no good fixture %s*", prefix)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		f.Fatal(err)
	}
	for _, r := range repl {
		if !strings.Contains(string(b), r[0]) {
			f.Fatalf("%s holds no %q", files[0], r[0])
		}
		f.Add([]byte(strings.Replace(string(b), r[0], r[1], 1)))
	}
	// A billion laughs in the description.
	laughs := "\nl0: &a0 [l,l,l,l,l,l,l,l,l,l]\n"
	for i := 1; i <= 6; i++ {
		laughs += fmt.Sprintf("l%d: &a%d [%s]\n", i, i, strings.Repeat(fmt.Sprintf("*a%d,", i-1), 9)+fmt.Sprintf("*a%d", i-1))
	}
	f.Add([]byte(string(b) + laughs))
}

func FuzzParseSoC(f *testing.F) {
	addFixtures(f, "soc-")
	addVariants(f, "soc-", [2]string{"cores: ", "cores: 1024 #"}, [2]string{"name: ", "name: \"\\e[2J\" #"},
		[2]string{"schema:", "base: &base {q4: 1, q6: 1, q8: 1, f16: 1, f32: 1}\nschema:"})
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSoC(data, "fuzz")
		if err != nil {
			checkErr(t, err)
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("accepted a profile that does not validate: %v", err)
		}
		for _, v := range []float64{s.DRAM.PeakGBs, s.DRAM.SustainedGBs} {
			if !(v > 0) || math.IsInf(v, 0) {
				t.Fatalf("accepted DRAM bandwidth %g", v)
			}
		}
		for _, p := range s.Params() {
			v, err := s.Get(p)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("param %s: %g, %v", p, v, err)
			}
		}
		b, err := MarshalSoC(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseSoC(b, "fuzz")
		if err != nil {
			t.Fatalf("marshalled profile does not parse: %v\n%s", err, b)
		}
		if !reflect.DeepEqual(s, back) {
			t.Fatalf("round trip changed the profile:\n got %+v\nwant %+v", back, s)
		}
	})
}

func FuzzParseWorkload(f *testing.F) {
	addFixtures(f, "wl-")
	addVariants(f, "wl-", [2]string{"depth: ", "depth: 4611686018427387904 #"}, [2]string{"prompt_tokens: ", "prompt_tokens: 1048576 #"},
		[2]string{"ubatch: ", "ubatch: 1 #"}, [2]string{"  bits_per_weight:", "  types: {experts_gate_up: q4_k, experts_down: q6_k, attention: q8_0}\n  bits_per_weight:"},
		[2]string{"  bits_per_weight:", "  types: {expert_gate_up: q4_k, router: \"Q4 K\"}\n  bits_per_weight:"},
		[2]string{"  bits_per_weight:", "  types: &t {experts_gate_up: q4_k}\n  bits_per_weight:"})
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := ParseWorkload(data, "fuzz")
		if err != nil {
			checkErr(t, err)
			return
		}
		if err := w.Validate(); err != nil {
			t.Fatalf("accepted a workload that does not validate: %v", err)
		}
		if w.Run.Ubatches() < 1 && w.Run.GenTokens < 1 || len(w.Model.Pattern) == 0 {
			t.Fatalf("accepted run %+v pattern %q", w.Run, w.Model.Pattern)
		}
		// Building the ops of a large model is slow; the shape checks above
		// are what parsing promises.
		if w.Model.Layers <= 64 && w.Run.Ubatches() <= 4 {
			graphs := [][]Op{w.TokenOps(w.Run.Depth + w.Run.PromptTokens)}
			for u := 0; u < w.Run.Ubatches(); u++ {
				graphs = append(graphs, w.Ops(u))
			}
			for u, ops := range graphs {
				for _, o := range ops {
					if math.IsNaN(o.Ops) || o.Ops < 0 || math.IsNaN(o.WeightBytes) || o.WeightBytes < 0 {
						t.Fatalf("graph %d (0: a generated token's) op %s: ops %g bytes %g", u, o.Name, o.Ops, o.WeightBytes)
					}
				}
			}
		}
	})
}
