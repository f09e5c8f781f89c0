package sim

import (
	"math"

	"github.com/blsim/blsim/model"
)

// splitOp forks a MUL_MAT_ID into one partition per engine with work, each
// starting once its pool is awake, shares DRAM among them as they run, and
// joins them.
//
// In a generated token's graph (r.tokenMemo set) the op is timed from its own
// start (t0 = 0, base the run's clock), so that its outcome depends only on
// the op and its engines' start offsets, and is remembered (see
// splitFluid). In a prompt, base is 0 and t0 the clock.
func (r *runner) splitOp(op *model.Op) {
	h := &r.soc.Handoff
	t0, base := r.t, 0.0
	if r.tokenMemo != nil {
		t0, base = 0, r.t
	}
	n := len(r.plan.Engines)
	r.cut(op)
	active, sharedBy := 0, 0
	for i := range r.plan.Fracs {
		r.working[i] = r.cutHi[i] > r.cutLo[i]
		if r.working[i] {
			active++
			if !r.eng[i].IsAccelerator() {
				// Accelerators keep their weights in their own buffers,
				// not in the CPU clusters' shared cache.
				sharedBy += r.plan.Threads[i]
			}
		}
	}
	split := active > 1
	e := r.splitParts(op, split, sharedBy)
	pre := h.SignalUS
	if split && r.plan.Mode == model.ExpertSplit {
		pre += h.GatherUS
	}
	for i := 0; i < n; i++ {
		if split && !r.eng[i].IsAccelerator() {
			// The forfeited fast path is the CPU kernels' repacked weights.
			r.parts[i].slowdown = 1 / (1 - h.ForfeitPct/100)
		}
		start := t0 + pre*1e-6
		if i > 0 && r.working[i] {
			var wake float64
			if e := r.eng[i]; e.IsAccelerator() {
				// An accelerator is submitted a job: no pool to wake.
				wake = e.SubmitUS + e.SetupUSPerOp
			} else {
				idleUS := (base + start - r.lastEnd[i]) * 1e6
				wake = h.SpawnUS + h.WakeUS(idleUS, r.plan.Poll)
				r.note(idleUS > h.SpinWindowUS(r.plan.Poll)) // a futex wake, or a spin
			}
			start += wake * 1e-6
			r.res.Engines[i].HandoffS += wake * 1e-6
			r.span(i, op.Name, Handoff, base+t0+pre*1e-6, base+start)
		}
		r.starts[i] = start
		r.remain[i] = 1
		r.stall[i], r.cap[i] = 0, 0
		r.finish[i] = start
	}
	r.span(0, op.Name, Handoff, base+t0, base+t0+pre*1e-6)
	r.res.Engines[0].HandoffS += pre * 1e-6
	if r.tokenMemo != nil {
		r.splitFluid(op, e, base)
	} else {
		r.fluid(op, 0)
	}
	end := t0
	first := math.Inf(1)
	crit := 0
	for i := 0; i < n; i++ {
		if !r.working[i] {
			continue
		}
		if r.finish[i] > end {
			end, crit = r.finish[i], i
		}
		first = math.Min(first, r.finish[i])
		busy := r.finish[i] - r.starts[i]
		r.account(i, &r.parts[i], busy)
		r.res.Split.EngineS[i] += busy
		r.lastEnd[i] = base + r.finish[i]
	}
	if split && r.plan.Mode == model.ExpertSplit {
		if e, ok := r.routedEnd(op); ok && e > end {
			// The routing's variance: the slower engine's share is
			// often above its mean (expectedEnd). The wait is the
			// critical engine's, in its mean mix of DRAM and compute.
			if w := r.finish[crit] - r.starts[crit]; w > 0 {
				r.stall[crit] *= (e - r.starts[crit]) / w
				r.cap[crit] *= (e - r.starts[crit]) / w
			}
			r.res.Split.ImbalanceS += e - end
			end, r.finish[crit] = e, e
			r.lastEnd[crit] = base + e
		}
	}
	join := 0.0
	if split {
		join = h.JoinUS * 1e-6
	}
	handoff := (r.starts[crit] - t0) + join
	r.splitBound(t0, join)
	r.res.Split.Ops++
	r.res.Split.OpS += end + join - t0
	r.res.ExpertOpS += end + join - t0
	r.res.Split.HandoffS += handoff
	r.res.Split.ImbalanceS += end - first
	r.span(0, op.Name, Handoff, base+end, base+end+join)
	r.res.Engines[0].HandoffS += join
	r.t = base + end + join
	r.lastEnd[0] = r.t
}

