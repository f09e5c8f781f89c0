package fit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

var recoverFree = []string{
	"engines.big.kernel_ops_per_cycle.q4",
	"engines.little.kernel_ops_per_cycle.q4",
	"engines.little.bandwidth_max_gb_s",
	"handoff.futex_wake_us",
}

// synth measures a grid of plans on truth with relative noise.
func synth(t testing.TB, truth *model.SoC, rng *rand.Rand, noise float64) []measure.Measurement {
	t.Helper()
	yaml, err := os.ReadFile("testdata/small-moe.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var plans []model.Plan
	for _, th := range []int{1, 2, 4} {
		plans = append(plans, model.NewNative("big", th, 50))
	}
	for _, poll := range []int{0, 50} {
		for _, f := range []float64{0.1, 0.2, 0.3, 0.45, 0.6} {
			plans = append(plans, model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(f), poll))
		}
		plans = append(plans, model.NewPlan(model.ExpertSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(0.25), poll))
	}
	p := NewPredictor()
	var out []measure.Measurement
	for i, pl := range plans {
		m := measure.Measurement{Schema: measure.Schema, ID: fmt.Sprint("run", i), Kind: measure.Dispatcher,
			Workload: "small-moe", WorkloadYAML: string(yaml), Plan: measure.PlanOf(pl), Unit: "t/s", Status: "ok"}
		measureOn(t, p, truth, &m, rng, noise)
		out = append(out, m)
	}
	return out
}

func TestFitRecoversTruth(t *testing.T) {
	base, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	base.Uncertainty = nil // weak priors: the data must carry the fit
	trials := 100
	if testing.Short() {
		trials = 20
	}
	covered := make([]int, len(recoverFree))
	for trial := 0; trial < trials; trial++ {
		rng := rand.New(rand.NewPCG(uint64(trial), 7))
		truth := base.Clone()
		// Truth is the preset moved by up to ±30% per parameter.
		for _, p := range recoverFree {
			v, _ := truth.Get(p)
			_ = truth.Set(p, v*(0.7+0.6*rng.Float64()))
		}
		ms := synth(t, truth, rng, 0.015)
		r, err := Fit(base, ms, Options{Free: recoverFree, PriorRelSigma: 10, MinRelSigma: 1e-6})
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range r.Params {
			tv, _ := truth.Get(p.Path)
			if math.Abs(p.Value-tv) <= 2*p.Sigma {
				covered[i]++
			}
		}
	}
	// 2σ covers the truth in about 95% of trials. Of 100 trials, fewer
	// than 90 covered is a defect; of the short run's 20, fewer than 16
	// (80%) happens by chance in 0.3% of seed sets (binomial, p 0.95).
	want := 0.9
	if trials < 100 {
		want = 0.8
	}
	for i, c := range covered {
		frac := float64(c) / float64(trials)
		t.Logf("%s: true value within 2σ in %d/%d trials", recoverFree[i], c, trials)
		if frac < want {
			t.Errorf("%s: true value within 2σ in only %.0f%% of trials, want >= %.0f%%", recoverFree[i], 100*frac, 100*want)
		}
	}
}

