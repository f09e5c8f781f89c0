package sim

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/blsim/blsim/model"
)

// simulations counts every simulated run of this process (Simulations).
var simulations atomic.Int64

// Simulations is how many runs this process has simulated so far, by
// Run and every Evaluator: what a benchmark counts to show that a
// prediction does not repeat work.
func Simulations() int64 { return simulations.Load() }

// Evaluator predicts plans of one workload on one SoC and on the SoC's
// perturbed copies (its parameters at ±σ for a first-order interval, or
// random draws for a Monte Carlo one: Method), doing each piece of work
// once: it builds the workload's op graphs once, validates each plan once
// (against the SoC; a perturbed copy changes numbers, not engines),
// simulates each plan once on the SoC and once on each perturbed copy
// (native is simulated once per copy however many intervals it is the
// base of), and remembers every result. Best,
// BestN, Balance, Interval, Sweep and Sensitivity are its methods, so the
// views of one prediction share its simulations.
//
// An Evaluator is safe for concurrent use. Its results are shared: read
// them, do not change them.
type Evaluator struct {
	soc   *model.SoC
	wl    *model.Workload
	g     *graphs
	draws int

	drawOnce sync.Once
	// variants are the perturbed SoCs, made on first use: with draws 0
	// (first-order) the pairs +σ, −σ of each uncertain parameter in the
	// order of paths; else the random draws.
	variants []*model.SoC
	paths    []string // the uncertain parameters, sorted
	// mains are main-engine op timings (mainmemo.go): of the SoC, and of
	// each variant.
	mains     *mainMemo
	drawMains []*mainMemo
	// perDraw: the uncertainty changes an engine's cores, so a plan is
	// checked against each variant too.
	perDraw bool

	base    memo[*Result]   // plan key: result on soc
	drawTPS memo[[]float64] // plan key: t/s on each variant
	checked memo[struct{}]  // plan key: validated (on soc, and each draw when perDraw)
	runs    atomic.Int64
}

// NewEvaluator is an evaluator of workload w on SoC s whose intervals
// take draws random parameter samples (Monte Carlo), or with draws 0 are
// first-order (FirstOrder: each uncertain parameter at ±σ).
func NewEvaluator(s *model.SoC, w *model.Workload, draws int) *Evaluator {
	draws = max(draws, 0)
	e := &Evaluator{soc: s, wl: w, draws: draws, g: buildGraphs(w), mains: newMainMemo()}
	for p := range s.Uncertainty {
		e.perDraw = e.perDraw || strings.HasSuffix(p, ".cores")
	}
	return e
}

// For is an evaluator of the same workload, with the same method, on SoC
// s (a what-if variant): it shares e's op graphs, built once.
func (e *Evaluator) For(s *model.SoC) *Evaluator {
	f := &Evaluator{soc: s, wl: e.wl, draws: e.draws, g: e.g, mains: newMainMemo()}
	for p := range s.Uncertainty {
		f.perDraw = f.perDraw || strings.HasSuffix(p, ".cores")
	}
	return f
}

// planKey identifies a plan: every field that changes its simulation.
func planKey(p model.Plan) string {
	fr := p.Fracs
	if p.Mode == model.Native || p.Mode == model.PoolPlan {
		fr = nil
	}
	return fmt.Sprintf("%s|%v|%v|%v|%d|%v", p.Mode, p.Engines, fr, p.Threads, p.Poll, p.BusyCores)
}

// check validates p: once for its engines, threads, poll and which
// engines take a share (against the SoC, and each draw when the
// uncertainty can change an engine's cores), and its shares' sum each
// time (a search tries many).
func (e *Evaluator) check(p model.Plan) error {
	if p.Mode.IsSplit() {
		sum := 0.0
		for _, f := range p.Fracs {
			if !(f >= 0 && f <= 1) {
				return fmt.Errorf("soc %s: plan: fraction %g outside [0,1]", e.soc.Name, f)
			}
			sum += f
		}
		if len(p.Fracs) == len(p.Engines) && math.Abs(sum-1) > 1e-9 {
			return fmt.Errorf("soc %s: plan: fractions sum to %g, not 1", e.soc.Name, sum)
		}
	}
	q := p
	if p.Mode.IsSplit() {
		// Which engines take a share, not how much: what Validate checks
		// beyond the sum.
		q.Fracs = make([]float64, len(p.Fracs))
		for i, f := range p.Fracs {
			if f > 0 {
				q.Fracs[i] = 1
			}
		}
	}
	_, err := e.checked.get(planKey(q), func() (struct{}, error) {
		if err := p.Validate(e.soc); err != nil {
			return struct{}{}, fmt.Errorf("soc %s: %w", e.soc.Name, err)
		}
		if err := checkTokenSplit(e.wl.Run, p); err != nil {
			return struct{}{}, err
		}
		if e.perDraw {
			for d, v := range e.drawSoCs() {
				if err := p.Validate(v); err != nil {
					return struct{}{}, fmt.Errorf("soc %s, %s: %w", e.soc.Name, e.variantName(d), err)
				}
			}
		}
		return struct{}{}, nil
	})
	return err
}

