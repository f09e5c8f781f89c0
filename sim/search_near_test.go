package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

// TestBestNear: the search near a share finds the seed's best token
// split (Best's, refined to 1e-4) within its tolerance from starts on
// either side, in four runs (share 0, the start and the start ± tol/2)
// from the best itself; from past the split curve's second, lower
// maximum (about 0.28) it finds that one, which the dispatcher alone
// beats; and, on a SoC whose DRAM leaves the little cluster nothing to
// gain, share 0, as Best does.
func TestBestNear(t *testing.T) {
	s, w := mustSoC(t, seedSoC), mustWorkload(t, seedWorkload)
	p := model.Plan{Mode: model.TokenSplit, Engines: []string{"big", "little"}, Threads: []int{4, 4}, Poll: 50}
	bp, br, err := NewEvaluator(s, w, 0).Best(p)
	if err != nil {
		t.Fatal(err)
	}
	best := bp.Fracs[1]
	const tol = 0.005
	for _, start := range []float64{best, best + 0.3*tol, best - 0.3*tol, 0.02, 0.2} {
		e := NewEvaluator(s, w, 0)
		np, nr, err := e.BestNear(p, tol, start)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(np.Fracs[1] - best); d > tol {
			t.Errorf("start %.4f: share %.4f, Best's %.4f (off by %.4f > %g)", start, np.Fracs[1], best, d, tol)
		}
		if nr.TPS > br.TPS+1e-9 || nr.TPS < br.TPS*(1-0.002) {
			t.Errorf("start %.4f: %.4f t/s, Best's %.4f", start, nr.TPS, br.TPS)
		}
		if runs := e.runs.Load(); start == best && runs != 4 {
			t.Errorf("start at the best, %.4f: %d runs, want 4", start, runs)
		}
	}
	for _, start := range []float64{0.3, 0.32} {
		np, nr, err := NewEvaluator(s, w, 0).BestNear(p, tol, start)
		if err != nil {
			t.Fatal(err)
		}
		if np.Fracs[1] != 0 || nr.TPS >= br.TPS {
			t.Errorf("start %.4f: share %.4f at %.4f t/s; want 0, the dispatcher alone, below Best's %.4f", start, np.Fracs[1], nr.TPS, br.TPS)
		}
	}
	// Slow DRAM: the best split is the dispatcher alone.
	slow := s.Clone()
	for _, path := range []string{"dram.sustained_gb_s", "dram.peak_gb_s", "engines.big.bandwidth_max_gb_s", "engines.little.bandwidth_max_gb_s"} {
		v, _ := slow.Get(path)
		if err := slow.Set(path, v/2); err != nil {
			t.Fatal(err)
		}
	}
	bp, _, err = NewEvaluator(slow, w, 0).Best(p)
	if err != nil {
		t.Fatal(err)
	}
	np, _, err := NewEvaluator(slow, w, 0).BestNear(p, tol, 0.12)
	if err != nil {
		t.Fatal(err)
	}
	if bp.Fracs[1] != 0 || np.Fracs[1] != 0 {
		t.Errorf("half the DRAM: Best's share %.4f, BestNear's %.4f; want 0 (the dispatcher alone)", bp.Fracs[1], np.Fracs[1])
	}
	for name, f := range map[string]func() error{
		"native": func() error {
			_, _, err := NewEvaluator(s, w, 0).BestNear(model.NewNative("big", 4, 50), tol, 0.1)
			return err
		},
		"no start": func() error { _, _, err := NewEvaluator(s, w, 0).BestNear(p, tol); return err },
		"NaN":      func() error { _, _, err := NewEvaluator(s, w, 0).BestNear(p, tol, math.NaN()); return err },
		"tol 0":    func() error { _, _, err := NewEvaluator(s, w, 0).BestNear(p, 0, 0.1); return err },
	} {
		if err := f(); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want a one-line error", name, err)
		}
	}
}

// TestBestNearWholeUnits: where one unit of the split (a token of a small
// ubatch, an expert of few) is more than tol/2, the search steps a whole
// unit at least: a smaller step runs the same whole-unit plan, ties, and
// ended the climb at its start. From starts several units off the best,
// BestNear reaches the t/s of Best's share (its golden section refined to
// 1e-4), or one unit's plan of it, as Best does.
func TestBestNearWholeUnits(t *testing.T) {
	// balanced: the seed with a little cluster that gains, so that the
	// best share is inside (0.27 at ubatch 64), not the dispatcher alone.
	s := mustSoC(t, "balanced")
	const tol = 0.005
	for _, tc := range []struct {
		name    string
		mode    model.Mode
		prompt  int
		experts int
	}{
		{"token, ubatch 64", model.TokenSplit, 64, 0},
		{"token, ubatch 128", model.TokenSplit, 128, 0},
		{"expert, 64 experts", model.ExpertSplit, 512, 64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := mustWorkload(t, seedWorkload)
			w.Run.PromptTokens, w.Run.Ubatch = tc.prompt, tc.prompt
			if tc.experts > 0 {
				w.Model.MoE.Experts = tc.experts
			}
			p := model.Plan{Mode: tc.mode, Engines: []string{"big", "little"}, Threads: []int{4, 4}, Poll: 50}
			bp, br, err := NewEvaluator(s, w, 0).Best(p)
			if err != nil {
				t.Fatal(err)
			}
			best := bp.Fracs[1]
			unit := NewEvaluator(s, w, 0).splitUnit(tc.mode)
			if !(unit > tol/2) {
				t.Fatalf("unit %.4f: want more than tol/2 = %g", unit, tol/2)
			}
			for _, k := range []float64{-3, -1.5, 0, 2, 4} {
				start := best + k*unit
				np, nr, err := NewEvaluator(s, w, 0).BestNear(p, tol, start)
				if err != nil {
					t.Fatal(err)
				}
				if nr.TPS < br.TPS*(1-1e-9) {
					t.Errorf("start %.4f (best %+.1f units): share %.4f at %.4f t/s, Best's %.4f at %.4f", start, k, np.Fracs[1], nr.TPS, best, br.TPS)
				}
			}
		})
	}
}
