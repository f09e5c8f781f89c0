package fit

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// TestRecordedLlamaCppDense: a dense model beside an MoE, both real
// llama.cpp runs on one host (testdata/llamacpp-dense/README.md). Fitted
// on the MoE's prompts and the dense model's at one thread, the profile
// predicts the dense model's prompts at two threads and both models'
// generated tokens, held out. The dense and the expert matrix products
// run different kernels (llamafile's sgemm, ggml's MUL_MAT_ID), which the
// fit tells apart only with both: it frees moe_efficiency and finds the
// experts at about half the dense rate. Fitted on the MoE alone, the same
// profile predicts the dense prompts 10-30% slow (logged).
func TestRecordedLlamaCppDense(t *testing.T) {
	skipShort(t)
	prior, err := model.LoadSoCFile("testdata/llamacpp-dense/prior.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ms, errs := measure.ReadFile("testdata/llamacpp-dense/grid.jsonl")
	if len(errs) != 0 || len(ms) != 48 {
		t.Fatalf("%d measurements, errors %v; want 48", len(ms), errs)
	}
	split := func(fit func(dense bool, label string) bool) (train, test []measure.Measurement) {
		for _, m := range ms {
			l := m.Label()
			if !strings.Contains(l, "tg") && fit(strings.HasPrefix(m.Workload, "blsim-dense"), l) {
				train = append(train, m)
			} else {
				test = append(test, m)
			}
		}
		return train, test
	}
	predict := func(train, test []measure.Measurement) (*Result, *Validation) {
		t.Helper()
		r, err := Fit(prior, train, Options{})
		if err != nil {
			t.Fatal(err)
		}
		v, err := Predictions(r.SoC, test, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return r, v
	}

	// The MoE alone: the dense prompts come out slow.
	_, v := predict(split(func(dense bool, _ string) bool { return !dense }))
	var densePP []float64 // every prompt held out here is the dense model's
	for _, w := range v.Worst {
		if strings.Contains(w.Label, " pp") {
			densePP = append(densePP, w.ErrPct)
		}
	}
	t.Logf("fitted on the MoE alone: held-out MAPE %.2f%% (max %.2f%%) over %d; dense prompts MAPE %.2f%%", v.MAPE, v.MaxErrPct, v.N, measure.MAPE(densePP))

	// Both: the experts' share of the dense rate is identified.
	r, v := predict(split(func(dense bool, l string) bool { return !dense || strings.Contains(l, "t=1 ") }))
	if err := r.Check(); err != nil {
		t.Errorf("poor fit: %v", err)
	}
	var moe *ParamFit
	for i := range r.Params {
		if r.Params[i].Path == "engines.big.moe_efficiency" {
			moe = &r.Params[i]
		}
	}
	if moe == nil {
		t.Fatalf("moe_efficiency not fitted: %+v", r.Params)
	}
	if moe.Identification != Identified || !(moe.Value < 0.8) {
		t.Errorf("moe_efficiency %+v: want it fitted, identified and well below 1", moe)
	}
	t.Logf("fitted on both: fit MAPE %.2f%% over %d, moe_efficiency %.3f ± %.3f; held out (the dense prompts at -t 2, every tg32): MAPE %.2f%%, max %.2f%% over %d",
		r.MAPE, len(r.Residuals), moe.Value, moe.Sigma, v.MAPE, v.MaxErrPct, v.N)
	if v.N != 12 || !(v.MAPE <= 5) || !(v.MaxErrPct <= 10) {
		t.Errorf("held out %d: MAPE %.2f%%, max %.2f%%; want 12 at most 5%% and 10%%", v.N, v.MAPE, v.MaxErrPct)
	}
}
