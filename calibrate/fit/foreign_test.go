package fit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// synthForeign measures, on truth, what a foreign dispatcher's grid would:
// llama-bench records of native and token- and expert-split runs at two
// ubatches (each record carrying its own test), with relative noise.
func synthForeign(t testing.TB, truth *model.SoC, rng *rand.Rand, noise float64) []measure.Measurement {
	t.Helper()
	yaml, err := os.ReadFile("testdata/small-moe.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var plans []model.Plan
	for _, poll := range []int{0, 50} {
		plans = append(plans, model.NewNative("big", 4, poll))
		for _, f := range []float64{0.1, 0.2, 0.3, 0.45} {
			plans = append(plans, model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(f), poll))
		}
		for _, f := range []float64{0.15, 0.35} {
			plans = append(plans, model.NewPlan(model.ExpertSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(f), poll))
		}
	}
	p := NewPredictor()
	var out []measure.Measurement
	for _, ub := range []int{16, 64} {
		for i, pl := range plans {
			m := measure.Measurement{Schema: measure.Schema, ID: fmt.Sprintf("ub%d-run%d", ub, i), Kind: measure.LlamaBench,
				Workload: "small-moe", WorkloadYAML: string(yaml), Plan: measure.PlanOf(pl), Unit: "t/s", Status: "ok",
				Run: &measure.Run{PromptTokens: 64, Ubatch: ub}}
			measureOn(t, p, truth, &m, rng, noise)
			out = append(out, m)
		}
	}
	return out
}

// scaleKernels multiplies every kernel rate of s by f.
func scaleKernels(s *model.SoC, f float64) {
	for i := range s.Engines {
		for c, v := range s.Engines[i].KernelOpsPerCycle {
			s.Engines[i].KernelOpsPerCycle[c] = v * f
		}
	}
}