// cut sets [r.cutLo[i], r.cutHi[i]) to engine i's whole units of split op
// op: its ubatch's tokens in a token split, its experts (by popularity
// rank) in an expert split. The dispatcher (calibrate/dispatch) cuts so,
// round(n × (1 − f)) units to the main engine and the rest to the second,
// as llama.cpp's MUL_MAT_ID kernels take whole token rows and whole
// experts; with more engines each boundary is rounded the same way, at
// n × (1 − the shares of the engines from i on). A share that is not a
// whole count of units gets the whole count's plan, and an engine whose
// share rounds to no unit gets no work (it is not woken, as at share 0).
func (r *runner) cut(op *model.Op) {
	units := op.Tokens
	if r.plan.Mode == model.ExpertSplit {
		units = r.wl.Model.MoE.Experts
	}
	n := len(r.plan.Fracs)
	r.cutLo, r.cutHi = r.cutLo[:0], r.cutHi[:0]
	lo := 0
	for i := range n {
		hi := units
		if i < n-1 {
			rest := 0.0
			for _, f := range r.plan.Fracs[i+1:] {
				rest += f
			}
			hi = min(units, max(lo, int(math.Round(float64(units)*(1-rest)))))
		}
		r.cutLo, r.cutHi = append(r.cutLo, lo), append(r.cutHi, hi)
		lo = hi
	}
}

// splitParts sets r.parts to op's partitions, one per engine (a zero part
// for an engine without a share). In a token's graph it returns op's memo
// entry (nil when the plan has too many engines to remember).
func (r *runner) splitParts(op *model.Op, split bool, sharedBy int) *memoEntry {
	var e *memoEntry
	if len(r.plan.Fracs) <= memoParts {
		var ok bool
		if e, ok = r.remembered(op); ok {
			r.parts = append(r.parts[:0], e.parts[:e.n]...)
			return e
		}
	}
	r.parts = r.parts[:0]
	for i := range r.plan.Fracs {
		var p part
		lo, hi := float64(r.cutLo[i]), float64(r.cutHi[i])
		switch {
		case !r.working[i]:
		case !split:
			p = r.partFor(op, i, float64(op.Tokens), 0, 0, sharedBy)
		case r.plan.Mode == model.TokenSplit:
			p = r.partFor(op, i, hi-lo, 0, 0, sharedBy)
		default:
			p = r.partFor(op, i, float64(op.Tokens), lo, hi, sharedBy)
		}
		r.parts = append(r.parts, p)
	}
	if e != nil {
		e.n = copy(e.parts[:], r.parts)
		e.flows = e.flows[:0]
	}
	return e
}

// splitFluid is fluid for a split op of a token's graph, timed from its own
// start: the outcome (each partition's finish and stall, the bytes moved
// and the burst peak) is a pure function of the partitions and their start
// offsets, so it is taken from op's memo entry e when it holds it, else
// simulated and remembered there. A recorded graph is always simulated
// (its spans are wanted), with the same outcome. base is the run's clock at
// the op's start.
func (r *runner) splitFluid(op *model.Op, e *memoEntry, base float64) {
	n := len(r.parts)
	var f flow
	f.n = n
	copy(f.working[:], r.working[:n])
	copy(f.starts[:], r.starts[:n])
	hit := false
	if e != nil && !r.record {
		for k := range e.flows {
			if g := &e.flows[k]; g.n == n && g.working == f.working && g.starts == f.starts {
				f, hit = *g, true
				break
			}
		}
	}
	if hit {
		copy(r.finish[:n], f.finish[:n])
		copy(r.stall[:n], f.stall[:n])
		copy(r.cap[:n], f.capStall[:n])
		for i := range n {
			r.remain[i] = 0
		}
	} else {
		f.bytes, f.peak = r.fluid(op, base)
		copy(f.finish[:], r.finish[:n])
		copy(f.stall[:], r.stall[:n])
		copy(f.capStall[:], r.cap[:n])
		if e != nil {
			if len(e.flows) < maxFlows {
				e.flows = append(e.flows, f)
			} else {
				e.flows[e.next] = f
				e.next = (e.next + 1) % maxFlows
			}
		}
	}
	r.res.BytesMoved += f.bytes
	if f.peak > r.res.DRAMUtilPeak {
		r.res.DRAMUtilPeak = f.peak
	}
}

