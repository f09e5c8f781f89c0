package sim

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/blsim/blsim/model"
)

// ErrOneTokenSplit is why a token split of a one-token ubatch (every
// generated token's graph, or a prompt at ubatch 1) is refused.
var ErrOneTokenSplit = errors.New("a token split of a one-token ubatch: one token cannot be divided between engines; use an expert split or native")

// checkTokenSplit refuses a token split of a run with one-token ubatches.
func checkTokenSplit(r model.Run, p model.Plan) error {
	if p.Mode != model.TokenSplit {
		return nil
	}
	switch {
	case r.GenTokens > 0:
		return fmt.Errorf("sim: tg%d (one token per graph): %w", r.GenTokens, ErrOneTokenSplit)
	case min(r.Ubatch, r.PromptTokens) == 1:
		return fmt.Errorf("sim: pp%d at ubatch %d: %w", r.PromptTokens, min(r.Ubatch, r.PromptTokens), ErrOneTokenSplit)
	}
	return nil
}

// graphs are a run's op lists, built once for many runs of one workload
// (Sweep, BestN): the prompt's ubatches and a generated token's graph (at
// the first token's depth; see runner.token for the others). The runs only
// read them.
type graphs struct {
	ubatches [][]model.Op
	token    []model.Op
}

func buildGraphs(w *model.Workload) *graphs {
	g := &graphs{ubatches: make([][]model.Op, w.Run.Ubatches())}
	for u := range g.ubatches {
		g.ubatches[u] = w.Ops(u)
	}
	if w.Run.GenTokens > 0 {
		g.token = w.TokenOps(w.Run.Depth + w.Run.PromptTokens)
	}
	return g
}

// decode simulates the run's generated tokens, after the prompt: one graph
// per token, the token's KV depth one more than the previous one's.
//
// The first token runs after the prompt (or after nothing): a plan's
// second pool wakes from however long it idled in the prompt's tail, so
// that token is simulated as it is. Every later token runs after a token,
// whose tail (the last layer's expert ops, the shared expert, the output
// head) does not depend on the depth, so those tokens differ only by their
// depth (with one pool, so does the first); and a token's time is affine
// in its depth: only the attention ops depend on it, through
// the K and V bytes they read and the scores they compute, both linear in
// the depth, and each op's time is affine in those as long as it stays on
// the same side of its burst regime (memory- or compute-bound) and every
// pool's wake stays the same kind (spin or futex). So of the N-1 later
// tokens (N with one pool) the first and the last are simulated, and their
// sum is N-1 (N) times the two's mean (the trapezoid, exact for an affine
// time). Each simulated
// token records a signature of those discrete choices (and of whether its
// sliding-window layers have reached their window); where the two ends'
// signatures differ, the time is only piecewise affine, and the range is
// bisected, simulating the token at the midpoint, until each piece has one
// signature or is a pair of adjacent tokens. The cost is two or three
// token graphs, a few more where a regime changes inside the range: not N.
func (r *runner) decode(g *graphs, record bool) {
	run := r.wl.Run
	n := run.GenTokens
	d0 := run.Depth + run.PromptTokens
	ops := g.token
	if ops == nil {
		ops = r.wl.TokenOps(d0)
	}
	r.tokenMemo = newOpMemo(len(ops))
	base := r.tally()
	r.record = record
	first := r.sample(ops, d0, base)
	r.record = false
	if r.everyToken {
		for d := d0 + 1; d < d0+n; d++ {
			r.token(ops, d)
		}
		return
	}
	if n == 1 {
		return
	}
	lo := d0
	if r.split() && len(r.plan.Engines) > 1 {
		// Another pool's wake depends on how long it idled before the
		// graph: the first token is one of a kind. A single pool's graph
		// (native, or a pool plan over several clusters) does not depend
		// on the one before, and the first token is as any other at its
		// depth.
		lo++
		base = r.tally()
		if n == 2 {
			r.token(ops, lo)
			return
		}
		first = r.sample(ops, lo, base)
	}
	last := r.sample(ops, d0+n-1, nil)
	sum := r.sumTokens(ops, lo, d0+n-1, first, last)
	for i := range sum {
		sum[i] += base[i]
	}
	r.setTally(sum)
}

// sample is one simulated token: what it added to the run's tally, and its
// signature.
type sample struct {
	add tally
	sig uint64
}

// sample simulates the token graph ops at depth depth (see token) and
// returns what it added to the tally before (the tally now when nil).
func (r *runner) sample(ops []model.Op, depth int, before tally) sample {
	if before == nil {
		before = r.tally()
	}
	sig := r.token(ops, depth)
	t := r.tally()
	for i := range t {
		t[i] -= before[i]
	}
	return sample{t, sig}
}

