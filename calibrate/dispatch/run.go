package dispatch

import (
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/internal/quant"
	"github.com/blsim/blsim/model"
)

// TokenTile is how many tokens a dense matmul thread dots with each weight
// row before moving to the next row: a slice of weight rows is walked once
// per tile of 16 tokens.
const TokenTile = 16

// Config says what to run and where.
type Config struct {
	// Workload to run; Model.Run ignores it (the model's workload runs).
	Workload *model.Workload
	// Plan: mode (native, token, expert), engines (the first is the main
	// engine; a split uses exactly two), the second engine's fraction
	// Fracs[1], threads per engine and the pools' poll level 0..100.
	Plan model.Plan
	// CPUs maps each engine of the plan to its CPUs, one pinned thread per
	// CPU; the list must be as long as the plan's thread count for it.
	CPUs map[string][]int
	// Repeats is the number of timed runs of the whole prompt (0 means 1);
	// Warmup runs come first, untimed.
	Repeats, Warmup int
	// Seed drives the synthetic weights (package-level Run) and the router.
	Seed uint64
	// Checksum adds one untimed run after the timed ones that hashes every
	// matmul's and expert matmul's output into Result.Checksums.
	Checksum bool
}

// Result is what a Run measured.
type Result struct {
	// Samples is the wall time of the whole prompt (all ubatches, all ops)
	// per timed repeat.
	Samples []time.Duration
	// TPS is prompt tokens per second per repeat.
	TPS []float64
	// Tokens is the prompt length; Ops the number of ops run per repeat.
	Tokens, Ops int
	// WeightBytes is the size of the synthetic weights.
	WeightBytes int64
	// Checksums holds, with Config.Checksum, an FNV-1a hash of each op's
	// output in op order (0 for attention and scalar ops).
	Checksums []uint64
	// WorkerCPUs is, per engine of the plan, the CPU each worker thread was
	// running on (getcpu) at the end of the run.
	WorkerCPUs [][]int
	// ExpertTime is, per engine of the plan, the time from the start of each
	// expert op to the end of that engine's partition of it, summed over the
	// prompt's expert ops and averaged over the timed repeats: equal values
	// mean a balanced split.
	ExpertTime []time.Duration
	// Plan is the plan's label.
	Plan string
}

// MeanTPS is the mean of TPS.
func (r Result) MeanTPS() float64 {
	s := 0.0
	for _, v := range r.TPS {
		s += v
	}
	return s / float64(max(len(r.TPS), 1))
}

// Run allocates the workload's weights (NewModel with cfg.Seed) and runs it.
// To run several configurations over the same weights, use NewModel once
// and Model.Run.
func Run(cfg Config) (Result, error) {
	m, err := NewModel(cfg.Workload, cfg.Seed)
	if err != nil {
		return Result{}, err
	}
	return m.Run(cfg)
}

// engine is one partition: its pinned pool and its gather buffers.
type engine struct {
	name string
	cpus []int
	pool *probe.Pool
	g    acts      // gathered activations (expert split)
	gout []float32 // contiguous outputs (expert split)
}

// acts are rows of activations: quantised (qs blocks per row) and float
// (fs floats per row).
type acts struct {
	q      []quant.BlockQ8
	f      []float32
	qs, fs int
}

// step is one op of the prompt, resolved.
type step struct {
	op    model.Op
	t     *tensor
	parts [2]partition
}

type runner struct {
	m       *Model
	split   bool
	expertS bool
	eng     []*engine
	drv     *driver
	act     acts
	out     []float32
	scratch [][]float32
	topK    int
	steps   []step
	busy    [2]time.Duration // ExpertTime accumulators
	busyB   time.Duration    // written by the driver goroutine, read after Wait
}

