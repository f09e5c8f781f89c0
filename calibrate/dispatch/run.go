package dispatch

import (
	"fmt"
	"hash/fnv"
	"math"
	"runtime"
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
	// Run, when set, replaces the workload's test (prompt length, ubatch,
	// depth): one Model's weights serve prompts of any shape.
	Run *model.Run
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
	// Wakes is, per engine of the plan, how many times its pool was woken
	// to run an op (its partition of an expert op, or a dense op on the
	// main engine), summed over the timed repeats. An engine whose
	// partition of an expert op has no whole unit (token or expert) is not
	// woken for it, as the simulator charges it (sim's runner.cut).
	Wakes []int
	// Plan is the plan's label.
	Plan string
	// Allocs is the number of heap allocations during the timed repeats,
	// all goroutines together: 0 when the hot loop allocates nothing.
	Allocs uint64
}

// engine is one partition: its pinned pool, its barrier and chunk
// counters, and its gather buffers.
type engine struct {
	name string
	cpus []int
	pool *probe.Pool
	bar  barrier
	mm   counter   // dense matmul chunks
	ctr  []counter // expert op chunks, one per expert of the partition
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
	// gather: an expert split whose engines both have experts gathers
	// each engine's tokens into its own buffer (expertWorker).
	gather bool
}

type runner struct {
	m       *Model
	w       *model.Workload // the workload with this Run's test
	split   bool
	expertS bool
	eng     []*engine
	drv     *driver
	act     acts
	out     []float32
	float   []*floatWork // the main pool's workers' float operands
	topK    int
	steps   []step
	busy    [2]time.Duration // ExpertTime accumulators
	busyB   time.Duration    // written by the driver goroutine, read after Wait
	wakes   [2]int           // Wakes accumulators

	// The op being run and the functions the pools run (see bind).
	cur       *step
	t0        time.Time
	fnMatmul  func(int)
	fnScalar  func(int)
	fnExperts [2]func(int)
	fnDrive   func(*probe.Pool)
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
	wl, err := m.withRun(cfg.Run)
	if err != nil {
		return Result{}, err
	}
	r := &runner{m: m, w: wl, split: p.Mode != model.Native, expertS: p.Mode == model.ExpertSplit, topK: m.w.Model.MoE.TopK}
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
		e := &engine{name: name, cpus: append([]int(nil), cfg.CPUs[name]...), pool: pool,
			bar: barrier{n: int32(pool.Size())}, ctr: make([]counter, max(wl.Model.MoE.Experts, 1))}
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
	if err := r.prepare(cfg.Seed, p); err != nil {
		return Result{}, err
	}
	r.bind()

	// A garbage collection during a timed run would put the runtime's GC
	// workers on the cores the pinned workers use and stall the fork-join:
	// collect now, and not again until the run is over.
	defer holdGC()()
	res := Result{Tokens: wl.Run.PromptTokens, Ops: len(r.steps), WeightBytes: m.bytes, Plan: p.String()}
	for range cfg.Warmup {
		r.prompt(nil)
	}
	r.busy, r.wakes = [2]time.Duration{}, [2]int{}
	res.Samples, res.TPS = make([]time.Duration, 0, reps), make([]float64, 0, reps)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	allocs := ms.Mallocs
	for range reps {
		t0 := time.Now()
		r.prompt(nil)
		d := time.Since(t0)
		res.Samples = append(res.Samples, d)
		res.TPS = append(res.TPS, float64(res.Tokens)/d.Seconds())
	}
	runtime.ReadMemStats(&ms)
	res.Allocs = ms.Mallocs - allocs
	for i := range r.eng {
		res.ExpertTime = append(res.ExpertTime, r.busy[i]/time.Duration(reps))
		res.Wakes = append(res.Wakes, r.wakes[i])
	}
	if cfg.Checksum {
		res.Checksums = make([]uint64, 0, len(r.steps))
		r.prompt(&res.Checksums)
	}
	res.WorkerCPUs = r.workerCPUs()
	return res, nil
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