// fluid advances the partitions from their start times to their ends,
// re-solving the DRAM shares at every start and end. Times are the run's
// clock, less base. In a prompt (base 0) it accounts the DRAM traffic as
// it goes; in a token's graph it returns the bytes moved and the burst
// peak instead (see splitFluid).
func (r *runner) fluid(op *model.Op, base float64) (moved, peak float64) {
	n := len(r.parts)
	idx, sub, tms := r.idx[:0], r.sub[:0], r.tms
	t := math.Inf(1)
	for i := 0; i < n; i++ {
		if r.working[i] {
			t = math.Min(t, r.starts[i])
		}
	}
	for {
		idx, sub = idx[:0], sub[:0]
		next := math.Inf(1)
		for i := 0; i < n; i++ {
			if !r.working[i] || r.remain[i] <= 0 {
				continue
			}
			if r.starts[i] > t {
				next = math.Min(next, r.starts[i])
				continue
			}
			idx = append(idx, i)
			sub = append(sub, r.parts[i])
		}
		if len(idx) == 0 {
			if math.IsInf(next, 1) {
				return moved, peak
			}
			t = next
			continue
		}
		nshared := r.solveShared(idx, sub, tms)
		dt := next - t
		for k, i := range idx {
			dt = math.Min(dt, r.remain[i]*tms[k].totalS)
		}
		if math.IsInf(dt, 0) || math.IsNaN(dt) {
			// A partition that never ends (a rate or a bandwidth of zero):
			// the op takes forever, which is what the throughput says (0);
			// looping on would never return.
			for _, i := range idx {
				r.remain[i], r.finish[i] = 0, math.Inf(1)
			}
			return moved, peak
		}
		bytes := 0.0
		for k, i := range idx {
			frac := dt / tms[k].totalS
			if frac >= r.remain[i]*(1-1e-12) {
				frac = r.remain[i]
				r.finish[i] = t + r.remain[i]*tms[k].totalS
			}
			r.remain[i] -= frac
			if k < nshared {
				bytes += frac * r.parts[i].bytes
			}
			r.stall[i] += frac * tms[k].stallS
			r.cap[i] += frac * tms[k].capS
			comp := dt * (1 - tms[k].stallS/tms[k].totalS)
			r.span(i, op.Name, Compute, base+t, base+t+comp)
			r.span(i, op.Name, DRAMWait, base+t+comp, base+t+dt)
		}
		pk := peakUtil(sub[:nshared], tms[:nshared], r.totalBs, r.soc.DRAM.Sharing)
		if r.tokenMemo == nil {
			r.dramSample(t, t+dt, bytes, pk)
		} else {
			moved += bytes
			peak = math.Max(peak, pk)
			r.dramRecord(base+t, base+t+dt, bytes, pk)
		}
		t += dt
	}
}

// solveShared solves the co-running partitions sub (of engines idx) into
// tms. Partitions of engines with memory of their own (shares_dram:
// false) do not contend: they are moved to the end of idx and sub and
// solved alone against their own bandwidth. It returns how many
// partitions, first in idx, share the SoC's DRAM. With every engine on the
// shared DRAM (all CPU clusters), it is r.solve(sub, tms).
func (r *runner) solveShared(idx []int, sub []part, tms []timing) int {
	n := len(sub)
	for k := 0; k < n; k++ {
		if sub[k].private {
			// Stable partition: shared first, private last.
			j := k
			for m := k; m < n; m++ {
				if !sub[m].private {
					sub[j], sub[m] = sub[m], sub[j]
					idx[j], idx[m] = idx[m], idx[j]
					j++
				}
			}
			if j == 0 {
				// Nothing shares DRAM: solve each alone.
				for m := 0; m < n; m++ {
					solve(sub[m:m+1], sub[m].capBs, r.soc.DRAM.Sharing, tms[m:m+1])
				}
				return 0
			}
			r.solve(sub[:j], tms)
			for m := j; m < n; m++ {
				solve(sub[m:m+1], sub[m].capBs, r.soc.DRAM.Sharing, tms[m:m+1])
			}
			return j
		}
	}
	r.solve(sub, tms)
	return n
}

// routedEnd is the expected end of an expert split between two working
// engines under the routing's variance (expectedEnd): their shares of the
// routed picks are in proportion to their partitions' operations. false
// when other than two engines work (the mean shares are kept).
func (r *runner) routedEnd(op *model.Op) (float64, bool) {
	var idx [2]int
	n := 0
	for i := range r.plan.Engines {
		if r.working[i] {
			if n == 2 {
				return 0, false
			}
			idx[n] = i
			n++
		}
	}
	a, b := r.parts[idx[0]].ops, r.parts[idx[1]].ops
	if n != 2 || a+b <= 0 {
		return 0, false
	}
	var starts, works [2]float64
	for j, i := range idx {
		starts[j], works[j] = r.starts[i], r.finish[i]-r.starts[i]
	}
	if r.modes == nil {
		r.modes = map[modeKey]modeVal{}
	}
	return expectedEnd(starts, works, b/(a+b), op.Tokens*r.wl.Model.MoE.TopK, r.modes), true
}
