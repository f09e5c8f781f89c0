package sim

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/blsim/blsim/model"
)

// sameRun says whether a and b are the same simulation but for the plan's
// label: every figure of the result, compared through its JSON (which
// also refuses a NaN or an infinity in any of them).
func sameRun(t *testing.T, a, b *Result) bool {
	t.Helper()
	enc := func(r *Result) string {
		c := *r
		c.Plan = ""
		j, err := json.Marshal(&c)
		if err != nil {
			t.Fatalf("result of %s: %v", r.Plan, err)
		}
		return string(j)
	}
	return enc(a) == enc(b)
}

// TestSplitCutAtWholeUnits: a split is cut as the dispatcher cuts it
// (calibrate/dispatch's prepare: round(n × (1 − f)) tokens or experts to
// the main engine), so a share that is not a whole count runs the plan of
// the whole count it rounds to, and a share on the other side of a
// rounding boundary runs another. The seed's ubatch is 512 tokens:
// 0.1094 (56.0 tokens), 0.1100 (56.3) and 0.1085 (55.6) all give the
// little cluster 56 tokens, which is the plan at 56/512; 0.1083 (55.4)
// gives it 55. Its model has 256 experts: 0.1 (25.6) gives 26, the plan
// at 26/256.
func TestSplitCutAtWholeUnits(t *testing.T) {
	s, w := mustSoC(t, seedSoC), mustWorkload(t, seedWorkload)
	if w.Run.Ubatch != 512 || w.Run.PromptTokens%512 != 0 || w.Model.MoE.Experts != 256 {
		t.Fatalf("seed workload: ubatch %d, pp%d, %d experts; the shares below are for 512 and 256",
			w.Run.Ubatch, w.Run.PromptTokens, w.Model.MoE.Experts)
	}
	for _, tc := range []struct {
		mode        model.Mode
		whole       float64   // a whole count's share
		same, other []float64 // shares that round to it, and to another count
	}{
		{model.TokenSplit, 56.0 / 512, []float64{0.1094, 0.1100, 0.1085}, []float64{0.1083, 0.1104}},
		{model.ExpertSplit, 26.0 / 256, []float64{0.1, 0.1005, 0.1035}, []float64{0.0996, 0.1036}},
	} {
		p := tokenSplit(tc.whole, 50)
		p.Mode = tc.mode
		want := mustRun(t, s, w, p)
		for _, f := range tc.same {
			q := p
			q.Fracs = model.SharesOf(f)
			if got := mustRun(t, s, w, q); !sameRun(t, got, want) {
				t.Errorf("%s split at %.4f: %.6f t/s, want the whole count's plan (%.4f): %.6f t/s", tc.mode, f, got.TPS, tc.whole, want.TPS)
			}
		}
		for _, f := range tc.other {
			q := p
			q.Fracs = model.SharesOf(f)
			if got := mustRun(t, s, w, q); sameRun(t, got, want) {
				t.Errorf("%s split at %.4f: the same run as at %.4f, want another whole count's", tc.mode, f, tc.whole)
			}
		}
	}
}

// TestSplitCutEdges: a share that rounds to no whole unit leaves its engine
// without work: it is not woken and costs nothing, exactly as share 0 (the
// dispatcher alone), whichever engine it is, the main one included (share
// 1); no time is NaN or infinite, and no run hangs.
func TestSplitCutEdges(t *testing.T) {
	s, w := mustSoC(t, seedSoC), mustWorkload(t, seedWorkload)
	half := 0.5 / float64(w.Run.Ubatch) // half a token of a ubatch
	for _, mode := range []model.Mode{model.TokenSplit, model.ExpertSplit} {
		units := float64(w.Run.Ubatch)
		if mode == model.ExpertSplit {
			units = float64(w.Model.MoE.Experts)
		}
		at := func(f float64) *Result {
			p := tokenSplit(f, 50)
			p.Mode = mode
			return mustRun(t, s, w, p)
		}
		zero, one := at(0), at(1)
		for _, r := range []*Result{zero, one} {
			if !(r.TPS > 0) || math.IsInf(r.TPS, 0) {
				t.Fatalf("%s %s: %g t/s", mode, r.Plan, r.TPS)
			}
		}
		if zero.Engines[1].BusyS != 0 || zero.Engines[1].HandoffS != 0 {
			t.Errorf("%s share 0: little busy %g s, handoff %g s; want none", mode, zero.Engines[1].BusyS, zero.Engines[1].HandoffS)
		}
		if !(one.Engines[0].Ops < zero.Engines[0].Ops) || one.Engines[1].Ops <= 0 || one.Engines[1].HandoffS <= 0 {
			t.Errorf("%s share 1: main engine ops %g (at share 0: %g), little ops %g, woken for %g s; want every routed expert on the little",
				mode, one.Engines[0].Ops, zero.Engines[0].Ops, one.Engines[1].Ops, one.Engines[1].HandoffS)
		}
		if one.Split.Ops != zero.Split.Ops {
			t.Errorf("%s: %d split ops at share 1, %d at 0", mode, one.Split.Ops, zero.Split.Ops)
		}
		eps := 0.49 / units // less than half a unit of this mode
		if mode == model.TokenSplit {
			eps = 0.98 * half
		}
		if r := at(eps); !sameRun(t, r, zero) {
			t.Errorf("%s share %.5f (under half a unit): %.6f t/s, want share 0's %.6f", mode, eps, r.TPS, zero.TPS)
		}
		if r := at(1 - eps); !sameRun(t, r, one) {
			t.Errorf("%s share %.5f (all but under half a unit): %.6f t/s, want share 1's %.6f", mode, 1-eps, r.TPS, one.TPS)
		}
		if r := at(1.02 / units); sameRun(t, r, zero) || r.Engines[1].BusyS <= 0 {
			t.Errorf("%s share of one unit: the little did no work (busy %g s)", mode, r.Engines[1].BusyS)
		}
	}

	// Three engines, the third's share under half a token: the two-engine
	// plan's run. cix-p1 has three CPU clusters.
	c := mustSoC(t, "cix-p1")
	three := model.NewPlan(model.TokenSplit, []string{"big", "mid", "little"}, []int{4, 4, 4}, []float64{0.5, 0.5 - 0.4*half, 0.4 * half}, 50)
	two := three
	two.Fracs = []float64{0.5, 0.5, 0}
	if a, b := mustRun(t, c, w, three), mustRun(t, c, w, two); !sameRun(t, a, b) {
		t.Errorf("cix-p1: a third engine's share of 0.4 token: %.6f t/s, want share 0's %.6f", a.TPS, b.TPS)
	}
}
