package sim

import (
	"fmt"
	"math"

	"github.com/blsim/blsim/model"
)

// Options are settings of a run; the zero value is the default.
type Options struct {
	// Timeline records ubatch 0's spans and DRAM samples in the result, or
	// the first generated token's when the run has no prompt.
	Timeline bool

	// everyToken simulates every generated token instead of sampling a
	// few (tests check decode's shortcut against it).
	everyToken bool
}

// Run predicts plan p of workload w on SoC s.
func Run(s *model.SoC, w *model.Workload, p model.Plan) (*Result, error) {
	return RunWith(s, w, p, Options{})
}

// RunWith is Run with options.
func RunWith(s *model.SoC, w *model.Workload, p model.Plan, o Options) (*Result, error) {
	return run(s, w, p, o, nil)
}

// run is RunWith over the workload's ops; g, when not nil, holds them
// already built (Sweep builds them once for all its runs).
func run(s *model.SoC, w *model.Workload, p model.Plan, o Options, g *graphs) (*Result, error) {
	if err := p.Validate(s); err != nil {
		return nil, fmt.Errorf("soc %s: %w", s.Name, err)
	}
	if err := checkTokenSplit(w.Run, p); err != nil {
		return nil, err
	}
	simulations.Add(1)
	return simulate(s, w, p, o, g, nil), nil
}

// simulate runs a plan already checked against s and w; mains, when not
// nil, holds main-engine op timings already solved on s (a new memo for
// this run otherwise).
func simulate(s *model.SoC, w *model.Workload, p model.Plan, o Options, g *graphs, mains *mainMemo) *Result {
	r := newRunner(s, w, p)
	if mains == nil {
		mains = newMainMemo()
	}
	r.mains = mains
	for u := 0; u < w.Run.Ubatches(); u++ {
		r.record = o.Timeline && u == 0
		if g != nil {
			r.ubatch(g.ubatches[u])
		} else {
			r.ubatch(w.Ops(u))
		}
	}
	r.promptS = r.t
	if w.Run.GenTokens > 0 {
		if g == nil {
			g = &graphs{}
		}
		r.everyToken = o.everyToken
		r.decode(g, o.Timeline && w.Run.Ubatches() == 0)
	}
	return r.result()
}

type runner struct {
	soc     *model.SoC
	wl      *model.Workload
	plan    model.Plan
	eng     []*model.Engine
	routing model.Routing
	totalBs float64

	t       float64   // time since the prompt started
	promptS float64   // when the prompt ended
	lastEnd []float64 // when each plan engine last finished work
	record  bool
	res     Result
	memo    map[memoKey]model.ExpertStats
	// modes remembers the binomials of expert splits' routing (routedEnd).
	modes map[modeKey]modeVal
	// keeps: some engine keeps weights in its shared cache between graphs
	// (model.Engine.LLCBandwidthGBs), so graphBytes is needed.
	keeps bool
	// graphBytes is the weight bytes the graph being run walks (weightBytes).
	graphBytes float64
	// graphTokens is the tokens of the graph being run: a generated
	// token's is one (model.Engine.GraphOverlap).
	graphTokens float64
	solved      []solved  // remembered solves, see runner.solve
	mains       *mainMemo // main-engine op timings on this SoC (mainmemo.go)

	// pool (see pool.go)
	poolN       int       // a pool's threads, all engines; 0 for other plans
	poolSlices  int       // a pool's threads on cores of their own, at most an engine's cores (sliceThreads)
	spread      bool      // a pool over more than one engine
	cores       []float64 // a pool's cores' worth of running threads per engine; nil for other plans
	shares      []float64 // scratch: each engine's share of a pool op
	descheduleS float64   // a pool's wait at each barrier for a descheduled thread
	progress    float64   // share of the time a pool with busy cores advances (1: always)
	bgToken     float64   // share of a token graph's op time the pool waits for background work (model.Plan.BackgroundStall)
	bgPrompt    float64   // the same for a prompt's op
	inToken     bool      // a generated token's graph is being timed
	nodesPerOp  float64   // the graph's barriers per op it times (barriersPerOp)
	smtOn       []bool    // per engine: its threads share cores with SMT siblings or busy tasks; nil: none does
	siblings    []int     // per engine: its threads on SMT siblings (model.Plan.Siblings)
	opFixed     bool      // the pool op being timed is divided in fixed slices (chunks)

	// decode (see decode.go)
	barrierS   float64 // the main pool's barrier after each op; 0 in a prompt
	signing    bool    // a token's signature is being recorded
	sig        uint64  // the token's signature
	everyToken bool
	depth      int      // the token's depth, or -1 in a prompt
	tokenMemo  *opMemo  // ops of token graphs already simulated; nil in a prompt
	opIndex    int      // the op's index in its graph
	depthOp    model.Op // scratch: an op taken at the token's depth

	// scratch
	parts   []part
	times   []timing
	starts  []float64
	remain  []float64
	finish  []float64
	stall   []float64
	cap     []float64 // of stall, the engine cap's (timing.capS)
	working []bool
	cutLo   []int // [cutLo, cutHi): an engine's whole units of a split op (cut)
	cutHi   []int
	pts     []float64 // splitBound's moments
	idx     []int
	sub     []part
	tms     []timing
}

