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