// simulate runs a checked plan on s (the SoC or one of its draws), with
// the main-op timings of s (mains) already solved.
func (e *Evaluator) simulate(s *model.SoC, mains *mainMemo, p model.Plan, o Options) *Result {
	e.runs.Add(1)
	simulations.Add(1)
	return simulate(s, e.wl, p, o, e.g, mains)
}

// Run predicts plan p on the SoC; a plan run before is not run again.
func (e *Evaluator) Run(p model.Plan) (*Result, error) {
	if err := e.check(p); err != nil {
		return nil, err
	}
	return e.base.get(planKey(p), func() (*Result, error) { return e.simulate(e.soc, e.mains, p, Options{}), nil })
}

// Adopt makes r plan p's result on e's SoC without simulating it, for a
// caller that knows p runs the same on e's SoC as on the SoC r was run on
// (a what-if variant that changes only an engine p gives no work). p is
// checked as Run checks it; a plan run or adopted before keeps the result
// it has.
func (e *Evaluator) Adopt(p model.Plan, r *Result) error {
	if r == nil {
		return fmt.Errorf("soc %s: plan %s: no result to adopt", e.soc.Name, p)
	}
	if err := e.check(p); err != nil {
		return err
	}
	_, err := e.base.get(planKey(p), func() (*Result, error) { return r, nil })
	return err
}

// RunWith is Run with options; a run with a timeline is not remembered.
func (e *Evaluator) RunWith(p model.Plan, o Options) (*Result, error) {
	if o == (Options{}) {
		return e.Run(p)
	}
	if err := e.check(p); err != nil {
		return nil, err
	}
	return e.simulate(e.soc, e.mains, p, o), nil
}

// Sweep runs every plan on the SoC, on all cores, and returns the results
// in the order given.
func (e *Evaluator) Sweep(plans []model.Plan) ([]*Result, error) {
	out := make([]*Result, len(plans))
	err := parallel(len(plans), func(i int) error {
		var err error
		out[i], err = e.Run(plans[i])
		return err
	})
	return out, err
}

// Method is how e's intervals are made: FirstOrder (draws 0) or
// MonteCarlo; None when the SoC has no uncertainty.
func (e *Evaluator) Method() IntervalMethod {
	switch {
	case len(e.soc.Uncertainty) == 0:
		return None
	case e.draws == 0:
		return FirstOrder
	}
	return MonteCarlo
}

// Variants is how many perturbed SoCs each plan is simulated on for its
// interval: two per uncertain parameter (first-order), the draws (Monte
// Carlo), or 0 with no uncertainty.
func (e *Evaluator) Variants() int {
	switch e.Method() {
	case FirstOrder:
		return 2 * len(e.soc.Uncertainty)
	case MonteCarlo:
		return e.draws
	}
	return 0
}

// variantName names perturbed SoC d in an error.
func (e *Evaluator) variantName(d int) string {
	if e.draws == 0 {
		sign := "+"
		if d%2 == 1 {
			sign = "-"
		}
		return fmt.Sprintf("%s at %sσ", e.paths[d/2], sign)
	}
	return fmt.Sprintf("parameter draw %d", d)
}