// sumTokens is the tally of the tokens at depths lo..hi, given the samples
// at lo and hi (see decode); ops is a token graph (see token).
func (r *runner) sumTokens(ops []model.Op, lo, hi int, a, b sample) tally {
	out := make(tally, len(a.add))
	switch {
	case hi == lo:
		copy(out, a.add)
	case hi == lo+1:
		for i := range out {
			out[i] = a.add[i] + b.add[i]
		}
	case a.sig == b.sig:
		k := float64(hi-lo+1) / 2
		for i := range out {
			out[i] = k * (a.add[i] + b.add[i])
		}
	default:
		mid := lo + (hi-lo)/2
		m := r.sample(ops, mid, nil)
		left, right := r.sumTokens(ops, lo, mid, a, m), r.sumTokens(ops, mid, hi, m, b)
		for i := range out {
			out[i] = left[i] + right[i] - m.add[i]
		}
	}
	return out
}

// token simulates one generated token's graph at depth depth: its launch,
// then its ops, each followed by the pool's barrier. ops is the graph
// TokenOps built for any depth: the ops that depend on it are taken at
// depth as they come (model.Workload.TokenOp), so that no graph is built
// per token. It returns the token's signature (see decode).
func (r *runner) token(ops []model.Op, depth int) uint64 {
	r.res.tokenGraphs++
	r.sig = 0
	r.signing = true
	r.launch()
	r.barrierS = r.barrierSeconds()
	r.depth, r.inToken = depth, true
	r.ubatch(ops)
	r.barrierS, r.depth, r.inToken = 0, -1, false
	m := &r.wl.Model
	if a := m.Attention; a.SlidingWindow > 0 && strings.IndexByte(m.Pattern, 'S') >= 0 {
		r.note(depth+1 >= a.SlidingWindow) // past it, the window's reads stop growing
	}
	r.signing = false
	return r.sig
}

// note adds a discrete choice to the token's signature.
func (r *runner) note(b bool) {
	if !r.signing {
		return
	}
	v := uint64(1)
	if b {
		v = 2
	}
	r.sig = (r.sig ^ v) * 0x100000001b3 // FNV-1a step
}

// barrierSeconds is what the barrier after each op of a token's graph
// costs the main pool: ggml's threads meet at a spinning barrier after
// every node (none with one thread), released when the last arrives and
// the others see it, which is a spin wake. A prompt's ubatch has the same
// barriers, but its ops last a thousand times longer and the profiles'
// kernel rates, fitted to whole prompts, hold them; a token's ops are short
// enough for them to count, so the decode graph charges them.
func (r *runner) barrierSeconds() float64 {
	if r.mainAlone() {
		return 0
	}
	return r.soc.Handoff.SpinWakeUS * 1e-6
}

// barrier charges the main pool's barrier after op.
func (r *runner) barrier(op *model.Op) {
	dt := r.barrierS * r.nodesPerOp
	r.span(0, op.Name, Handoff, r.t, r.t+dt)
	r.overhead(dt)
}

// launch charges a token graph's launch: the host's work between two
// graphs, as long as a backend-scheduler split's gap, and the main pool's
// wake after it (mainWakeUS).
func (r *runner) launch() {
	h := &r.soc.Handoff
	dt := (h.GraphSplitGapUS + r.mainWakeUS(h.GraphSplitGapUS)) * 1e-6
	r.span(0, "graph_launch", Handoff, r.t, r.t+dt)
	r.overhead(dt)
}

// mainWakeUS is the main pool's wake after the host idled it for idleUS
// (model.Handoff.WakeUS at the plan's poll), in microseconds; 0 for a pool
// of one thread, which has no worker to wake: the calling thread computes
// the graph itself, whatever the poll.
func (r *runner) mainWakeUS(idleUS float64) float64 {
	if r.mainAlone() {
		return 0
	}
	return r.soc.Handoff.WakeUS(idleUS, r.plan.Poll)
}

// mainAlone says whether the main pool is one thread: no barrier to meet,
// no worker to wake.
func (r *runner) mainAlone() bool { return r.plan.Threads[0] < 2 && r.poolN < 2 }

// overhead adds dt of the main pool's fixed per-token cost.
func (r *runner) overhead(dt float64) {
	r.res.Bound.Handoff += dt
	r.res.TokenOverheadS += dt
	r.res.Engines[0].HandoffS += dt
	r.t += dt
	r.lastEnd[0] = r.t
}

// tally is the additive part of a run's Result, and its clock, flattened
// so that phases can be subtracted, added and scaled.
type tally []float64

const (
	tallyFixed     = 18 // fields before the per-engine ones
	tallyPerEngine = 5
)

// tally returns the run's tally.
func (r *runner) tally() tally {
	res := &r.res
	t := make(tally, 0, tallyFixed+tallyPerEngine*len(res.Engines))
	t = append(t, r.t, res.Bound.Compute, res.Bound.DRAM, res.Bound.Handoff,
		res.BytesDemanded, res.BytesMoved, res.ExpertOpS, float64(res.Split.Ops), res.Split.OpS,
		res.Split.ImbalanceS, res.Split.HandoffS, res.Split.GraphSplitS, res.TokenOverheadS,
		float64(res.Pool.Ops), float64(res.Pool.StaticOps), res.Pool.ImbalanceS, res.Pool.DescheduledS, res.Bound.EngineCap)
	for i, e := range res.Engines {
		split := 0.0
		if res.Split.EngineS != nil {
			split = res.Split.EngineS[i]
		}
		t = append(t, e.BusyS, e.HandoffS, e.Bytes, e.Ops, split)
	}
	return t
}

