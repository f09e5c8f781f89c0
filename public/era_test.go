package public

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/quantize"
)

// TestEraGenericQ4_0Loop: before ggml repacked Q4_0, the 13900K's cores
// run 2023's generic Q4_0 dot loop at their parts'
// generic_q4_0_ops_per_cycle, the loop's bound on each core: 16 on the
// Raptor Cove (its FMA chain), 10 on the Gracemont (its micro-ops a
// cycle), 0.625 of the P-core per cycle (parts/cores/*.yaml); other types
// keep the q3_k rate. Where llamafile's sgemm runs Q4_0 (a 2024 prompt) the
// loop's rate does not apply: the q3_k rate. A build that repacks Q4_0
// keeps the preset's rate.
func TestEraGenericQ4_0Loop(t *testing.T) {
	s, err := presets.SoC("i9-13900k")
	if err != nil {
		t.Fatal(err)
	}
	w, err := presets.Workload("llama-2-7b")
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for k, v := range w.Model.Types {
		types[k] = v
	}
	types["output"] = "q4_k"
	w.Model.Types = types
	big, little := s.Engines[0], s.Engines[1]
	for _, tc := range []struct {
		date               string
		bigQ4_0, littleQ40 float64
		note               string
	}{
		{"2023-08-12", 16, 10, "q4_0's dot loop at 10 ops/cycle: the gracemont part's generic_q4_0_ops_per_cycle"},
		{"2024-06-01", big.KernelOpsPerCycle["q3_k"], little.KernelOpsPerCycle["q3_k"], ""},
		{"2025-06-01", big.KernelOpsPerCycle["q4_0"], little.KernelOpsPerCycle["q4_0"], ""},
	} {
		c, notes := EraOf(tc.date).Apply(s, w, quantize.Q4_0)
		b, l := c.Engines[0], c.Engines[1]
		if math.Abs(b.KernelOpsPerCycle["q4_0"]-tc.bigQ4_0) > 1e-9 || math.Abs(l.KernelOpsPerCycle["q4_0"]-tc.littleQ40) > 1e-9 {
			t.Errorf("%s: q4_0 big %g little %g, want %g and %g", tc.date, b.KernelOpsPerCycle["q4_0"], l.KernelOpsPerCycle["q4_0"], tc.bigQ4_0, tc.littleQ40)
		}
		if got := strings.Join(notes, "\n"); tc.note != "" && !strings.Contains(got, tc.note) || tc.note == "" && strings.Contains(got, "generic_q4_0_ops_per_cycle") {
			t.Errorf("%s: notes %q, want %q", tc.date, got, tc.note)
		}
		if tc.note == "" {
			continue
		}
		if l.KernelOpsPerCycle["q4_k"] != little.KernelOpsPerCycle["q3_k"] {
			t.Errorf("%s: little q4_k %g, want its q3_k %g (the multiple is Q4_0's loop's alone)", tc.date, l.KernelOpsPerCycle["q4_k"], little.KernelOpsPerCycle["q3_k"])
		}
		if r := l.KernelOpsPerCycle["q4_0"] / b.KernelOpsPerCycle["q4_0"]; math.Abs(r-0.625) > 0.005 {
			t.Errorf("%s: the E-core's loop per cycle %.3f of the P-core's, want 0.625", tc.date, r)
		}
		if want := "q4_0's dot loop at 16 ops/cycle: the raptor-cove part's"; !strings.Contains(strings.Join(notes, "\n"), want) {
			t.Errorf("%s: notes %q, want %q", tc.date, notes, want)
		}
	}
}