// Run runs the model's workload under cfg.Plan: cfg.Warmup untimed and
// cfg.Repeats timed runs of the whole prompt. Runs of one Model are
// serialised.
func (m *Model) Run(cfg Config) (Result, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := cfg.Plan
	if err := checkPlan(p, cfg.CPUs); err != nil {
		return Result{}, err
	}
	if cfg.Repeats < 0 || cfg.Warmup < 0 {
		return Result{}, fmt.Errorf("dispatch: repeats %d and warmup %d must not be negative", cfg.Repeats, cfg.Warmup)
	}
	reps := max(cfg.Repeats, 1)
	r := &runner{m: m, split: p.Mode != model.Native, expertS: p.Mode == model.ExpertSplit, topK: m.w.Model.MoE.TopK}
	nEng := 1
	if r.split {
		nEng = 2
	}
	total := 0
	for i := range nEng {
		total += p.Threads[i]
	}
	if runtime.GOMAXPROCS(0) < total+1 {
		runtime.GOMAXPROCS(total + 1)
	}
	// As in ggml, a pool's first thread is the one that drives it: the
	// calling goroutine is the main engine's worker 0, pinned to its first
	// CPU for the run, and the driver is the second engine's worker 0. No
	// thread beyond the plan's competes with the workers for a core.
	if err := probe.Pin(cfg.CPUs[p.Engines[0]][0]); err != nil {
		return Result{}, fmt.Errorf("dispatch: engine %s: %w", p.Engines[0], err)
	}
	defer func() { _ = probe.Unpin() }()
	spins := p.Poll * probe.PollUnit
	for i := range nEng {
		name := p.Engines[i]
		pool, err := probe.NewCallerPool(cfg.CPUs[name], p.Poll)
		if err != nil {
			r.close()
			return Result{}, fmt.Errorf("dispatch: engine %s: %w", name, err)
		}
		e := &engine{name: name, cpus: append([]int(nil), cfg.CPUs[name]...), pool: pool}
		r.eng = append(r.eng, e)
		if i == 1 {
			if r.drv, err = newDriver(pool, spins); err != nil {
				pool.Close()
				r.close()
				return Result{}, fmt.Errorf("dispatch: engine %s: %w", name, err)
			}
		}
	}
	defer r.close()

	if !m.filled {
		r.fill()
		m.filled = true
	}
	r.prepare(cfg.Seed, p)

	// A garbage collection during a timed run would put the runtime's GC
	// workers on the cores the pinned workers use and stall the fork-join:
	// collect now, and not again until the run is over.
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	res := Result{Tokens: m.w.Run.PromptTokens, Ops: len(r.steps), WeightBytes: m.bytes, Plan: p.String()}
	for range cfg.Warmup {
		r.prompt(nil)
	}
	r.busy = [2]time.Duration{}
	for range reps {
		t0 := time.Now()
		r.prompt(nil)
		d := time.Since(t0)
		res.Samples = append(res.Samples, d)
		res.TPS = append(res.TPS, float64(res.Tokens)/d.Seconds())
	}
	for i := range r.eng {
		res.ExpertTime = append(res.ExpertTime, r.busy[i]/time.Duration(reps))
	}
	if cfg.Checksum {
		res.Checksums = make([]uint64, 0, len(r.steps))
		r.prompt(&res.Checksums)
	}
	res.WorkerCPUs = r.workerCPUs()
	return res, nil
}

func checkPlan(p model.Plan, cpus map[string][]int) error {
	switch p.Mode {
	case model.Native, model.TokenSplit, model.ExpertSplit:
	default:
		return fmt.Errorf("dispatch: unknown split mode %q (want native, token or expert)", p.Mode)
	}
	need := 1
	if p.Mode != model.Native {
		need = 2
		if len(p.Engines) != 2 {
			return fmt.Errorf("dispatch: a %s split needs exactly 2 engines, the plan has %d", p.Mode, len(p.Engines))
		}
		if len(p.Fracs) != 2 {
			return fmt.Errorf("dispatch: a %s split needs 2 fractions, the plan has %d", p.Mode, len(p.Fracs))
		}
		f := p.Fracs[1]
		if math.IsNaN(f) || f < 0 || f > 1 || math.Abs(p.Fracs[0]+f-1) > 1e-9 {
			return fmt.Errorf("dispatch: fractions %v: want two shares in [0,1] summing to 1", p.Fracs)
		}
	}
	if len(p.Engines) < need {
		return fmt.Errorf("dispatch: the plan has no engines")
	}
	if len(p.Threads) < need {
		return fmt.Errorf("dispatch: the plan has %d engines but %d thread counts", len(p.Engines), len(p.Threads))
	}
	if p.Poll < 0 || p.Poll > 100 {
		return fmt.Errorf("dispatch: poll %d outside 0..100", p.Poll)
	}
	used := map[int]string{}
	for i := range need {
		name := p.Engines[i]
		c, ok := cpus[name]
		if !ok {
			return fmt.Errorf("dispatch: no CPUs given for engine %q", name)
		}
		if len(c) != p.Threads[i] || len(c) == 0 {
			return fmt.Errorf("dispatch: engine %q: %d threads in the plan but %d CPUs given", name, p.Threads[i], len(c))
		}
		for _, x := range c {
			if o, dup := used[x]; dup {
				return fmt.Errorf("dispatch: cpu %d given to engine %q and to engine %q", x, o, name)
			}
			used[x] = name
		}
	}
	return nil
}

func (r *runner) close() {
	if r.drv != nil {
		r.drv.Close() // closes the second pool
	}
	if len(r.eng) > 0 {
		r.eng[0].pool.Close()
	}
}

// span is worker w's share [lo, hi) of n items among nw workers.
func span(n, w, nw int) (int, int) { return n * w / nw, n * (w + 1) / nw }

