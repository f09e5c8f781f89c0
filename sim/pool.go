package sim

import (
	"math"

	"github.com/blsim/blsim/model"
)

// A pool plan (model.PoolPlan) is stock llama.cpp's CPU backend: one ggml
// thread pool whose threads sit on one or more clusters. Every op is divided
// among all its threads (ggml_graph_compute_thread runs each node on every
// thread with its index ith of nth), and the threads meet at a spinning
// barrier after each node (ggml_barrier), so an op ends when its slowest
// thread does. How an op is divided is the kernel's choice
// (ggml/src/ggml-cpu/ggml-cpu.c, repack.cpp):
//
//   - The generic matrix product (ggml_compute_forward_mul_mat) cuts the
//     result into chunks of 16x16 (64 rows or columns when the other side
//     is 1), and threads claim them: each starts on the chunk of its own
//     index, then takes the next from a shared counter as it finishes one,
//     so a fast core takes more chunks. With fewer chunks than 4 per
//     thread it falls back to one chunk per thread (nchunk0 = nth along
//     the longer side): fixed slices. MUL_MAT_ID does the same expert by
//     expert, without a barrier between experts; each thread starts every
//     expert on its own chunk.
//   - Repacked weights (model.Engine.Repacked) run kernels that give each
//     thread a fixed slice of the rows (src0_start = ith*ne01/nth).
//   - Scalar ops (norms, activations, the Gated-DeltaNet recurrence) split
//     their rows evenly among the threads: fixed slices.
//   - Attention (flash attention) is claimed in chunks, 4 per thread
//     (ggml-org/llama.cpp PR #16829).
//
// All threads of one engine run at the same speed, so the simulator times
// an engine's threads together, as one partition: its share of the op is
// its threads' share of the slices, or of the chunks as claiming them
// gives them out, in whole chunks (claim). The partitions run at once and
// share DRAM as a split op's do (fluid); the op ends with the last. The
// rounding of chunks among one engine's own threads is not charged: a
// native run has it too, inside the fitted kernel rates, and so a pool
// over one cluster is exactly native with those threads.
//
// Chunks are claimed at the rates the engines have while all of them run
// (one DRAM solve of the whole op's partitions together); the partitions
// then run in the fluid, which re-shares DRAM as each ends.
//
// Thread 0, the main thread, sits on the plan's first engine: it pays the
// graph's launch, the graph splits and the barrier after each op of a
// token's graph (decode.go: spin_wake_us, for a pool of two threads or
// more), as a native pool's does; a prompt's barriers are inside the
// fitted kernel rates, as native's are. ggml decides at load, on the CPU
// it loads on, which tensors to repack: the first engine's Repacked.
//
// A pool may run more threads than an engine's free cores (threads plus
// model.Plan.BusyCores beyond its cores): the scheduler time-slices them.
// Where the pool's own threads outnumber the cores, they run as
// model.Engine.RunningCores cores' worth, and every barrier (one after
// each of the graph's nodes: model.Arch.GraphNodes) waits for a thread
// that is runnable but descheduled: the spinning threads never yield, so
// it runs only when a spinner's time slice ends. Each barrier then pays
// model.Handoff.TimesliceS per extra task queued on a core (deschedule):
// what makes llama.cpp#21763's 5 threads on a 4-core allowance 100 times
// slower than 3. Where the threads fit the cores but busy tasks share
// them, the pool advances only while all its threads hold a core
// (model.Engine.AllRunningShare): each op takes 1/share as long.