// A foreign dispatcher whose kernels run 20x faster than the prior's (as
// llama.cpp's against blsim's scalar ones): with the prior's narrow kernel
// priors the fit cannot follow; as a foreign benchmark, with
// wide kernel priors, it recovers the rates and predicts held-out
// fractions and the split mode it never saw.
func TestForeignKernelsRecovered(t *testing.T) {
	skipShort(t)
	prior, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	// The prior trusts its kernel rates to 8%, as a calibrate --quick
	// profile does.
	for _, e := range prior.Engines {
		for c, v := range e.KernelOpsPerCycle {
			prior.Uncertainty["engines."+e.Name+".kernel_ops_per_cycle."+c] = 0.08 * v
		}
	}
	truth := prior.Clone()
	scaleKernels(truth, 20)
	truth.Engines[1].KernelOpsPerCycle["q4"] *= 0.7 // not one common factor
	ms := synthForeign(t, truth, rand.New(rand.NewPCG(7, 7)), 0.01)

	held := []string{"f=0.3", "f=0.45", "expert"}
	vn, narrow, err := Holdout(prior, ms, held, Options{Kernels: KernelsPrior})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("narrow kernel priors: fit MAPE %.2f%%, held-out MAPE %.2f%% (max %.2f%%); check: %v", narrow.MAPE, vn.MAPE, vn.MaxErrPct, narrow.Check())
	if vn.MAPE < 5 {
		t.Errorf("narrow kernel priors: held-out MAPE %.2f%%, want the fit to fail to follow (above 5%%)", vn.MAPE)
	}

	// Auto is foreign for llama-bench runs. Hold out fractions and the
	// whole expert split.
	v, r, err := Holdout(prior, ms, held, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The search must find the kernels far faster than the prior's (past
	// ~20x the expert ops turn DRAM-bound, so the factor is a lower bound).
	if r.Kernels != KernelsForeign || r.KernelScales["q4"] < 5 {
		t.Errorf("kernels %q scaled by %v, want foreign with q4 scaled by more than 5", r.Kernels, r.KernelScales)
	}
	if err := r.Check(); err != nil {
		t.Errorf("wide kernel priors: %v", err)
	}
	t.Logf("wide kernel priors: fit MAPE %.2f%%, held-out MAPE %.2f%% (max %.2f%%) over %d", r.MAPE, v.MAPE, v.MaxErrPct, v.N)
	if v.MAPE > 5 {
		t.Errorf("held-out MAPE %.2f%%, want at most 5%%", v.MAPE)
	}
	for _, p := range r.Params {
		if !isKernelRate(p.Path) || p.Identification == RidesOnPrior {
			continue // a rate the fit does not search keeps the prior's ratio
		}
		if p.PriorFrom != PriorScaled {
			t.Errorf("%s: prior from %q", p.Path, p.PriorFrom)
		}
		want, _ := truth.Get(p.Path)
		if p.Identifiable && math.Abs(p.Value/want-1) > 0.15 {
			t.Errorf("%s = %.4g, truth %.4g", p.Path, p.Value, want)
		}
	}
	// Only the classes the workload runs are fitted.
	for _, p := range r.Params {
		if p.Identification != RidesOnPrior && (strings.HasSuffix(p.Path, ".f32") || strings.HasSuffix(p.Path, ".q6")) {
			t.Errorf("%s is fitted, but small-moe runs no such matmul", p.Path)
		}
	}
}

func TestFitSkipsPlansThePriorCannotRun(t *testing.T) {
	skipShort(t)
	prior, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	ms := synthForeign(t, prior, rand.New(rand.NewPCG(1, 2)), 0.01)
	bad := ms[0]
	bad.ID, bad.Plan = "too-many", measure.PlanOf(model.NewNative("big", 8, 50)) // big has 4 cores
	ms = append(ms, bad)
	r, err := Fit(prior, ms, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Skipped) != 1 || r.Skipped[0].ID != "too-many" || !strings.Contains(r.Skipped[0].Reason, "cores") {
		t.Errorf("skipped = %+v", r.Skipped)
	}
	if len(r.Residuals) != len(ms)-1 {
		t.Errorf("%d residuals for %d runnable throughputs", len(r.Residuals), len(ms)-1)
	}
}

func TestCheck(t *testing.T) {
	res := func(errs ...float64) []Residual {
		var out []Residual
		for i, e := range errs {
			out = append(out, Residual{ID: fmt.Sprint(i), Label: fmt.Sprint("run ", i), ErrPct: e})
		}
		return out
	}
	mape := func(rs []Residual) float64 {
		s := 0.0
		for _, r := range rs {
			s += math.Abs(r.ErrPct)
		}
		return s / float64(len(rs))
	}
	for _, tc := range []struct {
		name string
		errs []float64
		down int
		at   string
		want string // "" is a good fit
	}{
		{"good", []float64{1, -2, 3, 0.5}, 0, "", ""},
		{"high mape", []float64{30, -20, 3, 1}, 0, "", "MAPE 13.50% > 10%"},
		{"many outliers", []float64{12, -12, 12, -4, 1, 1, 1, 1, 1, 1}, 3, "", "3 of 10 throughputs down-weighted as outliers and missed by more than 10%"},
		{"a quarter is fine", []float64{4, -4, 1, 1, 1, 1, 1, 1}, 2, "", ""},
		{"few points", []float64{4, -4, 1, 1}, 2, "", ""},
		{"names the worst and the bounds", []float64{90, -80, 3, 1}, 0, "lower", "worst: run 0 +90.0%, run 1 -80.0%, run 2 +3.0%; at a bound: engines.big.kernel_ops_per_cycle.q4=0 (lower)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Result{Residuals: res(tc.errs...), Downweighted: tc.down, FarOutliers: tc.down}
			r.MAPE = mape(r.Residuals)
			r.Params = []ParamFit{{Path: "engines.big.kernel_ops_per_cycle.q4", AtBound: tc.at}}
			err := r.Check()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Check() = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Check() = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestParseKernels(t *testing.T) {
	for in, want := range map[string]Kernels{"": KernelsAuto, "auto": KernelsAuto, "prior": KernelsPrior, "foreign": KernelsForeign} {
		if got, err := ParseKernels(in); err != nil || got != want {
			t.Errorf("ParseKernels(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseKernels("wide"); err == nil || !strings.Contains(err.Error(), `"wide"`) {
		t.Errorf("ParseKernels(wide): %v", err)
	}
}

// TestFitsGemvOverlap: a prior with a one-token overlap (rk3588's, 0.73
// on the A76s) has it fitted when the runs include tg tests, and
// recovered near a truth that differs (0.45): runs of the profile's own
// dispatcher with the prior's kernels, and stock llama.cpp's (no
// dispatcher graph splits, which a foreign fit drops) with the foreign
// search's. With prompts only it is not freed, since no graph of one
// token ran.
func TestFitsGemvOverlap(t *testing.T) {
	prior, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	// A prior that trusts its one-token overlap loosely (the preset's
	// σ 0.05 would hold the fit near 0.73).
	prior.Uncertainty["engines.big.gemv_overlap"] = 0.3
	yaml, err := os.ReadFile("testdata/small-moe.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := NewPredictor()
	measureAll := func(truth *model.SoC) (pp, all []measure.Measurement) {
		rng := rand.New(rand.NewPCG(5, 6))
		for i, run := range []measure.Run{{PromptTokens: 64, Ubatch: 64}, {PromptTokens: 64, Ubatch: 16},
			{GenTokens: 16}, {GenTokens: 16, Depth: 256}, {PromptTokens: 16, Ubatch: 16, GenTokens: 16}} {
			for _, threads := range []int{2, 4} {
				m := measure.Measurement{Schema: measure.Schema, ID: fmt.Sprintf("run%d-t%d", i, threads), Kind: measure.LlamaBench,
					Workload: "small-moe", WorkloadYAML: string(yaml), Plan: measure.PlanOf(model.NewNative("big", threads, 50)),
					Unit: "t/s", Status: "ok", Run: &run}
				measureOn(t, p, truth, &m, rng, 0.005)
				all = append(all, m)
				if run.GenTokens == 0 {
					pp = append(pp, m)
				}
			}
		}
		return pp, all
	}
	own := prior.Clone()
	own.Engines[0].GemvOverlap = 0.45
	stock := own.Clone()
	stock.Handoff.GraphSplitsPerLayer = 0
	pp, all := measureAll(own)
	_, stockAll := measureAll(stock)
	const path = "engines.big.gemv_overlap"
	for _, tc := range []struct {
		name    string
		ms      []measure.Measurement
		kernels Kernels
		want    bool
	}{{"dispatcher pp and tg", all, KernelsPrior, true}, {"stock pp and tg", stockAll, KernelsForeign, true}, {"dispatcher pp only", pp, KernelsPrior, false}} {
		r, err := Fit(prior, tc.ms, Options{Kernels: tc.kernels})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, q := range r.Params {
			if q.Path != path {
				continue
			}
			found = true
			t.Logf("%s: %s fitted %.3f ± %.3f (truth 0.45, prior 0.73); fit MAPE %.2f%%", tc.name, path, q.Value, q.Sigma, r.MAPE)
			if math.Abs(q.Value-0.45) > 0.1 || !q.Identifiable {
				t.Errorf("%s: %s = %.3f ± %.3f, identifiable %v; truth 0.45", tc.name, path, q.Value, q.Sigma, q.Identifiable)
			}
		}
		if found != tc.want {
			t.Errorf("%s: %s fitted %v, want %v", tc.name, path, found, tc.want)
		}
		obs, _ := runnable(prior, throughputs(tc.ms, Median), p)
		if got := slices.Contains(ForeignFree(prior, obs, p), path); got != tc.want {
			t.Errorf("%s: ForeignFree frees %s %v, want %v", tc.name, path, got, tc.want)
		}
	}
}
