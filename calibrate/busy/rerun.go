package busy

import (
	"cmp"
	"time"

	"github.com/blsim/blsim/measure"
)

// Defaults of Policy.
const (
	// DefaultMaxReruns is how many more times a disturbed run is run.
	DefaultMaxReruns = 2
	// DefaultWait is the longest wait for a quiet moment before a re-run:
	// a load that does not pause for that long will disturb the re-run too.
	DefaultWait = time.Second
	// DefaultBudgetShare is the share of the time spent measuring that
	// re-runs and the waits before them may take, beyond DefaultGrace.
	DefaultBudgetShare = 0.25
	// DefaultGrace is re-run time allowed whatever was measured before.
	DefaultGrace = 5 * time.Second
	// quietWindow is how long WaitQuiet watches for a quiet moment.
	quietWindow = 200 * time.Millisecond
)

// A Policy runs disturbed runs again, a bounded number of times, each after
// a quiet moment, within a budget of time over all the runs it is given.
// The zero value uses the defaults; one Policy serves a whole calibration.
type Policy struct {
	// Root is the procfs root; "" is /proc.
	Root string
	// MaxReruns per run; 0 is DefaultMaxReruns, negative is none.
	MaxReruns int
	// Wait is the longest wait for a quiet moment before a re-run; 0 is
	// DefaultWait.
	Wait time.Duration
	// BudgetShare and Grace bound the time re-runs take, waits included:
	// Grace plus BudgetShare of the time all runs took; 0 is the default.
	BudgetShare float64
	Grace       time.Duration

	measured, rerun time.Duration
	// waitQuiet replaces WaitQuiet (tests).
	waitQuiet func(root string, cpus []int, max time.Duration) bool
}

// NewPolicy is the default policy with at most n re-runs of a run; 0:
// none.
func NewPolicy(n int) *Policy {
	if n <= 0 {
		return &Policy{MaxReruns: -1}
	}
	return &Policy{MaxReruns: n}
}

// Run runs attempt under a Watch (used: the CPUs the run is pinned to, nil
// when it is not), and while the run is disturbed (measure.Interference.Over)
// runs it again, when the machine has a quiet moment first and the budget
// allows. attempt returns its result, the CPU seconds of the processes it
// had the watch Follow (negative: none, or not known) and an error, which
// ends the re-runs. Run returns the least disturbed attempt's result and
// its interference, with Reruns and Disturbed set; without procfs, the one
// attempt's result and a nil interference.
func Run[T any](p *Policy, used []int, attempt func(w *Watch) (T, float64, error)) (T, *measure.Interference, error) {
	maxReruns := cmp.Or(p.MaxReruns, DefaultMaxReruns)
	var best T
	var bestIn *measure.Interference
	for n := 0; ; n++ {
		t0 := time.Now()
		w, werr := Start(Options{Root: p.Root, Used: used})
		res, kidSecs, err := attempt(w)
		var in *measure.Interference
		if werr == nil {
			i := w.Stop(kidSecs)
			in = &i
		}
		took := time.Since(t0)
		if n == 0 {
			p.measured += took
		} else {
			p.rerun += took
		}
		if err != nil {
			return res, in, err
		}
		if bestIn == nil || in != nil && worst(in) < worst(bestIn) {
			best, bestIn = res, in
		}
		if bestIn == nil {
			return best, nil, nil
		}
		bestIn.Reruns = n
		if !bestIn.Over() {
			bestIn.Disturbed = false
			return best, bestIn, nil
		}
		bestIn.Disturbed = true
		if n >= maxReruns || !p.allows(took) {
			return best, bestIn, nil
		}
		t1 := time.Now()
		wait := WaitQuiet
		if p.waitQuiet != nil {
			wait = p.waitQuiet
		}
		quiet := wait(p.Root, in.OverCPUs(), cmp.Or(p.Wait, DefaultWait))
		p.rerun += time.Since(t1)
		if !quiet {
			return best, bestIn, nil
		}
	}
}

// allows reports whether a re-run of a run that took took fits the budget.
func (p *Policy) allows(took time.Duration) bool {
	share := cmp.Or(p.BudgetShare, DefaultBudgetShare)
	grace := cmp.Or(p.Grace, DefaultGrace)
	return p.rerun+took <= grace+time.Duration(share*float64(p.measured))
}

func worst(in *measure.Interference) float64 {
	_, pct := in.Worst()
	return pct
}

// WaitQuiet waits at most max for a moment (a window of 200 ms) in which no
// other process and no hypervisor takes more than measure.DisturbedPct of
// any of cpus, and reports whether one came. No cpus: true at once.
func WaitQuiet(root string, cpus []int, max time.Duration) bool {
	if len(cpus) == 0 {
		return true
	}
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		w, err := Start(Options{Root: root, Period: -1, Used: cpus})
		if err != nil {
			return true
		}
		time.Sleep(quietWindow)
		in := w.Stop(-1)
		if !in.Over() {
			return true
		}
	}
	return false
}