// initPool sets the runner's pool state from its plan.
func (r *runner) initPool() {
	p := r.plan
	r.progress = 1
	if p.Mode != model.PoolPlan {
		return
	}
	r.poolN = p.PoolThreads()
	r.spread = len(p.Engines) > 1
	for i, e := range r.eng {
		r.poolSlices += min(p.Threads[i], e.Cores)
	}
	r.cores = make([]float64, len(p.Engines))
	r.shares = make([]float64, len(p.Engines))
	queue := 1
	for i, e := range r.eng {
		t, b := p.Threads[i], p.Busy(i)
		r.cores[i] = e.PoolCores(t, b)
		if s := p.Siblings(i, e); e.Ways() > 1 && (s > 0 || t+b > e.Cores) {
			if r.smtOn == nil {
				r.smtOn = make([]bool, len(p.Engines))
				r.siblings = make([]int, len(p.Engines))
			}
			r.smtOn[i], r.siblings[i] = true, s
		}
		switch {
		case t > e.HWThreads():
			queue = max(queue, e.RunQueue(t, b))
		case e.Oversubscribed(t, b):
			r.progress *= e.AllRunningShare(t, b)
		}
	}
	if queue > 1 {
		r.descheduleS = float64(queue-1) * r.soc.Handoff.TimesliceS()
	}
	r.bgToken, r.bgPrompt = p.BackgroundStall(r.soc, true), p.BackgroundStall(r.soc, false)
}

// coresOf is the cores' worth of running threads engine i of a pool gives
// work of SMT yield y (r.opFixed: divided in fixed slices): the pool's
// cores' worth (r.cores), except where its threads share cores with SMT
// siblings (model.Engine.SMTCores), or, past the hardware threads, take
// turns on every one of them, each core running its ways at 1+(ways-1)y.
func (r *runner) coresOf(i int, y float64) float64 {
	if r.smtOn == nil || !r.smtOn[i] {
		return r.cores[i]
	}
	e, t, b := r.eng[i], r.plan.Threads[i], r.plan.Busy(i)
	w := float64(e.Ways())
	if t > e.HWThreads() {
		return r.cores[i] * (1 + (w-1)*y) / w
	}
	return e.SMTCores(t, r.siblings[i], min(b, e.HWThreads()-t), y, r.opFixed)
}

// smtYield is engine i's SMT yields (nil: none).
func (r *runner) smtYield(i int) *model.SMTYield { return r.eng[i].SMTYield }

// sliceThreads is how many threads an op's weight rows are sliced among
// on engine i, and share its shared cache: the engine's own threads, or
// in a pool every engine's. Time-sliced threads count as the cores they
// take turns on: a core walks the slices of all its threads in turn, so
// its working set is what one thread's would be with a thread a core.
func (r *runner) sliceThreads(i int) int {
	if r.poolN > 0 {
		return r.poolSlices
	}
	return r.plan.Threads[i]
}

// matmulGOPS is engine i's rate for op kind k (a matmul, MUL_MAT_ID or
// attention) with weights of kernel class class and GGML type typ (""
// when the workload does not say) with the plan's threads on it, in GOPS:
// model.Engine.KernelRate at its clock and thread scaling, or in a pool
// the rate of the cores' worth its threads get (coresOf).
func (r *runner) matmulGOPS(i int, class model.KernelClass, typ string, k model.OpKind) float64 {
	e := r.eng[i]
	rate, _ := e.KernelRate(class, typ)
	if r.cores == nil {
		return rate * e.ClockGHz * e.ThreadRate(r.plan.Threads[i])
	}
	return rate * e.ClockGHz * e.ThreadRateCores(r.coresOf(i, r.smtYield(i).Of(k)))
}

// rateGOPS is engine i's rate in GOPS for a kernel rate perCycle (ops per
// cycle and thread) with the plan's threads on it, for work of kind k, as
// matmulGOPS scales a class's.
func (r *runner) rateGOPS(i int, perCycle float64, k model.OpKind) float64 {
	e := r.eng[i]
	if r.cores == nil {
		return perCycle * e.ClockGHz * e.ThreadRate(r.plan.Threads[i])
	}
	return perCycle * e.ClockGHz * e.ThreadRateCores(r.coresOf(i, r.smtYield(i).Of(k)))
}