// fill writes the weights with the main engine's threads, each the rows it
// reads in a native run, so their pages are first touched there.
func (r *runner) fill() {
	m := r.m
	nw := r.eng[0].pool.Size()
	r.eng[0].pool.Run(func(w int) {
		for _, t := range m.list {
			lo, hi := span(t.rows, w, nw)
			for e := range t.count {
				t.fillRows(m.seed, e, lo, hi)
			}
		}
	})
}

// prepare builds the activations, output and scratch buffers, the routes
// and every engine's share of each expert op.
func (r *runner) prepare(seed uint64, p model.Plan) {
	m := r.m
	w := m.w
	n := min(w.Run.Ubatch, w.Run.PromptTokens)
	K := r.topK
	qs := (m.maxIn + quant.QK - 1) / quant.QK // rows padded to whole blocks
	r.act = acts{qs: qs, fs: qs * quant.QK}
	r.act.f = make([]float32, n*r.act.fs)
	g := newRNG(mix(seed, 0x616374))
	for i := range r.act.f {
		r.act.f[i] = g.float()
	}
	r.act.q = make([]quant.BlockQ8, n*r.act.qs)
	quant.QuantizeQ8(r.act.q, r.act.f)
	r.out = make([]float32, n*max(K, 1)*m.maxOut)
	main := r.eng[0].pool.Size()
	r.scratch = make([][]float32, main)
	r.eng[0].pool.Run(func(w int) {
		s := make([]float32, 4096)
		for i := range s {
			s[i] = float32(i%97) / 97
		}
		r.scratch[w] = s
	})
	for i, e := range r.eng {
		if i == 1 || r.expertS {
			e.g = acts{q: make([]quant.BlockQ8, len(r.act.q)*K), f: make([]float32, len(r.act.f)*K), qs: r.act.qs, fs: r.act.fs}
			e.gout = make([]float32, len(r.out))
		}
	}
	frac := 0.0
	if r.split {
		frac = p.Fracs[1]
	}
	E := w.Model.MoE.Experts
	r.steps = r.steps[:0]
	for u := range w.Run.Ubatches() {
		var groups [][]int32
		groupLayer := -2
		for _, o := range w.Ops(u) {
			s := step{op: o, t: m.tensors[o.Name]}
			if o.Kind == model.ExpertMatmul {
				if o.Layer != groupLayer {
					groups = bySlot(Route(seed, u, o.Layer, o.Tokens, E, K), E)
					groupLayer = o.Layer
				}
				switch {
				case !r.split:
					s.parts[0] = tokenPartition(groups, K, 0, o.Tokens)
				case r.expertS:
					e0 := int(math.Round(float64(E) * (1 - frac)))
					s.parts[0] = expertPartition(groups, 0, e0)
					s.parts[1] = expertPartition(groups, e0, E)
				default:
					n0 := int(math.Round(float64(o.Tokens) * (1 - frac)))
					s.parts[0] = tokenPartition(groups, K, 0, n0)
					s.parts[1] = tokenPartition(groups, K, n0, o.Tokens)
				}
			}
			r.steps = append(r.steps, s)
		}
	}
}

// prompt runs every op of the prompt once; with sums, it appends a hash of
// each op's output.
func (r *runner) prompt(sums *[]uint64) {
	for i := range r.steps {
		s := &r.steps[i]
		r.exec(s)
		if sums != nil {
			*sums = append(*sums, r.hash(s))
		}
	}
}

func (r *runner) exec(s *step) {
	a := r.eng[0].pool
	nw := a.Size()
	switch s.op.Kind {
	case model.Matmul:
		a.Run(func(w int) { r.matmul(s, w, nw) })
	case model.ExpertMatmul:
		t0 := time.Now()
		if r.drv != nil {
			r.drv.Start(func(p *probe.Pool) { r.experts(s, 1, p); r.busyB = time.Since(t0) })
			r.experts(s, 0, a)
			r.busy[0] += time.Since(t0)
			r.drv.Wait()
			r.busy[1] += r.busyB
			return
		}
		r.experts(s, 0, a)
		r.busy[0] += time.Since(t0)
	default:
		a.Run(func(w int) { r.scalar(s, w, nw) })
	}
}

// dot is weight row row of t (over all experts) dotted with row i of x.
func dot(t *tensor, row int, x *acts, i int) float32 {
	switch t.kind {
	case kindQ4:
		return quant.DotQ4Q8(t.q4[row*t.nb:(row+1)*t.nb], x.q[i*x.qs:i*x.qs+t.nb])
	case kindQ8:
		return quant.DotQ8Q8(t.q8[row*t.nb:(row+1)*t.nb], x.q[i*x.qs:i*x.qs+t.nb])
	}
	return quant.DotF32(t.f[row*t.in:(row+1)*t.in], x.f[i*x.fs:i*x.fs+t.in])
}

