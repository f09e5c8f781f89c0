package fit

import "testing"

// TestRecordedCDispatchHeldOut fits the development VM's two 1-core
// engines to the independent C dispatcher's grid (testdata/cdispatch:
// native and token and expert splits at fractions 0.1-0.5, poll 0 and 50,
// ubatch 64 and 256 of pp256, 2 shuffled rounds) from a calibrate --quick
// prior, holding out the whole expert split and the token fractions 0.3
// and 0.5: the split mode and the fractions it never saw must be
// predicted within 5%.
func TestRecordedCDispatchHeldOut(t *testing.T) {
	skipShort(t)
	prior, ms := loadRecorded(t, "testdata/cdispatch/prior.yaml", "../../cmd/blsim/testdata/cdispatch/workload.yaml", "testdata/cdispatch/grid.jsonl", 88)
	v, r, err := Holdout(prior, ms, []string{"expert", "f=0.3", "f=0.5"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fit MAPE %.2f%% over %d, held-out MAPE %.2f%% (max %.2f%%) over %d; kernels scaled %v", r.MAPE, len(r.Residuals), v.MAPE, v.MaxErrPct, v.N, r.KernelScales)
	if v.N != 28 || len(r.Residuals) != 16 {
		t.Fatalf("%d held out and %d fitted configurations, want 28 and 16", v.N, len(r.Residuals))
	}
	if r.Kernels != KernelsForeign {
		t.Errorf("kernels %q", r.Kernels)
	}
	if err := r.Check(); err != nil {
		t.Errorf("poor fit: %v", err)
	}
	if v.MAPE > 5 {
		t.Errorf("held-out MAPE %.2f%%, want at most 5%%", v.MAPE)
	}
}