// attention is an AttentionScores op's arithmetic on engine i (its
// products' operations) and the rate, in GOPS, that takes the time of its
// work at the engine's rates (model.Engine.AttentionWork): the products
// and, without flash attention on an engine that lists it, the softmax.
func (r *runner) attention(i int, op *model.Op) (ops, gops float64) {
	e := r.eng[i]
	var s float64
	for _, w := range e.AttentionWork(op) {
		if w.Ops <= 0 {
			continue
		}
		s += w.Ops / (r.rateGOPS(i, e.AttentionRate(w.Key), op.Kind) * 1e9)
		if w.Key != model.RateSoftmax {
			ops += w.Ops
		}
	}
	if s <= 0 || ops <= 0 {
		return ops, r.matmulGOPS(i, model.ClassF16, "", op.Kind)
	}
	return ops, ops / s / 1e9
}

// scalarGOPS is matmulGOPS for scalar work.
func (r *runner) scalarGOPS(i int) float64 {
	e := r.eng[i]
	if r.cores == nil {
		return e.ScalarGOPS(r.plan.Threads[i])
	}
	return e.ScalarOpsPerCycle * e.ClockGHz * e.ThreadRateCores(r.coresOf(i, r.smtYield(i).Of(model.Scalar)))
}

// bandwidthGBs is the most DRAM bandwidth engine i pulls alone with the
// plan's threads on it.
func (r *runner) bandwidthGBs(i int) float64 {
	e := r.eng[i]
	if r.cores == nil {
		return e.BandwidthGBs(r.plan.Threads[i])
	}
	y := 0.0
	if sy := r.smtYield(i); sy != nil {
		y = sy.DRAM
	}
	return e.BandwidthCoresGBs(r.coresOf(i, y))
}

// streamGBs is the sum of the stream rates of engine i's threads, each
// core's (a core's second hardware thread adds its dram yield), without
// the engine's cap, where its threads load out of phase
// (IndependentThreadLoads); zero where they load in lockstep.
func (r *runner) streamGBs(i int) float64 {
	e := r.eng[i]
	if e.IndependentThreadLoads != 1 || e.IsAccelerator() {
		return 0
	}
	if r.cores == nil {
		return float64(r.plan.Threads[i]) * e.BandwidthPerThreadGBs
	}
	y := 0.0
	if sy := r.smtYield(i); sy != nil {
		y = sy.DRAM
	}
	return r.coresOf(i, y) * e.BandwidthPerThreadGBs
}

// poolOp runs op on every engine of a pool at once, each its share (see
// poolParts), and ends it when the last engine's threads finish; the
// others spin at the barrier until then. Timed as splitOp times a split
// op (a token's graph from the op's own start, remembered), without a
// dispatcher's signal or wakes: the threads are all in the pool, spinning.
func (r *runner) poolOp(op *model.Op) {
	t0, base := r.t, 0.0
	if r.tokenMemo != nil {
		t0, base = 0, r.t
	}
	e, fixed := r.poolParts(op)
	n := len(r.parts)
	for i := 0; i < n; i++ {
		r.working[i] = r.parts[i].bytes > 0 || r.parts[i].computeS > 0 || r.parts[i].llcS > 0
		r.starts[i] = t0
		r.remain[i] = 1
		r.stall[i], r.cap[i] = 0, 0
		r.finish[i] = t0
	}
	if r.tokenMemo != nil {
		r.splitFluid(op, e, base)
	} else {
		r.fluid(op, 0)
	}
	end, first, crit := t0, math.Inf(1), 0
	for i := 0; i < n; i++ {
		if !r.working[i] {
			continue
		}
		if r.finish[i] > end {
			end, crit = r.finish[i], i
		}
		first = math.Min(first, r.finish[i])
	}
	if math.IsInf(first, 1) {
		first = end // an op without work
	}
	if r.signing && op.Kind == model.AttentionScores {
		// The ops that change with the depth: each engine's burst regime
		// is a discrete choice of the token's time (see decode). Their
		// whole chunks are too, but a chunk moving between engines as the
		// depth grows changes a token by some 1e-4 of its time: decode
		// integrates across it rather than bisect at every move.
		for i := 0; i < n; i++ {
			r.note(r.stall[i] > 0)
		}
	}
	for i := 0; i < n; i++ {
		if !r.working[i] {
			r.span(i, op.Name, Idle, base+t0, base+end)
			r.lastEnd[i] = base + end
			continue
		}
		r.account(i, &r.parts[i], r.finish[i]-r.starts[i])
		r.span(i, op.Name, Idle, base+r.finish[i], base+end) // spinning at the barrier
		r.lastEnd[i] = base + end
	}
	r.res.Bound.DRAM += r.stall[crit] - r.cap[crit]
	r.res.Bound.EngineCap += r.cap[crit]
	r.res.Bound.Compute += end - t0 - r.stall[crit]
	r.res.Pool.Ops++
	if fixed {
		r.res.Pool.StaticOps++
	}
	r.res.Pool.ImbalanceS += end - first
	if op.Kind == model.ExpertMatmul {
		r.res.ExpertOpS += end - t0
	}
	r.t = base + end
}

