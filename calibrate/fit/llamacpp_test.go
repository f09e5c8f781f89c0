package fit

import "testing"

// TestRecordedLlamaCppHeldOut fits the development VM's one-cluster
// profile to stock llama-bench runs of a random-weight Mixtral-shaped
// Q8_0 MoE (testdata/llamacpp: -t 1,2 x -p 64,256 x -ub 16,64 x --poll
// 0,50, 3 shuffled rounds), holding out two prompt lengths, the other
// thread count and ubatch (t=2 at pp256, t=1 at pp64 ub16). The kernel
// rates are llama.cpp's own: fitted with wide priors from the prior's
// blsim-kernel values, they must predict the held-out runs within 5%.
func TestRecordedLlamaCppHeldOut(t *testing.T) {
	skipShort(t)
	prior, ms := loadRecorded(t, "testdata/llamacpp/prior.yaml", "testdata/llamacpp/workload.yaml", "testdata/llamacpp/grid.jsonl", 48)
	held := []string{"t=2 pp256", "t=1 pp64 ub=16"}
	v, r, err := Holdout(prior, ms, held, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fit MAPE %.2f%% over %d, held-out MAPE %.2f%% (max %.2f%%) over %d", r.MAPE, len(r.Residuals), v.MAPE, v.MaxErrPct, v.N)
	if v.N != 6 || len(r.Residuals) != 10 {
		t.Fatalf("%d held out and %d fitted configurations, want 6 and 10", v.N, len(r.Residuals))
	}
	if r.Kernels != KernelsForeign {
		t.Errorf("kernels %q: llama-bench runs are foreign", r.Kernels)
	}
	if err := r.Check(); err != nil {
		t.Errorf("poor fit: %v", err)
	}
	if v.MAPE > 5 {
		t.Errorf("held-out MAPE %.2f%%, want at most 5%%", v.MAPE)
	}
	// With the prior's own (blsim) kernel priors the attention rate is
	// held near blsim's scalar f32 loop and the fit cannot follow.
	vp, _, err := Holdout(prior, ms, held, Options{Kernels: KernelsPrior})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("with the prior's kernel priors: held-out MAPE %.2f%%", vp.MAPE)
	if vp.MAPE < v.MAPE {
		t.Errorf("prior kernels predict better (%.2f%%) than the benchmark's own (%.2f%%)", vp.MAPE, v.MAPE)
	}
}