// drawSoCs are the SoC's perturbed copies, each built once. The uncertain
// parameters are independent normals with the profile's standard
// deviations, a value truncated at 5% of the parameter's. First-order
// (draws 0): each parameter at +σ and at −σ, the others at their values.
// Monte Carlo: every parameter drawn, each from a stream seeded by its
// path, so that a parameter made uncertain leaves the others' draws as
// they were. None when the SoC has no uncertainty.
func (e *Evaluator) drawSoCs() []*model.SoC {
	e.drawOnce.Do(func() {
		s := e.soc
		if len(s.Uncertainty) == 0 {
			return
		}
		for p := range s.Uncertainty {
			e.paths = append(e.paths, p)
		}
		sort.Strings(e.paths)
		set := func(v *model.SoC, p string, dev float64) {
			x, _ := v.Get(p)
			_ = v.SetWithTypes(p, math.Max(x+dev, x*0.05))
		}
		add := func(v *model.SoC) {
			e.variants = append(e.variants, v)
			e.drawMains = append(e.drawMains, newMainMemo())
		}
		if e.draws == 0 {
			for _, p := range e.paths {
				for _, sign := range []float64{1, -1} {
					v := s.Clone()
					set(v, p, sign*s.Uncertainty[p])
					add(v)
				}
			}
			return
		}
		streams := make([]*rand.Rand, len(e.paths))
		for i, p := range e.paths {
			h := fnv.New64a()
			h.Write([]byte(p))
			streams[i] = rand.New(rand.NewPCG(0x62_6c_73_69_6d^h.Sum64(), uint64(e.draws)))
		}
		for d := 0; d < e.draws; d++ {
			v := s.Clone()
			for i, p := range e.paths {
				set(v, p, streams[i].NormFloat64()*s.Uncertainty[p])
			}
			add(v)
		}
	})
	return e.variants
}

// DrawTPS is plan p's t/s on each perturbed SoC (drawSoCs; nil when the
// SoC has no uncertainty); each plan is simulated once on each.
func (e *Evaluator) DrawTPS(p model.Plan) ([]float64, error) {
	if err := e.check(p); err != nil {
		return nil, err
	}
	return e.drawTPS.get(planKey(p), func() ([]float64, error) {
		vs := e.drawSoCs()
		if len(vs) == 0 {
			return nil, nil
		}
		out := make([]float64, len(vs))
		err := parallel(len(vs), func(d int) error {
			out[d] = e.simulate(vs[d], e.drawMains[d], p, Options{}).TPS
			return nil
		})
		return out, err
	})
}

// Interval is the 90% interval of plan's gain over base (native, or any
// plan) from the SoC's uncertainty. First-order (FirstOrder): the
// point gain less and plus z90 times the root sum of squares of each
// parameter's larger downward and larger upward move of the gain at ±σ.
// Monte Carlo: the central 90% of the draws' gains. With no uncertainty
// it is the point gain.
func (e *Evaluator) Interval(base, plan model.Plan) (Interval, error) {
	m := e.Method()
	var g float64 // the point gain, which Monte Carlo does not use
	if m != MonteCarlo {
		r0, err := e.Run(base)
		if err != nil {
			return Interval{}, err
		}
		r1, err := e.Run(plan)
		if err != nil {
			return Interval{}, err
		}
		g = GainPct(r1.TPS, r0.TPS)
	}
	if m == None {
		return Interval{LoPct: g, HiPct: g, Method: m}, nil
	}
	t0, err := e.DrawTPS(base)
	if err != nil {
		return Interval{}, err
	}
	t1, err := e.DrawTPS(plan)
	if err != nil {
		return Interval{}, err
	}
	gains := make([]float64, len(t0))
	for d := range gains {
		gains[d] = GainPct(t1[d], t0[d])
	}
	lo, hi := spread(m, g, gains)
	return Interval{LoPct: lo, HiPct: hi, Method: m, Draws: len(gains)}, nil
}

// parallel calls f(0..n-1) on all cores and returns the first error by
// index.
func parallel(n int, f func(i int) error) error {
	errs := make([]error, n)
	workers := min(runtime.GOMAXPROCS(0), n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				errs[i] = f(i)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// memo remembers a value per key, computing each once even when asked
// for it concurrently.
type memo[T any] struct {
	mu sync.Mutex
	m  map[string]*memoCell[T]
}

type memoCell[T any] struct {
	once sync.Once
	v    T
	err  error
}

func (m *memo[T]) get(key string, f func() (T, error)) (T, error) {
	m.mu.Lock()
	if m.m == nil {
		m.m = map[string]*memoCell[T]{}
	}
	c, ok := m.m[key]
	if !ok {
		c = &memoCell[T]{}
		m.m[key] = c
	}
	m.mu.Unlock()
	c.once.Do(func() { c.v, c.err = f() })
	return c.v, c.err
}