// matmul is worker w's static slice of output rows, token tile by tile.
func (r *runner) matmul(s *step, w, nw int) {
	t, n := s.t, s.op.Tokens
	lo, hi := span(t.rows, w, nw)
	out := r.out
	for t0 := 0; t0 < n; t0 += TokenTile {
		t1 := min(n, t0+TokenTile)
		for row := lo; row < hi; row++ {
			for tok := t0; tok < t1; tok++ {
				out[tok*t.rows+row] = dot(t, row, &r.act, tok)
			}
		}
	}
}

// experts runs engine e's partition of an expert op on pool p.
func (r *runner) experts(s *step, e int, p *probe.Pool) {
	part := &s.parts[e]
	nw := p.Size()
	t, K := s.t, r.topK
	if !r.expertS {
		// Direct: one gemv per routed token over the worker's row slice.
		p.Run(func(w int) {
			lo, hi := span(t.rows, w, nw)
			for _, ew := range part.work {
				base := ew.expert * t.rows
				for _, slot := range ew.slots {
					tok := int(slot) / K
					o := r.out[int(slot)*t.rows : int(slot+1)*t.rows]
					for row := lo; row < hi; row++ {
						o[row] = dot(t, base+row, &r.act, tok)
					}
				}
			}
		})
		return
	}
	eng := r.eng[e]
	g := &eng.g
	quant := t.kind != kindF32
	// Gather the routed tokens' activations, expert by expert.
	p.Run(func(w int) {
		for _, ew := range part.work {
			lo, hi := span(len(ew.slots), w, nw)
			for i := lo; i < hi; i++ {
				j, tok := ew.base+i, int(ew.slots[i])/K
				if quant {
					copy(g.q[j*g.qs:j*g.qs+t.nb], r.act.q[tok*r.act.qs:tok*r.act.qs+t.nb])
				} else {
					copy(g.f[j*g.fs:j*g.fs+t.in], r.act.f[tok*r.act.fs:tok*r.act.fs+t.in])
				}
			}
		}
	})
	// Compute into the contiguous output.
	p.Run(func(w int) {
		lo, hi := span(t.rows, w, nw)
		for _, ew := range part.work {
			base := ew.expert * t.rows
			for i := range ew.slots {
				j := ew.base + i
				o := eng.gout[j*t.rows : (j+1)*t.rows]
				for row := lo; row < hi; row++ {
					o[row] = dot(t, base+row, g, j)
				}
			}
		}
	})
	// Scatter the results back to their (token, choice) slots.
	p.Run(func(w int) {
		for _, ew := range part.work {
			lo, hi := span(len(ew.slots), w, nw)
			for i := lo; i < hi; i++ {
				j, slot := ew.base+i, int(ew.slots[i])
				copy(r.out[slot*t.rows:(slot+1)*t.rows], eng.gout[j*t.rows:(j+1)*t.rows])
			}
		}
	})
}

// scalar does worker w's share of about op.Ops float32 operations (a
// multiply and an add per element) over its in-cache scratch buffer.
func (r *runner) scalar(s *step, w, nw int) {
	buf := r.scratch[w]
	x, y := buf[:len(buf)/2], buf[len(buf)/2:]
	elems := int64(s.op.Ops/2) / int64(nw)
	for elems > 0 {
		k := min(int64(len(y)), elems)
		yy, xx := y[:k], x[:k]
		for i := range yy {
			yy[i] = yy[i]*0.5 + xx[i]
		}
		elems -= k
	}
}

// hash is an FNV-1a hash of the op's output, 0 for ops without one.
func (r *runner) hash(s *step) uint64 {
	var n int
	switch s.op.Kind {
	case model.Matmul:
		n = s.op.Tokens * s.t.rows
	case model.ExpertMatmul:
		n = s.op.Tokens * r.topK * s.t.rows
	default:
		return 0
	}
	h := fnv.New64a()
	var b [4]byte
	for _, v := range r.out[:n] {
		u := math.Float32bits(v)
		b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
		h.Write(b[:])
	}
	return h.Sum64()
}

// workerCPUs asks every worker which CPU it runs on.
func (r *runner) workerCPUs() [][]int {
	out := make([][]int, len(r.eng))
	for i, e := range r.eng {
		cpus := make([]int, e.pool.Size())
		get := func(p *probe.Pool) {
			p.Run(func(w int) {
				c, err := probe.CurrentCPU()
				if err != nil {
					c = -1
				}
				cpus[w] = c
			})
		}
		if i == 1 {
			r.drv.Start(get)
			r.drv.Wait()
		} else {
			get(e.pool)
		}
		out[i] = cpus
	}
	return out
}