func TestFitImprovesAndWritesUncertainty(t *testing.T) {
	base, _ := presets.SoC("rk3588")
	truth := base.Clone()
	_ = truth.Set("engines.little.kernel_ops_per_cycle.q4", 6)
	_ = truth.Set("handoff.futex_wake_us", 150)
	ms := synth(t, truth, rand.New(rand.NewPCG(1, 2)), 0.01)
	before, err := Predictions(base, ms, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Fit(base, ms, Options{Free: recoverFree})
	if err != nil {
		t.Fatal(err)
	}
	if r.MAPE >= before.MAPE || r.MAPE > 2 {
		t.Errorf("MAPE %.2f%% after fit, %.2f%% before: want a fit within 2%%", r.MAPE, before.MAPE)
	}
	for _, p := range recoverFree {
		if r.SoC.Uncertainty[p] <= 0 {
			t.Errorf("%s: no uncertainty written", p)
		}
	}
	if err := r.SoC.Validate(); err != nil {
		t.Errorf("fitted profile invalid: %v", err)
	}
	if got, _ := base.Get("handoff.futex_wake_us"); got != 60 {
		t.Errorf("prior was modified: futex_wake_us = %g", got)
	}
}

func TestMicrobenchmarkSetsPrior(t *testing.T) {
	base, _ := presets.SoC("rk3588")
	ms := synth(t, base, rand.New(rand.NewPCG(3, 4)), 0.01)
	ms = append(ms, measure.Measurement{Schema: measure.Schema, ID: "futex", Kind: measure.FutexWake, Param: "handoff.futex_wake_us",
		Unit: "us", Median: 75, CV: 0.02, Status: "ok"})
	r, err := Fit(base, ms, Options{Free: []string{"handoff.futex_wake_us"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Params[0].Prior != 75 {
		t.Errorf("prior = %g, want the microbenchmark's 75", r.Params[0].Prior)
	}
}

func TestValidateModes(t *testing.T) {
	base, _ := presets.SoC("rk3588")
	truth := base.Clone()
	_ = truth.Set("engines.little.kernel_ops_per_cycle.q4", 7)
	ms := synth(t, truth, rand.New(rand.NewPCG(5, 6)), 0.01)
	loo, err := LeaveOneOut(base, ms, Options{Free: recoverFree})
	if err != nil {
		t.Fatal(err)
	}
	if loo.N != len(ms) || loo.MAPE > 3 || loo.MaxErrPct < loo.MAPE {
		t.Errorf("loo = %+v", loo)
	}
	if math.Abs(loo.Worst[0].ErrPct) != loo.MaxErrPct {
		t.Errorf("worst first: %v vs max %v", loo.Worst[0].ErrPct, loo.MaxErrPct)
	}
	ho, _, err := Holdout(base, ms, []string{"poll=0"}, Options{Free: recoverFree})
	if err != nil {
		t.Fatal(err)
	}
	if ho.N != 6 || ho.MAPE > 3 {
		t.Errorf("holdout = %+v", ho)
	}
	if _, err := Fit(base, nil, Options{}); err != ErrNoThroughput {
		t.Errorf("empty fit: %v", err)
	}
}

func TestRunsOfOneConfigurationMerge(t *testing.T) {
	base, _ := presets.SoC("rk3588")
	ms := synth(t, base, rand.New(rand.NewPCG(9, 9)), 0.01)
	one := ms[0]
	var again []measure.Measurement
	for i, v := range []float64{1.0, 1.02, 0.5} { // the third run was disturbed
		m := one
		m.ID = fmt.Sprint("again", i)
		m.Median = one.Median * v
		again = append(again, m)
	}
	obs := throughputs(append(ms[1:], again...), Median)
	if len(obs) != len(ms) {
		t.Fatalf("%d configurations, want %d", len(obs), len(ms))
	}
	last := obs[len(obs)-1]
	if last.Median != one.Median*1.0 || last.Knobs["runs"] != "3" || last.CV < 0.2 {
		t.Errorf("merged = median %g (want %g), runs %s, cv %g", last.Median, one.Median, last.Knobs["runs"], last.CV)
	}
}

// measureOn fills m with five samples of its throughput on truth, each off
// by relative noise, and the CV of their median.
func measureOn(t testing.TB, p *Predictor, truth *model.SoC, m *measure.Measurement, rng *rand.Rand, noise float64) {
	t.Helper()
	v, err := p.Predict(truth, m)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 5; k++ {
		m.Samples = append(m.Samples, v*(1+noise*rng.NormFloat64()))
	}
	m.Summarize()
	m.CV = 1.2533 * noise / math.Sqrt(5) // the median's relative error
}

// skipShort skips a slow refit of recorded or synthetic runs under
// go test -short (each takes 10-90 s on the 2-vCPU machine); the full
// go test ./... runs it.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("a slow refit; go test without -short runs it")
	}
}