type memoKey struct {
	n, lo, hi float64
	tile      int
}

func newRunner(s *model.SoC, w *model.Workload, p model.Plan) *runner {
	r := &runner{soc: s, wl: w, plan: p, routing: w.Routing(), totalBs: s.DRAM.SustainedGBs * 1e9,
		memo: map[memoKey]model.ExpertStats{}, depth: -1}
	for i, name := range p.Engines {
		e, _, _ := s.Engine(name)
		if p.Mode == model.PoolPlan && e != nil {
			e = p.PoolEngine(i, e)
		}
		if e != nil && i < len(p.Threads) {
			e = e.AtBusy(p.Threads[i])
		}
		r.eng = append(r.eng, e)
		r.keeps = r.keeps || (e != nil && e.LLCBandwidthGBs > 0 && !e.IsAccelerator())
	}
	n := len(p.Engines)
	r.lastEnd = make([]float64, n)
	r.res.Plan = p.String()
	r.res.Engines = make([]EngineStats, n)
	for i := range r.res.Engines {
		r.res.Engines[i] = EngineStats{Name: p.Engines[i], Threads: p.Threads[i]}
	}
	if r.split() {
		r.res.Split.EngineS = make([]float64, n)
	}
	r.initPool()
	r.parts, r.times = make([]part, 0, n), make([]timing, n)
	r.starts, r.remain, r.finish, r.stall, r.cap = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	r.working, r.cutLo, r.cutHi = make([]bool, n), make([]int, 0, n), make([]int, 0, n)
	r.idx, r.sub, r.tms = make([]int, 0, n), make([]part, 0, n), make([]timing, n)
	return r
}

// barriersPerOp is how many barriers the pool meets per op of the graph
// ops, whose llama.cpp graph has the workload's graph_nodes nodes (0:
// unknown, one barrier an op): one after each node, one more inside each
// matrix product (ggml_compute_forward_mul_mat and _mul_mat_id meet after
// converting their activations), and, in a prompt on a build that runs
// its attention through llamafile's sgemm (model.Engine.SgemmHeadBarriers),
// two in each of its two products' calls, one call a query head; spread
// over the ops blsim times.
func (r *runner) barriersPerOp(ops []model.Op) float64 {
	nodes := r.wl.Model.GraphNodes
	if nodes <= 0 || len(ops) == 0 {
		return 1
	}
	n := nodes
	for i := range ops {
		switch op := &ops[i]; op.Kind {
		case model.Matmul, model.ExpertMatmul:
			n++
		case model.AttentionScores:
			n++
			if op.Tokens > 1 && r.eng[0].SgemmHeadBarriers {
				n += 4 * r.wl.Model.Attention.Heads
			}
		}
	}
	return math.Max(1, float64(n)/float64(len(ops)))
}

// split says whether the plan is a split dispatcher's (token or expert):
// the routed-expert ops forked between pools.
func (r *runner) split() bool {
	return r.plan.Mode.IsSplit()
}

