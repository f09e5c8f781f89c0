package fit

import (
	"math"
	"slices"
	"testing"
)

// IdentificationOf reads the numbers: only a parameter the fit left at
// its prior is PriorOnly; one that moved is Coupled (with others) or
// Unpinned (alone), never the prior's.
func TestIdentificationOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    ParamFit
		want Identification
	}{
		{"identified", ParamFit{Prior: 4.27, PriorSigma: 1, Value: 1.44, Sigma: 0.1, Identifiable: true}, Identified},
		{"untouched", ParamFit{Prior: 4.27, PriorSigma: 1, Value: 4.27, Sigma: 1}, PriorOnly},
		{"within tolerance", ParamFit{Prior: 4.27, PriorSigma: 1, Value: 4.27 * (1 + 0.5e-3), Sigma: 1}, PriorOnly},
		{"untouched, coupled, σ the prior's", ParamFit{Prior: 4.27, PriorSigma: 1, Value: 4.27, Sigma: 0.95, CoupledWith: []string{"y"}}, PriorOnly},
		{"moved with another", ParamFit{Prior: 4.27, PriorSigma: 1, Value: 1.44, Sigma: 0.6, CoupledWith: []string{"y"}}, Coupled},
		{"unmoved, σ narrowed by another", ParamFit{Prior: 4.27, PriorSigma: 1, Value: 4.27, Sigma: 0.4, CoupledWith: []string{"y"}}, Coupled},
		{"moved alone", ParamFit{Prior: 4.27, PriorSigma: 1, Value: 1.44, Sigma: 1}, Unpinned},
		{"moved alone to a bound", ParamFit{Prior: 0.3, PriorSigma: 0.3, Value: 1, Sigma: 0.3, AtBound: "upper"}, Unpinned},
		{"prior zero, moved", ParamFit{Prior: 0, PriorSigma: 0.5, Value: 0.01, Sigma: 0.5}, Unpinned},
		{"prior zero, unmoved", ParamFit{Prior: 0, PriorSigma: 0.5, Value: 1e-4, Sigma: 0.5}, PriorOnly},
	} {
		if got := IdentificationOf(tc.p); got != tc.want {
			t.Errorf("%s: IdentificationOf(%+v) = %s, want %s", tc.name, tc.p, got, tc.want)
		}
	}
}

// coupledWith is symmetric, measures moves in prior σ, and ignores
// finite-difference noise.
func TestCoupledWith(t *testing.T) {
	paths := []string{"a", "b", "c", "d"}
	sigma := []float64{10, 0.5, 1, 1}
	// a and b trade off (b moves 0.02 per unit of a: 0.04 of its σ per
	// 0.1 of a's, comparable); c moves 1e-12 (noise); d is in no
	// direction.
	null := [][]float64{{1, -0.02, 1e-12, 0}}
	for j, want := range [][]string{{"b"}, {"a"}, nil, nil} {
		if got := coupledWith(j, null, sigma, paths); !slices.Equal(got, want) {
			t.Errorf("coupledWith(%s) = %v, want %v", paths[j], got, want)
		}
	}
	// A zero σ counts as 1, and two directions add up.
	null = append(null, []float64{0, 0, 0.6, 0.8})
	if got := coupledWith(2, null, []float64{10, 0.5, 0, math.Inf(1)}, paths); !slices.Equal(got, []string{"d"}) {
		t.Errorf("coupledWith(c) = %v, want [d]", got)
	}
}

// On recorded llama-bench runs, the futex wake cost is not identifiable
// on its own (it trades off against the sleep-exit cost), yet the fit
// moves it a long way from its prior: it is Coupled, not the prior's.
// A kernel rate no run uses keeps its prior: PriorOnly.
func TestRecordedIdentification(t *testing.T) {
	skipShort(t)
	prior, ms := loadRecorded(t, "testdata/llamacpp/prior.yaml", "testdata/llamacpp/workload.yaml", "testdata/llamacpp/grid.jsonl", 48)
	r, err := Fit(prior, ms, Options{Kernels: KernelsPrior})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]ParamFit{}
	for _, p := range r.Params {
		got[p.Path] = p
		if p.Identification != IdentificationOf(p) {
			t.Errorf("%s: Identification %s, IdentificationOf %s", p.Path, p.Identification, IdentificationOf(p))
		}
		if p.Identification == PriorOnly && p.Moved() {
			t.Errorf("%s: PriorOnly but moved from %g to %g", p.Path, p.Prior, p.Value)
		}
		if p.Identifiable != (p.Identification == Identified) {
			t.Errorf("%s: identifiable %v but %s", p.Path, p.Identifiable, p.Identification)
		}
	}
	futex := got["handoff.futex_wake_us"]
	if futex.Identification != Coupled || !futex.Moved() || !slices.Contains(futex.CoupledWith, "handoff.sleep_exit_us") {
		t.Errorf("futex wake: %+v, want Coupled with the sleep exit, moved", futex)
	}
	if sleep := got["handoff.sleep_exit_us"]; !slices.Contains(sleep.CoupledWith, "handoff.futex_wake_us") {
		t.Errorf("sleep exit: coupled with %v, want the futex wake too", sleep.CoupledWith)
	}
	if q4 := got["engines.big.kernel_ops_per_cycle.q4"]; q4.Identification != PriorOnly || math.Abs(q4.Value-q4.Prior) > 1e-9*q4.Prior {
		t.Errorf("unused q4 rate: %+v, want PriorOnly at its prior", q4)
	}
}
