package model

import (
	"fmt"

	"github.com/blsim/blsim/parts"
)

// SMT: a core with simultaneous multithreading (Hyper-Threading) runs
// smt_ways hardware threads that share its pipes, its L1 and L2 and its
// DRAM streams (its line-fill buffers). A pool thread on a core's second
// hardware thread, beside another thread of the pool, adds what the core
// had left idle: a yield per op kind (SMTYield), a share of one thread's
// rate on that core. A compute-bound kernel that already fills the
// core's SIMD pipes gains about nothing; latency-bound scalar code gains
// most; a DRAM stream gains what the shared fill buffers allow.

// SMTYield is what a core's second hardware thread adds, as a share of
// one thread's rate on that core, by op kind: 0 adds nothing (the two
// threads together run as one), 1 doubles the core; a negative yield is a
// loss (the two threads together run slower than one).
type SMTYield struct {
	// Matmul is for the matrix products and MUL_MAT_ID (the quantized
	// dot kernels).
	Matmul float64 `yaml:"matmul"`
	// Attention is for the attention scores and their products.
	Attention float64 `yaml:"attention"`
	// Scalar is for the element-wise and reduction ops (norms, softmax,
	// RoPE, activations, the recurrences).
	Scalar float64 `yaml:"scalar"`
	// DRAM is for a core's DRAM stream: what the second thread adds to
	// what one thread of the core pulls (bandwidth_per_thread_gb_s).
	DRAM float64 `yaml:"dram"`
}

// SMTYieldRange bounds every SMT yield: from a second thread that halves
// the core to one that doubles it (parts.SMTYieldRange, which a core part
// is held to too).
var SMTYieldRange = parts.SMTYieldRange

// smtYieldKeys are SMTYield's YAML keys, in order: the one list, in
// parts (below model), that a core part's smt_yield is checked against.
var smtYieldKeys = parts.SMTYieldKeys

// field is the yield named by key (one of smtYieldKeys), nil for another.
func (y *SMTYield) field(key string) *float64 {
	switch key {
	case "matmul":
		return &y.Matmul
	case "attention":
		return &y.Attention
	case "scalar":
		return &y.Scalar
	case "dram":
		return &y.DRAM
	}
	return nil
}

// Of is the compute yield of op kind k.
func (y *SMTYield) Of(k OpKind) float64 {
	if y == nil {
		return 0
	}
	switch k {
	case Matmul, ExpertMatmul:
		return y.Matmul
	case AttentionScores:
		return y.Attention
	}
	return y.Scalar
}

// Ways is the hardware threads of each of e's cores (SMTWays, at least 1).
func (e *Engine) Ways() int { return max(1, e.SMTWays) }

// HWThreads is e's hardware threads: its cores times their ways.
func (e *Engine) HWThreads() int { return e.Cores * e.Ways() }

// DefaultSiblings is how many of threads pool threads on e sit on a
// core's second (or later) hardware thread beside another pool thread
// when the OS places them: none while they fit the cores (the scheduler
// spreads threads over idle cores before their siblings), then one more a
// thread, up to the hardware threads.
func (e *Engine) DefaultSiblings(threads int) int {
	return max(0, min(threads, e.HWThreads())-e.Cores)
}

// Siblings is how many of the plan's threads on engine i (e) sit on a
// sibling hardware thread: the plan's SMT count, or e's DefaultSiblings.
func (p Plan) Siblings(i int, e *Engine) int {
	if i < len(p.SMT) {
		return p.SMT[i]
	}
	return e.DefaultSiblings(p.Threads[i])
}

// SMTCores is the cores' worth of running threads that threads pool
// threads on e give for work of yield y, siblings of them on sibling
// hardware threads of cores the pool also runs on and busy hardware
// threads of e running something else (which fill e's idle cores first,
// then sit beside pool threads as siblings do). Where the threads and the
// busy ones fit the cores without siblings it is threads, as without SMT.
//
// A core running k threads runs them at 1+(k-1)y of one thread in all,
// each at (1+(k-1)y)/k. Work divided in fixed slices, one a thread, ends
// with the slowest thread: threads times the slowest thread's speed.
// Work claimed in chunks goes at the sum of the threads' speeds.
//
// Only for threads+busy within e's hardware threads; beyond them the
// scheduler time-slices (RunningCores).
func (e *Engine) SMTCores(threads, siblings, busy int, y float64, fixed bool) float64 {
	used := threads - siblings // cores with a pool thread
	if used <= 0 {
		return 0
	}
	// Busy tasks take the idle cores first, then pair with pool threads
	// that are alone on their core.
	paired := min(max(0, busy-(e.Cores-used)), used-siblings)
	if siblings == 0 && paired == 0 {
		return float64(threads)
	}
	if fixed {
		k := (threads + used - 1) / used // the most threads on one core
		if paired > 0 {
			k = max(k, 2)
		}
		return float64(threads) * (1 + float64(k-1)*y) / float64(k)
	}
	return float64(used-paired) + float64(siblings)*y + float64(paired)*(1+y)/2
}