// ubatch simulates one ubatch's ops in graph order.
func (r *runner) ubatch(ops []model.Op) {
	r.graphBytes = r.weightBytes(ops)
	r.graphTokens = 0
	for i := range ops {
		r.graphTokens = max(r.graphTokens, float64(ops[i].Tokens))
	}
	r.nodesPerOp = r.barriersPerOp(ops)
	for i := range ops {
		op := &ops[i]
		r.opIndex = i
		if r.depth >= 0 && op.Kind == model.AttentionScores {
			r.depthOp = r.wl.TokenOp(*op, r.depth)
			op = &r.depthOp
		}
		switch {
		case op.Kind == model.ExpertMatmul && r.split():
			r.splitOp(op)
		default:
			t0 := r.t
			if r.smtOn != nil && !r.spread {
				_, _, r.opFixed = r.chunks(op)
			}
			if r.spread {
				r.poolOp(op)
			} else {
				r.mainOp(op)
			}
			opS := r.t - t0
			if r.barrierS > 0 && i+1 < len(ops) {
				r.barrier(op)
			}
			if r.descheduleS > 0 || r.progress < 1 || r.bgToken > 0 {
				r.deschedule(op, opS)
			}
		}
		if op.Layer >= 0 && (i+1 == len(ops) || ops[i+1].Layer != op.Layer) {
			r.graphSplits(op)
		}
	}
}

// graphSplits charges the main pool's waits for the next graph at the end
// of a layer: backend-scheduler splits of the build the profile describes.
func (r *runner) graphSplits(last *model.Op) {
	h := &r.soc.Handoff
	n := h.GraphSplitsPerLayer
	if r.split() && last.Layer >= r.wl.Model.MoE.DenseLayers {
		n -= h.SplitAbsorbsGraphSplits
	}
	if n <= 0 {
		return
	}
	dt := float64(n) * (h.GraphSplitGapUS + r.mainWakeUS(h.GraphSplitGapUS)) * 1e-6
	r.span(0, "graph_split", Handoff, r.t, r.t+dt)
	r.res.Bound.Handoff += dt
	r.res.Split.GraphSplitS += dt
	r.res.Engines[0].HandoffS += dt
	r.t += dt
	r.lastEnd[0] = r.t
}

// mainOp runs an op on the main engine alone.
func (r *runner) mainOp(op *model.Op) {
	p, tm := r.mainTiming(op) // read only until the next solve
	if r.signing && op.Kind == model.AttentionScores {
		// The only ops whose burst regime can change with the depth.
		r.note(tm.stallS > 0)
	}
	r.account(0, p, tm.totalS)
	r.res.Bound.Compute += tm.totalS - tm.stallS
	r.res.Bound.DRAM += tm.stallS - tm.capS
	r.res.Bound.EngineCap += tm.capS
	peak := 0.0
	if tm.duty > 0.01 {
		peak = tm.demandBs / r.totalBs
	}
	r.dramSample(r.t, r.t+tm.totalS, p.bytes, peak)
	r.span(0, op.Name, Compute, r.t, r.t+tm.totalS-tm.stallS)
	r.span(0, op.Name, DRAMWait, r.t+tm.totalS-tm.stallS, r.t+tm.totalS)
	if op.Kind == model.ExpertMatmul {
		r.res.ExpertOpS += tm.totalS
	}
	r.t += tm.totalS
	r.lastEnd[0] = r.t
}

// mainTiming is op's partition on the main engine alone and its timing.
func (r *runner) mainTiming(op *model.Op) (*part, *timing) {
	e, ok := r.remembered(op)
	if ok {
		return &e.parts[0], &e.tm
	}
	k, keep := r.mainKeyOf(op)
	if keep {
		if v, ok := r.mains.get(k); ok {
			r.parts = append(r.parts[:0], v.p)
			r.times[0] = v.tm
			return &r.parts[0], &r.times[0]
		}
	}
	r.parts = append(r.parts[:0], r.partFor(op, 0, float64(op.Tokens), 0, 0, r.sliceThreads(0)))
	solve(r.parts, r.totalBs, r.soc.DRAM.Sharing, r.times)
	if e != nil {
		e.n, e.parts[0], e.tm = 1, r.parts[0], r.times[0]
	}
	if keep {
		r.mains.put(k, mainVal{r.parts[0], r.times[0]})
	}
	return &r.parts[0], &r.times[0]
}

