package model

import (
	"errors"
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

func FuzzParseSoC(f *testing.F) {
	addFixtures(f, "soc-")
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
