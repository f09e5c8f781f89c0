package predict

import (
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// Traces are the simulated activity of ubatch 0 that a prediction's
// timeline and roofline draw (Request.Traces), made by the prediction's
// own evaluator: the figures render them and never simulate.
type Traces struct {
	// Plan is the plan drawn (Prediction.Drawn).
	Plan model.Plan
	// Run is Plan's run, Native the first engine's alone (the roofline
	// places the first engine's ops from it), each with its timeline.
	Run, Native *sim.Result
}

// Drawn is the one plan a timeline or roofline of p draws: the requested
// split of the best split's mode, or the best split when none was
// requested.
func (p *Prediction) Drawn() PlanPrediction {
	if r, ok := p.Plan(p.Best.Plan.Mode, Requested); ok {
		return r
	}
	return p.Best
}

// traces runs p's drawn plan and native with their timelines on ev.
func traces(ev *sim.Evaluator, p *Prediction, native model.Plan) (*Traces, error) {
	t := &Traces{Plan: p.Drawn().Plan}
	var err error
	if t.Run, err = ev.RunWith(t.Plan, sim.Options{Timeline: true}); err != nil {
		return nil, err
	}
	if t.Native, err = ev.RunWith(native, sim.Options{Timeline: true}); err != nil {
		return nil, err
	}
	return t, nil
}