// poolParts sets r.parts to each engine's partition of op in a pool: its
// threads' share of the op's fixed slices, or of its chunks as the threads
// claim them. It returns op's memo entry in a token's graph (nil when not
// remembered) and whether the op is divided in fixed slices.
func (r *runner) poolParts(op *model.Op) (*memoEntry, bool) {
	var e *memoEntry
	if len(r.plan.Engines) <= memoParts {
		var ok bool
		if e, ok = r.remembered(op); ok {
			r.parts = append(r.parts[:0], e.parts[:e.n]...)
			return e, e.fixed
		}
	}
	n := len(r.plan.Engines)
	nchunk, forced, fixed := r.chunks(op)
	r.opFixed = fixed
	r.parts = r.parts[:0]
	for i := 0; i < n; i++ {
		r.parts = append(r.parts, r.partFor(op, i, float64(op.Tokens), 0, 0, r.poolSlices))
	}
	shares := r.shares
	if fixed {
		for i, t := range r.plan.Threads {
			shares[i] = float64(t) / float64(r.poolN)
		}
	} else {
		// Claiming runs while every engine works: each thread's chunk takes
		// its engine's time for the whole op with all engines co-running,
		// times its threads, over the chunks.
		r.solve(r.parts, r.tms[:n]) // CPU clusters only: all on the shared DRAM
		ok := true
		for i, t := range r.plan.Threads {
			shares[i] = r.tms[i].totalS * float64(t) / float64(nchunk) // seconds a chunk
			ok = ok && shares[i] > 0 && !math.IsInf(shares[i], 0) && !math.IsNaN(shares[i])
		}
		if ok {
			claim(nchunk, forced, r.plan.Threads, shares, shares)
		} else {
			// A chunk that takes no time or forever: no race to model.
			for i, t := range r.plan.Threads {
				shares[i] = float64(t) / float64(r.poolN)
			}
		}
	}
	for i := range r.parts {
		scalePart(&r.parts[i], shares[i])
	}
	if e != nil {
		e.n = copy(e.parts[:], r.parts)
		e.flows = e.flows[:0]
		e.fixed = fixed
	}
	return e, fixed
}

// scalePart makes p a share f of itself: its bytes, arithmetic and time.
func scalePart(p *part, f float64) {
	p.bytes *= f
	p.ops *= f
	p.computeS *= f
	p.llcS *= f
}

// Chunk sizes of ggml's generic matrix product (ggml_compute_forward_mul_mat,
// ggml_compute_forward_mul_mat_id): 16 rows by 16 columns, 64 when either
// side is one row; fewer than chunksPerThread chunks a thread falls back
// to one chunk per thread. Flash attention claims chunksPerThread chunks a
// thread.
const (
	chunkSize       = 16
	chunkSizeVector = 64
	chunksPerThread = 4
)