// account adds a partition's work to its engine's totals.
func (r *runner) account(i int, p *part, busyS float64) {
	e := &r.res.Engines[i]
	e.BusyS += busyS
	e.Bytes += p.bytes
	e.Ops += p.ops
	if !p.private {
		r.res.BytesDemanded += p.bytes
	}
}

// dramSample records bytes moved over [t0, t1] and the burst peak.
func (r *runner) dramSample(t0, t1, bytes, peak float64) {
	r.res.BytesMoved += bytes
	if peak > r.res.DRAMUtilPeak {
		r.res.DRAMUtilPeak = peak
	}
	r.dramRecord(t0, t1, bytes, peak)
}

// dramRecord adds the DRAM sample over [t0, t1] to a recorded timeline.
func (r *runner) dramRecord(t0, t1, bytes, peak float64) {
	if r.record && t1 > t0 {
		r.res.DRAM = append(r.res.DRAM, DRAMSample{StartS: t0, EndS: t1, Mean: bytes / (t1 - t0) / r.totalBs, Peak: peak})
	}
}

func (r *runner) span(i int, op string, st State, t0, t1 float64) {
	if r.record && t1 > t0 {
		r.res.Timeline = append(r.res.Timeline, Span{Engine: r.plan.Engines[i], Op: op, State: st, StartS: t0, EndS: t1})
	}
}

// partFor builds engine i's partition of op: tokens of its tokens, or (when
// hi > lo) all its tokens through the experts of popularity rank [lo, hi).
// sharedBy threads share the engine's shared cache. In a pool the op's
// weight rows are sliced among all the pool's threads, and its rates are
// those of the cores' worth the engine's threads get (see pool.go).
func (r *runner) partFor(op *model.Op, i int, tokens, lo, hi float64, sharedBy int) part {
	e := r.eng[i]
	th := r.plan.Threads[i]
	slice := r.sliceThreads(i) // threads the weight rows are sliced among
	p := part{engine: i, overlap: e.GraphOverlap(r.graphTokens), capBs: r.bandwidthGBs(i) * 1e9, slowdown: 1,
		private: !e.UsesSharedDRAM(), streamBs: r.streamGBs(i) * 1e9}
	if e.IsAccelerator() {
		sharedBy = th
	}
	cache := e.CacheBytesPerThread(sharedBy)
	var gops, hit float64
	switch op.Kind {
	case model.Matmul:
		gops = r.matmulGOPS(i, op.Class, r.wl.TensorType(op), op.Kind) * e.WalkEfficiencyOf(r.wl.TensorType(op), float64(op.Tokens))
		passes := 1.0
		if op.WeightBytes/float64(slice) > cache {
			passes = math.Ceil(float64(op.Tokens) / float64(e.TokenTile))
		}
		p.bytes = op.WeightBytes*passes + op.ActBytes
		p.ops = op.Ops
		if !e.IsAccelerator() {
			hit = e.LLCHitShare(1, r.graphBytes) * op.WeightBytes
		}
	case model.ExpertMatmul:
		gops = r.matmulGOPS(i, op.Class, r.wl.TensorType(op), op.Kind) * e.MoEEfficiency
		n := tokens
		if hi <= lo {
			lo, hi = 0, float64(r.wl.Model.MoE.Experts)
		}
		st := r.expertStats(n, lo, hi, e.ExpertTokenTile)
		if st.Touched > 0 {
			// The tokens one walk over an expert's weights serves: those
			// routed to it, at most the kernel's tile (1 for a gemv per
			// routed token).
			gops *= e.WalkEfficiencyOf(r.wl.TensorType(op), math.Min(st.Assignments/st.Touched, float64(e.ExpertTokenTile)))
		}
		walks := st.Touched
		if op.ExpertBytes/float64(slice) > cache {
			walks = st.Tiles
		}
		perPair := float64(op.In) * float64(op.Out)
		p.ops = 2 * st.Assignments * perPair
		if e.IsAccelerator() {
			// Weights in the accelerator's own format (an int8 copy of
			// Q4_K, say) move more bytes than ggml's.
			p.bytes = walks*op.ExpertBytes*e.ConvertFactor(op.Class) + 4*st.Assignments*float64(op.In+op.Out)
		} else {
			p.bytes = walks*op.ExpertBytes + 4*st.Assignments*float64(op.In+op.Out)
		}
		if r.plan.Mode == model.ExpertSplit && hi-lo < float64(r.wl.Model.MoE.Experts) {
			p.bytes += 4 * st.Assignments * float64(op.In+op.Out) // gather and scatter copies
		}
		if !e.IsAccelerator() {
			hit = e.LLCHitShare(r.touchShare(op), r.graphBytes) * st.Touched * op.ExpertBytes
		}
	case model.AttentionScores:
		p.bytes = op.ActBytes
		p.ops, gops = r.attention(i, op)
	default:
		gops = r.scalarGOPS(i)
		p.bytes, p.ops = op.ActBytes, op.Ops
	}
	p.computeS = p.ops / (gops * 1e9)
	if hit > 0 {
		// Weights the cache kept from earlier graphs: read from it, not
		// from DRAM, in the engine's own time, a load that overlaps the
		// arithmetic as the walk's DRAM loads do.
		p.bytes -= hit
		p.llcS = hit / (e.LLCBandwidthGBs * 1e9)
	}
	return p
}