// CoreSet is how many of an engine's cores a pool may run on, and how
// many hardware threads (ways) of each.
type CoreSet struct {
	Cores int `json:"cores"`
	Ways  int `json:"ways"`
}

// PoolEngine is engine e (the plan's engine i) as a pool plan's threads
// see it: with the cores and ways of the plan's Allowed, where it narrows
// them (a --cpu-mask or a CPU set); e itself otherwise.
func (p Plan) PoolEngine(i int, e *Engine) *Engine {
	if i >= len(p.Allowed) {
		return e
	}
	a := p.Allowed[i]
	if a.Cores == e.Cores && a.Ways == e.Ways() {
		return e
	}
	c := *e
	c.Cores, c.SMTWays = a.Cores, a.Ways
	return &c
}

// checkAllowed checks a pool plan's allowed cores against its engines.
func (p Plan) checkAllowed(engines []*Engine) error {
	if p.Allowed == nil {
		return nil
	}
	if len(p.Allowed) != len(p.Engines) {
		return fmt.Errorf("plan: %d engines but %d allowed core sets", len(p.Engines), len(p.Allowed))
	}
	for i, e := range engines {
		a := p.Allowed[i]
		if a.Cores < 1 || a.Cores > e.Cores || a.Ways < 1 || a.Ways > e.Ways() {
			return fmt.Errorf("plan: engine %q: %d cores of %d ways allowed, but it has %d of %d", e.Name, a.Cores, a.Ways, e.Cores, e.Ways())
		}
	}
	return nil
}

// checkSMT checks a pool plan's sibling counts against its engines.
func (p Plan) checkSMT(engines []*Engine) error {
	if p.SMT == nil {
		return nil
	}
	if len(p.SMT) != len(p.Engines) {
		return fmt.Errorf("plan: %d engines but %d sibling counts", len(p.Engines), len(p.SMT))
	}
	for i, e := range engines {
		s, t := p.SMT[i], p.Threads[i]
		switch {
		case s < 0:
			return fmt.Errorf("plan: engine %q: %d threads on siblings", e.Name, s)
		case s > 0 && e.Ways() < 2:
			return fmt.Errorf("plan: engine %q: %d threads on siblings, but its cores have no SMT (smt_ways 1)", e.Name, s)
		case t > e.HWThreads():
			if s != e.Cores*(e.Ways()-1) {
				return fmt.Errorf("plan: engine %q: %d threads on %d hardware threads fill every sibling (%d), not %d", e.Name, t, e.HWThreads(), e.Cores*(e.Ways()-1), s)
			}
		case t-s > e.Cores:
			return fmt.Errorf("plan: engine %q: %d threads with %d on siblings need %d cores; it has %d", e.Name, t, s, t-s, e.Cores)
		case s > (t-s)*(e.Ways()-1):
			return fmt.Errorf("plan: engine %q: %d threads on siblings of %d cores: at most %d (smt_ways %d)", e.Name, s, t-s, (t-s)*(e.Ways()-1), e.Ways())
		}
	}
	return nil
}

// smtYield checks an engine's SMT yields (path prefix p).
func (c *checker) smtYield(p string, e *Engine) {
	if e.SMTYield == nil {
		return
	}
	if e.IsAccelerator() {
		c.fail(p+"smt_yield", "only for CPU clusters")
		return
	}
	for _, k := range smtYieldKeys {
		v := *e.SMTYield.field(k)
		if !finite(v) || v < SMTYieldRange[0] || v > SMTYieldRange[1] {
			c.fail(p+"smt_yield."+k, "%g is outside [%g, %g] (a second hardware thread's share of one thread's rate)", v, SMTYieldRange[0], SMTYieldRange[1])
		}
	}
}
