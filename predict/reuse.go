package predict

import (
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// origin is what made a prediction: its evaluator and what that
// evaluates, so that a view beside the prediction (Poll0, ThreadsBeside)
// reuses its runs instead of simulating them again.
type origin struct {
	ev    *sim.Evaluator
	soc   *model.SoC
	wl    *model.Workload // as requested, before a test replaced its run
	run   model.Run       // the run evaluated
	draws int
}

// evaluatorOf is the evaluator that made p when it evaluates run of
// workload w on SoC s with draws (Request.Draws); nil otherwise, or when
// p is nil or was not made by Run (decoded from JSON).
func (p *Prediction) evaluatorOf(s *model.SoC, w *model.Workload, run model.Run, draws int) *sim.Evaluator {
	if p == nil || p.from == nil {
		return nil
	}
	o := p.from
	if o.soc != s || o.wl != w || o.run != run || o.draws != draws {
		return nil
	}
	return o.ev
}

// Poll0Split is a two-engine token split predicted at poll 0 beside
// native and the dispatcher alone at poll 0: the seed's poll-0 artefact,
// where the split dispatcher alone gains the futex wakes a sleeping
// native pool pays.
type Poll0Split struct {
	// Frac is the second engine's share of the split.
	Frac float64
	// NativeTPS, TPS and AloneTPS are native's, the split's and the
	// dispatcher alone's (every share on the main engine) t/s at poll 0.
	NativeTPS, TPS, AloneTPS float64
	// GainPct is the split's gain over native.
	GainPct float64
}

// Poll0 is q's requested token split, with q's engines and threads, at
// poll 0, beside native and the dispatcher alone at poll 0: three runs,
// on the evaluator that made p, q's prediction, when p is not nil (else
// on a new one).
func Poll0(q Request, p *Prediction) (*Poll0Split, error) {
	q.Poll, q.Modes, q.Sweep, q.Sensitivity, q.Traces = 0, []model.Mode{model.TokenSplit}, false, false, false
	r, err := q.resolve()
	if err != nil {
		return nil, err
	}
	if r.Fracs == nil {
		return nil, fieldErr("fracs", -1, "poll 0: the token split needs a requested split")
	}
	ev := p.evaluatorOf(q.SoC, q.Workload, r.Workload.Run, r.Draws)
	if ev == nil {
		ev = sim.NewEvaluator(r.SoC, r.Workload, r.Draws)
	}
	only := make([]float64, len(r.Engines))
	only[0] = 1
	var res [3]*sim.Result
	for i, plan := range []model.Plan{model.NewNative(r.Engines[0], r.Threads[0], 0), r.plan(model.TokenSplit, r.Fracs), r.plan(model.TokenSplit, only)} {
		if res[i], err = ev.Run(plan); err != nil {
			return nil, err
		}
	}
	return &Poll0Split{Frac: r.Fracs[1], NativeTPS: res[0].TPS, TPS: res[1].TPS, AloneTPS: res[2].TPS, GainPct: sim.GainPct(res[1].TPS, res[0].TPS)}, nil
}
