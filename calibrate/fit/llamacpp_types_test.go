package fit

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// TestRecordedLlamaCppTypes: kernel rates per GGML type, calibrated on real
// llama.cpp. Two GGUFs of one shape, Q8_0 and Q4_0, each run through
// `calibrate --bench --gguf` (testdata/llamacpp-types/README.md): every
// measurement carries its GGUF's workload, types included, and the fit
// frees exactly the types the models use (q8_0, q4_0), not the classes
// their bits fall in, each starting at its class's rate with a note.
func TestRecordedLlamaCppTypes(t *testing.T) {
	skipShort(t)
	prior, err := model.LoadSoCFile("testdata/llamacpp-tg/prior.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ms, errs := measure.ReadFile("testdata/llamacpp-types/grid.jsonl")
	if len(errs) != 0 || len(ms) != 32 {
		t.Fatalf("%d measurements, errors %v", len(ms), errs)
	}
	r, err := Fit(prior, ms, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Check(); err != nil {
		t.Errorf("poor fit: %v", err)
	}
	fitted := map[string]float64{}
	for _, p := range r.Params {
		fitted[p.Path] = p.Value
	}
	const pre = "engines.big.kernel_ops_per_cycle."
	q4, q8 := fitted[pre+"q4_0"], fitted[pre+"q8_0"]
	if q4 == 0 || q8 == 0 {
		t.Fatalf("fitted %v: want q4_0 and q8_0 among them", fitted)
	}
	for _, class := range []string{"q4", "q8"} {
		if _, ok := fitted[pre+class]; ok {
			t.Errorf("the class %s was fitted; the types are the models'", class)
		}
	}
	notes := strings.Join(r.Notes, "\n")
	for _, typ := range []string{"q4_0", "q8_0"} {
		if !strings.Contains(notes, pre+typ+": the workload's type, with no rate in the prior") {
			t.Errorf("no note on %s: %s", typ, notes)
		}
	}
	// Q4_0 runs llama.cpp's repacked AVX-512 kernels here, Q8_0 its
	// generic ones: the two rates differ by far more than the noise.
	if !(q4 > 1.15*q8) {
		t.Errorf("q4_0 %.4g and q8_0 %.4g ops/cycle: want q4_0 the faster", q4, q8)
	}
	if got, _ := r.SoC.Engines[0].KernelRate("q8", "q8_0"); got != q8 {
		t.Errorf("the fitted profile's q8_0 rate %g, want %g", got, q8)
	}
	v, _, err := Holdout(prior, ms, []string{"t=2 pp256", "t=1 pp64 ub=16"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fit MAPE %.2f%% over %d; q4_0 %.4g, q8_0 %.4g ops/cycle; held-out MAPE %.2f%% (max %.2f%%) over %d", r.MAPE, len(r.Residuals), q4, q8, v.MAPE, v.MaxErrPct, v.N)
	if v.N != 6 || v.MAPE > 5 {
		t.Errorf("held out %d, MAPE %.2f%%: want 6 at most 5%%", v.N, v.MAPE)
	}
}
