package fit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// llamaPrior is the recorded one-cluster prior with llama.cpp's attention
// path measured beside its matmuls, at blsim's microbenchmark ratios on
// a 2-vCPU EPYC (f16 tiles at 0.45 of q8's rate, the softmax at 0.28
// elements a cycle).
func llamaPrior(t *testing.T) *model.SoC {
	t.Helper()
	prior, err := model.LoadSoCFile("testdata/llamacpp/prior.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e := &prior.Engines[0]
	q8 := e.KernelOpsPerCycle["q8"]
	for k, f := range map[string]float64{"f16": 0.45, model.RateF16Gemv: 0.3, model.RateSoftmax: 0.28 / q8, model.RateFlashAttn: 0.15} {
		e.KernelOpsPerCycle[k] = f * q8
		prior.Uncertainty["engines.big.kernel_ops_per_cycle."+k] = 0.1 * f * q8
	}
	e.ScalarOpsPerCycle = 0.2 * q8
	return prior
}

// synthPrompts measures llama-bench pp records on truth: -t 1,2 at each
// prompt length and ubatch.
func synthPrompts(t *testing.T, truth *model.SoC, prompts, ubatches []int, rng *rand.Rand) []measure.Measurement {
	t.Helper()
	yaml, err := os.ReadFile("testdata/llamacpp/workload.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := NewPredictor()
	var out []measure.Measurement
	for _, pp := range prompts {
		for _, ub := range ubatches {
			for _, th := range []int{1, 2} {
				m := measure.Measurement{Schema: measure.Schema, ID: fmt.Sprintf("pp%d-ub%d-t%d", pp, ub, th), Kind: measure.LlamaBench,
					Workload: "llamacpp-moe-q8", WorkloadYAML: string(yaml), Plan: measure.PlanOf(model.NewNative("big", th, 50)),
					Unit: "t/s", Status: "ok", Run: &measure.Run{PromptTokens: pp, Ubatch: min(ub, pp)}}
				measureOn(t, p, truth, &m, rng, 0.01)
				out = append(out, m)
			}
		}
	}
	return out
}

// TestAttentionRidesOnThePrior: fitted on one prompt length, a prompt's
// attention cannot be told from the matmuls, so its rates keep the
// prior's ratio to the q8 class (no factor of their own) and the other
// prompt lengths are predicted through that ratio; fitted on two, the
// attention's own factor is found.
func TestAttentionRidesOnThePrior(t *testing.T) {
	prior := llamaPrior(t)
	// llama.cpp's kernels at 0.6 of the prior's, attention included.
	truth := prior.Clone()
	scaleKernels(truth, 0.6)
	truth.Engines[0].ScalarOpsPerCycle *= 0.6
	ms := synthPrompts(t, truth, []int{128, 512, 2048}, []int{64, 512}, rand.New(rand.NewPCG(3, 3)))
	v, r, err := Holdout(prior, ms, []string{"pp128", "pp2048"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("pp512 alone: fit MAPE %.2f%%, held-out pp128 and pp2048 MAPE %.2f%% (max %.2f%%); notes %q", r.MAPE, v.MAPE, v.MaxErrPct, r.Notes)
	rides := map[string]ParamFit{}
	for _, p := range r.Params {
		if p.Identification == RidesOnPrior {
			rides[p.Path] = p
		}
	}
	q8, _ := r.SoC.Get("engines.big.kernel_ops_per_cycle.q8")
	q8p, _ := prior.Get("engines.big.kernel_ops_per_cycle.q8")
	for _, k := range []string{"f16", model.RateSoftmax, model.RateF16Gemv, model.RateFlashAttn} {
		path := "engines.big.kernel_ops_per_cycle." + k
		p, ok := rides[path]
		if !ok {
			t.Errorf("%s does not ride on the prior", path)
			continue
		}
		pv, _ := prior.Get(path)
		if p.RidesOn != "engines.big.kernel_ops_per_cycle.q8" || math.Abs(p.Value/pv-q8/q8p) > 1e-9 {
			t.Errorf("%s = %.4g on %s: want the prior's %.4g times q8's factor %.4g", path, p.Value, p.RidesOn, pv, q8/q8p)
		}
		if p.Sigma < 0.1*p.Value {
			t.Errorf("%s: σ %.3g, want at least the prior's 10%% width", path, p.Sigma)
		}
	}
	if r.SoC.Provenance == nil || len(r.SoC.Provenance.PriorLed) < 4 || r.SoC.Provenance.Span == nil {
		t.Errorf("provenance: %+v", r.SoC.Provenance)
	}
	if v.MAPE > 3 {
		t.Errorf("held-out MAPE %.2f%%, want at most 3%%: the ratio is the truth's", v.MAPE)
	}

	// Attention at 0.3 of the prior's, the matmuls at 0.6: two prompt
	// lengths tell them apart.
	truth2 := truth.Clone()
	for _, k := range []string{"f16", model.RateSoftmax} {
		truth2.Engines[0].KernelOpsPerCycle[k] *= 0.5
	}
	ms2 := synthPrompts(t, truth2, []int{128, 512, 2048}, []int{64, 512}, rand.New(rand.NewPCG(4, 4)))
	v2, r2, err := Holdout(prior, ms2, []string{"pp512"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("pp128 and pp2048: fit MAPE %.2f%%, held-out pp512 MAPE %.2f%%; notes %q", r2.MAPE, v2.MAPE, r2.Notes)
	for _, p := range r2.Params {
		if p.Path == "engines.big.kernel_ops_per_cycle.f16" {
			want, _ := truth2.Get(p.Path)
			if p.Identification == RidesOnPrior || math.Abs(p.Value/want-1) > 0.2 {
				t.Errorf("%s = %.4g (%s), truth %.4g", p.Path, p.Value, p.Identification, want)
			}
		}
	}
	if v2.MAPE > 3 {
		t.Errorf("held-out pp512 MAPE %.2f%%", v2.MAPE)
	}
}
