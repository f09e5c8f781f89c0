package predict

import (
	"math"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// TestWhatIfNearAgainstGrid: the heatmap's cells searched near their
// neighbours' best shares (the default) against each cell's own grid
// search (FracSteps 10, the search before issue 29), on the report's
// grid (12 x 10) of the seed (rk3588) and ddr5: every best share within
// the search's tolerance of the grid's, no gain lower by more than that
// tolerance costs on the split curve's sharpest peak (0.08 points: 0.058
// with shares cut at fractional tokens; at whole tokens, where either
// search can end a token from the other, up to 0.070), the same verdicts, and at most a third of the grid search's simulations
// (2616 on rk3588). The expert split on rk3588 too: one of its 256
// experts (0.0039) is more than the search's first step (tol/2), so its
// shares are held within two experts (sim's BestNear steps whole units;
// stepping 0.0025 it ended a cell's climb on a tie, up to 2.75 points
// below the grid's gain, 11 of 120 verdicts otherwise).
func TestWhatIfNearAgainstGrid(t *testing.T) {
	skipShort(t)
	for _, tc := range []struct {
		name  string
		modes []model.Mode
		share float64 // how far the near search's share may be from the grid's
	}{
		{"rk3588", nil, nearTol},
		{"ddr5", nil, nearTol},
		{"rk3588", []model.Mode{model.ExpertSplit}, 2.0 / 256},
	} {
		name := tc.name
		s, w := load(t, name)
		p, err := Run(Request{SoC: s, Workload: w, Fracs: []float64{0.88, 0.12}, Poll: 50, Modes: tc.modes})
		if err != nil {
			t.Fatal(err)
		}
		n0 := sim.Simulations()
		grid, err := WhatIfOf(p, s, w, WhatIfOptions{FracSteps: 10})
		if err != nil {
			t.Fatal(err)
		}
		n1 := sim.Simulations()
		near, err := WhatIfOf(p, s, w, WhatIfOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n2 := sim.Simulations()
		if old, n := n1-n0, n2-n1; n > old/3 {
			t.Errorf("%s: %d simulations, the grid search's %d; want at most a third", name, n, old)
		}
		for j := range grid.Gain {
			for i := range grid.Gain[j] {
				df := math.Abs(near.BestFrac[j][i] - grid.BestFrac[j][i])
				dg := grid.Gain[j][i] - near.Gain[j][i]
				if df > tc.share || dg > 0.08 || near.Verdict[j][i] != grid.Verdict[j][i] {
					t.Errorf("%s cell (%d, %d): share %.4f, gain %+.3f%%, %s; the grid's %.4f, %+.3f%%, %s", name, i, j,
						near.BestFrac[j][i], near.Gain[j][i], near.Verdict[j][i], grid.BestFrac[j][i], grid.Gain[j][i], grid.Verdict[j][i])
				}
			}
		}
	}
}

// TestWhatIfSharesNative: native runs on the main engine alone, so along
// an axis that changes only another engine (the compute ratio, a little
// cluster's clock) a heatmap runs it once per value of the other axis;
// each cell's native is what a run of the cell's own SoC gives.
func TestWhatIfSharesNative(t *testing.T) {
	s, w := load(t, "rk3588")
	for _, o := range []WhatIfOptions{
		{NX: 4, NY: 3},
		{NX: 3, NY: 3, XParam: "engines.little.clock_ghz", YParam: ParamComputeRatio},
		{NX: 3, NY: 2, XParam: "engines.big.clock_ghz"},
	} {
		o.Poll = 50
		d, err := WhatIfOf(nil, s, w, o)
		if err != nil {
			t.Fatal(err)
		}
		he := heatEngines{first: 0, second: 1, accel: -1}
		xp, _ := heatParamFor(d.XParam, s, w, he)
		yp, _ := heatParamFor(d.YParam, s, w, he)
		natives := map[float64]bool{}
		for j, y := range d.Y {
			for i, x := range d.X {
				v := s.Clone()
				if err := xp.set(v, x); err != nil {
					t.Fatal(err)
				}
				if err := yp.set(v, y); err != nil {
					t.Fatal(err)
				}
				r, err := sim.NewEvaluator(v, w, 0).Run(model.NewNative("big", 4, 50))
				if err != nil {
					t.Fatal(err)
				}
				if r.TPS != d.NativeTPS[j][i] {
					t.Errorf("%s x %s cell (%d, %d): native %.6f t/s, the cell's own run %.6f", d.XParam, d.YParam, i, j, d.NativeTPS[j][i], r.TPS)
				}
				natives[r.TPS] = true
			}
		}
		want := len(d.X)
		if xp.engine == "little" {
			want = 1
		}
		if yp.engine != "little" {
			want *= len(d.Y)
		}
		if len(natives) != want {
			t.Errorf("%s x %s: %d distinct natives, want %d", d.XParam, d.YParam, len(natives), want)
		}
	}
}
