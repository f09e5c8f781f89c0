package predict

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// TestPoll0ReusesThePrediction: the report's poll-0 paragraph is three
// runs on the prediction's evaluator (native, the requested token split
// and the dispatcher alone, at poll 0), and its figures are what a whole
// prediction at poll 0 gives.
func TestPoll0ReusesThePrediction(t *testing.T) {
	s, w := load(t, "rk3588")
	q := Request{SoC: s, Workload: w, Fracs: []float64{0.88, 0.12}, Poll: 50}
	p, err := Run(q)
	if err != nil {
		t.Fatal(err)
	}
	n0 := sim.Simulations()
	got, err := Poll0(q, p)
	if err != nil {
		t.Fatal(err)
	}
	if n := sim.Simulations() - n0; n != 3 {
		t.Errorf("Poll0 beside its prediction simulated %d runs, want 3", n)
	}
	q0 := q
	q0.Poll, q0.Modes = 0, []model.Mode{model.TokenSplit}
	whole, err := Run(q0)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := whole.Plan(model.TokenSplit, Requested)
	only, _ := whole.Plan(model.TokenSplit, DispatcherOnly)
	want := Poll0Split{Frac: req.Frac(), NativeTPS: whole.Native.TPS, TPS: req.TPS, AloneTPS: only.TPS, GainPct: req.GainPct}
	if *got != want {
		t.Errorf("Poll0 %+v, a whole poll-0 prediction %+v", *got, want)
	}
	alone, err := Poll0(q, nil)
	if err != nil || *alone != want {
		t.Errorf("Poll0 without a prediction: %+v, %v; want %+v", alone, err, want)
	}
	q.Fracs = nil
	if _, err := Poll0(q, nil); err == nil {
		t.Error("Poll0 of a request with no split: no error")
	}
}

// TestThreadsBesideReusesThePrediction: the thread sweep beside a
// prediction of its pp test takes the split dispatcher's best token split
// from the prediction's runs, and is the sweep it is on its own; beside a
// prediction of another test it reuses nothing.
func TestThreadsBesideReusesThePrediction(t *testing.T) {
	skipShort(t)
	s, w := load(t, "rk3588")
	q := Request{SoC: s, Workload: w, Fracs: []float64{0.88, 0.12}, Poll: 50}
	p, err := Run(q)
	if err != nil {
		t.Fatal(err)
	}
	sweep := func(p *Prediction) (string, int64) {
		n0 := sim.Simulations()
		sw, err := ThreadsBeside(q, w.Run, p)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(sw)
		if err != nil {
			t.Fatal(err)
		}
		return string(b), sim.Simulations() - n0
	}
	own, nOwn := sweep(nil)
	beside, nBeside := sweep(p)
	if beside != own {
		t.Errorf("the sweep beside the prediction differs from the sweep alone:\n%s\n%s", beside, own)
	}
	if nBeside >= nOwn {
		t.Errorf("beside the prediction %d runs, alone %d: nothing reused", nBeside, nOwn)
	}
	tg := model.Run{GenTokens: 16, Ubatch: w.Run.Ubatch}
	qtg := q
	qtg.Test, qtg.Fracs = &tg, nil
	ptg, err := Run(qtg)
	if err != nil {
		t.Fatal(err)
	}
	if ev := ptg.evaluatorOf(s, w, w.Run, q.Draws); ev != nil {
		t.Error("a tg prediction's evaluator offered for the pp test")
	}
	if ev := p.evaluatorOf(s, w, w.Run, q.Draws+1); ev != nil {
		t.Error("a first-order prediction's evaluator offered for Monte Carlo draws")
	}
}

// TestWhatIfSharesDispatcherAlone: along the compute ratio (the little
// cluster's kernel rates) the dispatcher alone, which gives the little
// cluster no work, runs the same in every cell (what the heatmap's cells
// adopt from the first of their column), and every cell's best share is
// what its own search on a fresh evaluator of the cell's SoC finds from
// the same starts.
func TestWhatIfSharesDispatcherAlone(t *testing.T) {
	skipShort(t)
	s, w := load(t, "rk3588")
	for _, o := range []WhatIfOptions{
		{NX: 4, NY: 3},
		{NX: 3, NY: 3, XParam: "engines.little.clock_ghz", YParam: ParamComputeRatio},
	} {
		o.Poll = 50
		d, err := WhatIfOf(nil, s, w, o)
		if err != nil {
			t.Fatal(err)
		}
		he := heatEngines{first: 0, second: 1, accel: -1}
		xp, _ := heatParamFor(d.XParam, s, w, he)
		yp, _ := heatParamFor(d.YParam, s, w, he)
		plan := model.Plan{Mode: model.TokenSplit, Engines: d.Engines, Threads: d.Threads, Poll: 50}
		alone := plan
		alone.Fracs = []float64{1, 0}
		cells := make([]heatCell, len(d.X)*len(d.Y))
		for j, y := range d.Y {
			for i, x := range d.X {
				v := s.Clone()
				if err := xp.set(v, x); err != nil {
					t.Fatal(err)
				}
				if err := yp.set(v, y); err != nil {
					t.Fatal(err)
				}
				ev := sim.NewEvaluator(v, w, 0)
				r, err := ev.Run(alone)
				if err != nil {
					t.Fatal(err)
				}
				if j > 0 && yp.rates {
					// The cell below in the same column.
					v0 := s.Clone()
					_ = xp.set(v0, x)
					_ = yp.set(v0, d.Y[0])
					r0, err := sim.NewEvaluator(v0, w, 0).Run(alone)
					if err != nil {
						t.Fatal(err)
					}
					if r0.TPS != r.TPS || r0.WallS != r.WallS || r0.Bound != r.Bound {
						t.Errorf("%s x %s cell (%d, %d): the dispatcher alone %.9f t/s, the column's first %.9f", d.XParam, d.YParam, i, j, r.TPS, r0.TPS)
					}
				}
				c := j*len(d.X) + i
				starts := nearStarts(cells, c, len(d.X), d.AtFrac)
				bp, br, err := ev.BestNear(plan, nearTol, starts...)
				if err != nil {
					t.Fatal(err)
				}
				cells[c] = heatCell{fracs: bp.Fracs}
				g := sim.GainPct(br.TPS, d.NativeTPS[j][i])
				if 1-bp.Fracs[0] != d.BestFrac[j][i] || math.Abs(g-d.Gain[j][i]) > 1e-12 {
					t.Errorf("%s x %s cell (%d, %d): heatmap share %.4f gain %+.6f%%, its own search %.4f %+.6f%%", d.XParam, d.YParam, i, j, d.BestFrac[j][i], d.Gain[j][i], bp.Fracs[1], g)
				}
			}
		}
	}
}