// chunks says how ggml divides op among the pool's threads: in nchunk
// chunks claimed dynamically, each thread doing at least forced of them
// (one per routed expert in MUL_MAT_ID), or, when fixed, in one fixed
// slice per thread.
func (r *runner) chunks(op *model.Op) (nchunk, forced int, fixed bool) {
	nth := r.poolN
	switch op.Kind {
	case model.Matmul, model.ExpertMatmul:
		if r.eng[0].Repacked(r.wl, op) {
			// ggml repacks a tensor at load, by the CPU it loads on;
			// every thread then runs the repacked kernel.
			return nth, 1, true
		}
		nr0, nr1, experts := op.Out, op.Tokens, 1
		if op.Kind == model.ExpertMatmul {
			// Expert by expert: its rows, and the tokens routed to it
			// (their expectation over the touched experts).
			st := r.expertStats(float64(op.Tokens), 0, float64(r.wl.Model.MoE.Experts), 1)
			if st.Touched <= 0 {
				return nth, 1, true
			}
			nr1 = max(1, int(math.Round(st.Assignments/st.Touched)))
			experts = max(1, int(math.Round(st.Touched)))
		}
		size := chunkSize
		if nr0 == 1 || nr1 == 1 {
			size = chunkSizeVector
		}
		per := ceilDiv(nr0, size) * ceilDiv(nr1, size)
		if per < chunksPerThread*nth {
			return nth, 1, true
		}
		return per * experts, experts, false
	case model.AttentionScores:
		return chunksPerThread * nth, 1, false
	}
	return nth, 1, true
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// claim is ggml's chunk claiming: nchunk chunks, threads[i] threads on
// engine i each taking c[i] seconds a chunk; every thread starts on the
// chunk of its own index at time 0 and takes the next from the shared
// counter each time it finishes one, until none is left. It writes to out
// (which may be c) each engine's share of the chunks its threads do, in
// whole chunks, at least forced a thread (MUL_MAT_ID: each thread's own
// chunk of every expert). Claims at the same instant go to the engines in
// plan order.
//
// Instead of replaying every claim, it skips to just before the last ones:
// by time t the claims number F(t) = sum_i threads[i]*(floor(t/c[i])+1),
// between R*t and R*t+N (R = sum threads[i]/c[i], N the threads), so
// F < nchunk before (nchunk-N)/R and the last claim is at most N/R (one
// chunk of the slowest engine) later; only those are replayed.
func claim(nchunk, forced int, threads []int, c, out []float64) {
	n := len(threads)
	var kbuf, cbuf, gbuf [claimInline]float64
	// Per engine: its next claim instant (in chunks), its chunk time, the
	// chunks it has.
	k, cs, got := kbuf[:0], cbuf[:0], gbuf[:0]
	if n > claimInline {
		k, cs, got = make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	}
	k, cs, got = k[:n], append(cs, c...), got[:n]
	nth, rate := 0, 0.0
	for i, t := range threads {
		nth += t
		rate += float64(t) / cs[i]
	}
	left := nchunk
	if nchunk > nth {
		ts := float64(nchunk-nth) / rate * (1 - 1e-9)
		claimed := 0
		for i, t := range threads {
			k[i] = math.Floor(ts/cs[i]) + 1 // instants 0, c, 2c, ... up to ts
			claimed += t * int(k[i])
		}
		if claimed >= nchunk { // float rounding: replay from the start
			claimed = 0
			for i := range k {
				k[i] = 0
			}
		}
		for i, t := range threads {
			got[i] = float64(t) * k[i]
		}
		left -= claimed
	}
	for left > 0 {
		best := 0
		for i := 1; i < n; i++ {
			if k[i]*cs[i] < k[best]*cs[best] {
				best = i
			}
		}
		g := min(threads[best], left)
		got[best] += float64(g)
		left -= g
		k[best]++
	}
	// Each thread does at least forced chunks (when there are that many);
	// what the forced ones take from the others comes off them in
	// proportion to their chunks.
	if nchunk < nth*forced {
		forced = 0
	}
	short, spare := 0.0, 0.0
	for i, t := range threads {
		if least := float64(t * forced); got[i] < least {
			short += least - got[i]
			got[i] = least
		} else {
			spare += got[i] - least
		}
	}
	if short > 0 && spare > 0 {
		for i, t := range threads {
			if least := float64(t * forced); got[i] > least {
				got[i] -= short * (got[i] - least) / spare
			}
		}
	}
	for i := range out[:n] {
		out[i] = got[i] / float64(nchunk)
	}
}

// claimInline is how many engines claim keeps on the stack.
const claimInline = model.MaxPoolEngines