// weightBytes is what one graph of ops walks of its weights, once each:
// every matmul's and every touched expert's (the S of
// model.Engine.LLCHitShare). Zero when no engine of the plan keeps weights
// in its cache between graphs (LLCBandwidthGBs unset).
func (r *runner) weightBytes(ops []model.Op) float64 {
	if !r.keeps {
		return 0
	}
	s := 0.0
	for i := range ops {
		switch op := &ops[i]; op.Kind {
		case model.Matmul:
			s += op.WeightBytes
		case model.ExpertMatmul:
			s += r.touchShare(op) * float64(r.wl.Model.MoE.Experts) * op.ExpertBytes
		}
	}
	return s
}

// touchShare is the probability that op's graph touches a given expert:
// the expected experts its tokens are routed to over all the experts.
func (r *runner) touchShare(op *model.Op) float64 {
	e := float64(r.wl.Model.MoE.Experts)
	if e <= 0 {
		return 0
	}
	return r.expertStats(float64(op.Tokens), 0, e, 1).Touched / e
}

func (r *runner) expertStats(n, lo, hi float64, tile int) model.ExpertStats {
	k := memoKey{n, lo, hi, tile}
	if st, ok := r.memo[k]; ok {
		return st
	}
	st := r.routing.Over(n, lo, hi, tile)
	r.memo[k] = st
	return st
}

func (r *runner) result() *Result {
	res := r.res
	res.WallS = r.t
	run := r.wl.Run
	res.PromptS, res.GenS = r.promptS, r.t-r.promptS
	if run.PromptTokens > 0 {
		res.PromptTPS = float64(run.PromptTokens) / res.PromptS
	}
	if run.GenTokens > 0 {
		res.GenTPS = float64(run.GenTokens) / res.GenS
	}
	res.TPS = float64(run.PromptTokens+run.GenTokens) / r.t
	if sum := res.Bound.Compute + res.Bound.DRAM + res.Bound.EngineCap + res.Bound.Handoff; sum > 0 {
		res.Bound.Compute /= sum
		res.Bound.DRAM /= sum
		res.Bound.EngineCap /= sum
		res.Bound.Handoff /= sum
	}
	res.DRAMUtilMean = res.BytesMoved / (r.totalBs * r.t)
	for i := range res.Engines {
		e := &res.Engines[i]
		e.IdleS = math.Max(0, r.t-e.BusyS-e.HandoffS)
	}
	return &res
}
