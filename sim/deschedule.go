package sim

import "github.com/blsim/blsim/model"

// deschedule charges the barriers after op, which took opS, their waits
// for a descheduled thread (see initPool): a time slice each where the
// pool's own threads outnumber the cores, and, where busy tasks share the
// cores or the host's background work preempts a pool that fills them
// (model.Plan.BackgroundStall), the time the pool does not advance,
// opS x (1/progress - 1).
func (r *runner) deschedule(op *model.Op, opS float64) {
	bg := r.bgPrompt
	if r.inToken {
		bg = r.bgToken
	}
	dt := r.descheduleS*r.nodesPerOp + (1/(r.progress*(1-bg))-1)*opS
	r.span(0, op.Name, Handoff, r.t, r.t+dt)
	r.res.Pool.DescheduledS += dt
	if r.tokenMemo != nil {
		r.overhead(dt)
		return
	}
	r.res.Bound.Handoff += dt
	r.res.Engines[0].HandoffS += dt
	r.t += dt
	r.lastEnd[0] = r.t
}
