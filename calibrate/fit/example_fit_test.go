package fit_test

import (
	"fmt"
	"log"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// Fit two parameters of a board to its throughputs: the runs are simulated
// on an RK3588 whose little cores compute and stream slower than the preset
// says, each taken as known to 1%, and fitted with the preset as the prior:
// the priors hold the estimates a little above the truth, within one
// standard error.
func ExampleFit() {
	prior, err := presets.SoC("rk3588")
	if err != nil {
		log.Fatal(err)
	}
	truth := prior.Clone()
	if err := truth.Set("engines.little.kernel_ops_per_cycle.q4", 7); err != nil {
		log.Fatal(err)
	}
	if err := truth.Set("engines.little.bandwidth_max_gb_s", 7.5); err != nil {
		log.Fatal(err)
	}

	// The board's runs: native and token splits at poll 0 and 50, each
	// "measured" by simulating it on the truth.
	var plans []model.Plan
	for _, poll := range []int{0, 50} {
		plans = append(plans, model.NewNative("big", 4, poll))
		for _, f := range []float64{0.1, 0.2, 0.3} {
			plans = append(plans, model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(f), poll))
		}
	}
	pred := fit.NewPredictor()
	var ms []measure.Measurement
	for i, p := range plans {
		m := measure.Measurement{Schema: measure.Schema, ID: fmt.Sprint("run", i), Kind: measure.Dispatcher,
			Workload: "qwen3.5-35b-a3b", Plan: measure.PlanOf(p), Unit: "t/s", Status: "ok"}
		if m.Median, err = pred.Predict(truth, &m); err != nil {
			log.Fatal(err)
		}
		m.CV = 0.01
		ms = append(ms, m)
	}

	r, err := fit.Fit(prior, ms, fit.Options{Free: []string{"engines.little.kernel_ops_per_cycle.q4", "engines.little.bandwidth_max_gb_s"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range r.Params {
		want, _ := truth.Get(p.Path)
		fmt.Printf("%s: prior %.3g, true %.3g, fitted %.2f ± %.2f (%s)\n", p.Path, p.Prior, want, p.Value, p.Sigma, p.Identification)
	}
	fmt.Printf("MAPE %.2f%% over %d runs\n", r.MAPE, len(r.Residuals))
	// Output:
	// engines.little.kernel_ops_per_cycle.q4: prior 9, true 7, fitted 7.17 ± 0.39 (identified)
	// engines.little.bandwidth_max_gb_s: prior 10.5, true 7.5, fitted 7.66 ± 0.27 (identified)
	// MAPE 0.48% over 8 runs
}
