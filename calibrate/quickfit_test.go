package calibrate

import (
	"testing"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// TestRecordedQuickFitsThreadLoss refits two quick calibrations recorded on
// the 2-vCPU build machine (`blsim calibrate --quick --cluster big=0-1`,
// quiet, 2026-12-02; their microbenchmarks measured a thread-scaling loss
// of 0.022 and 0.009 in cache). Their dispatcher runs lose about a fifth of
// a thread's rate at t=2. With the loss held near the microbenchmark's
// value both fits were refused (MAPE 7.6% with 3 far outliers, 14.3%), the
// second having slowed the q4 kernel to 37 ops/cycle instead. The fit now
// frees the loss wherever the runs have one and two threads, from a second
// start at LossStart as well, and both fit under the 10% limit.
func TestRecordedQuickFitsThreadLoss(t *testing.T) {
	skipShort(t)
	t.Parallel()
	for _, name := range []string{"try5", "try9"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // the two refits are independent
			ms, w := recordedQuick(t, "testdata/quick-vm/"+name+".jsonl")
			engines := NewEngines([]topology.Cluster{{Name: "big", CPUs: []int{0, 1}}})
			prior := Prior("quick-vm", engines, ms, w)
			var r *fit.Result
			var err error
			concurrently(1, func(int) { r, err = fit.Fit(prior, ms, fit.Options{}) }) // in one of fitSlots
			if err != nil {
				t.Fatal(err)
			}
			var loss *fit.ParamFit
			for i := range r.Params {
				if r.Params[i].Path == "engines.big.thread_scaling_loss" {
					loss = &r.Params[i]
				}
			}
			if loss == nil {
				t.Fatalf("thread_scaling_loss not fitted; free: %v", r.Params)
			}
			t.Logf("MAPE %.2f%%, loss %.3f ± %.3f (prior %.3f), %d far outliers", r.MAPE, loss.Value, loss.Sigma, loss.Prior, r.FarOutliers)
			if r.MAPE > 10 {
				t.Errorf("fit MAPE %.2f%%, want at most 10%%", r.MAPE)
			}
			// The runs' slowdown at t=2 is the loss's, or, since the fit's
			// cap starts (fit.CapStartShares), a cap the fit lowered
			// below its stream's reading (try5: loss 0.03, fit 1.28%).
			var cap *fit.ParamFit
			for i := range r.Params {
				if r.Params[i].Path == "engines.big.bandwidth_max_gb_s" {
					cap = &r.Params[i]
				}
			}
			capLowered := cap != nil && cap.Value < 0.9*cap.Prior
			if loss.Prior > 0.05 || (loss.Value < 0.1 && !capLowered) {
				t.Errorf("loss %.3f from a prior of %.3f, cap lowered %v: want the fit to move the loss past 0.1 from under 0.05, or lower the cap", loss.Value, loss.Prior, capLowered)
			}
		})
	}
}

// recordedQuick reads a recorded calibration's measurements and the
// workload its dispatcher runs carry.
func recordedQuick(t testing.TB, path string) ([]measure.Measurement, *model.Workload) {
	t.Helper()
	ms, errs := measure.ReadFile(path)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	for i := range ms {
		if ms[i].Kind == measure.Dispatcher && ms[i].WorkloadYAML != "" {
			w, err := model.ParseWorkload([]byte(ms[i].WorkloadYAML), path)
			if err != nil {
				t.Fatal(err)
			}
			return ms, w
		}
	}
	t.Fatalf("%s: no dispatcher record with its workload", path)
	return nil, nil
}