// setTally sets the run's clock and additive results to t.
func (r *runner) setTally(t tally) {
	res := &r.res
	r.t = t[0]
	res.Bound.Compute, res.Bound.DRAM, res.Bound.Handoff = t[1], t[2], t[3]
	res.BytesDemanded, res.BytesMoved, res.ExpertOpS = t[4], t[5], t[6]
	res.Split.Ops = int(t[7] + 0.5)
	res.Split.OpS, res.Split.ImbalanceS, res.Split.HandoffS, res.Split.GraphSplitS = t[8], t[9], t[10], t[11]
	res.TokenOverheadS = t[12]
	res.Pool.Ops, res.Pool.StaticOps = int(t[13]+0.5), int(t[14]+0.5)
	res.Pool.ImbalanceS, res.Pool.DescheduledS, res.Bound.EngineCap = t[15], t[16], t[17]
	for i := range res.Engines {
		e := &res.Engines[i]
		v := t[tallyFixed+tallyPerEngine*i:]
		e.BusyS, e.HandoffS, e.Bytes, e.Ops = v[0], v[1], v[2], v[3]
		if res.Split.EngineS != nil {
			res.Split.EngineS[i] = v[4]
		}
	}
}

// opMemo remembers, in the token graphs of a run, the partitions and the
// timing of the ops already simulated, by the op's content (its name and
// layer aside): the same ops recur layer after layer and token after
// token, and a partition and its solve are pure functions of the op within
// a run, so a remembered answer is the same bit for bit. Attention's ops,
// which depend on the depth, are not remembered. A hash of the op picks
// the first entry to probe; when the probed entries are all taken, the
// first is replaced, which only costs a recomputation. Every token graph
// of a run is the same list of ops, so the entry an op was found in is
// kept by its index in the list, and the next token's lookup is an index
// (until an entry is replaced).
type opMemo struct {
	table   [64]int8 // hash table of indices into entries, -1 where empty
	entries []memoEntry
	slot    []int16 // by op index: its entry, or -1 before its first lookup
	broken  bool    // an entry was replaced: slot may point at another op's
}

const memoProbes = 8

type memoEntry struct {
	key   model.Op // Name and Layer cleared
	n     int      // partitions remembered; 0 for an empty entry
	parts [memoParts]part
	tm    timing // a main op's timing
	fixed bool   // a pool op divided in fixed slices (see poolParts)
	flows []flow // a split op's outcomes by start offsets (see splitFluid)
	next  int    // the flow to replace when maxFlows are remembered
}

// maxFlows is how many outcomes of one split op are remembered: one per
// pattern of wakes (spin or futex) its engines meet.
const maxFlows = 4

// flow is one outcome of a split op's partitions from given start offsets.
type flow struct {
	n             int
	working       [memoParts]bool
	starts        [memoParts]float64
	finish, stall [memoParts]float64
	capStall      [memoParts]float64
	bytes, peak   float64
}

func newOpMemo(ops int) *opMemo {
	m := &opMemo{slot: make([]int16, ops), entries: make([]memoEntry, 0, 24)}
	for i := range m.slot {
		m.slot[i] = -1
	}
	for i := range m.table {
		m.table[i] = -1
	}
	return m
}

// remembered returns the memo entry of op, the op at index r.opIndex of the
// token graph, and whether it holds op's outcome; an entry that does not is
// op's to fill. It is nil for an op that is not remembered.
func (r *runner) remembered(op *model.Op) (*memoEntry, bool) {
	m := r.tokenMemo
	if m == nil || op.Kind == model.AttentionScores {
		return nil, false
	}
	if !m.broken {
		if k := m.slot[r.opIndex]; k >= 0 {
			e := &m.entries[k]
			return e, e.n > 0
		}
	}
	k, ok := m.entry(op)
	m.slot[r.opIndex] = int16(k)
	return &m.entries[k], ok
}

// entry returns the index of op's entry and whether it holds op.
func (m *opMemo) entry(op *model.Op) (int, bool) {
	h := math.Float64bits(op.Ops)*0x9e3779b97f4a7c15 ^ math.Float64bits(op.ActBytes)*0xbf58476d1ce4e5b9 ^
		math.Float64bits(op.WeightBytes)*0x94d049bb133111eb
	key := *op
	key.Name, key.Layer = "", 0
	first := int(h >> 58)
	for i := 0; i < memoProbes; i++ {
		t := &m.table[(first+i)%len(m.table)]
		if *t < 0 {
			*t = int8(len(m.entries))
			m.entries = append(m.entries, memoEntry{key: key})
			return int(*t), false
		}
		if e := &m.entries[*t]; e.key == key {
			return int(*t), e.n > 0
		}
	}
	m.broken = true
	k := int(m.table[first])
	m.entries[k] = memoEntry{key: key}
	return k, false
}
