package sim

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/blsim/blsim/model"
)

// Test-only helpers: nothing outside the tests calls them (deadcode).

// Best finds the shares of a split plan's engines that maximise
// throughput (its Fracs are ignored) over the whole simplex, and returns
// p with those shares and its result. See Evaluator.Best.
func Best(s *model.SoC, w *model.Workload, p model.Plan) (model.Plan, *Result, error) {
	return NewEvaluator(s, w, 0).Best(p)
}

// Balance finds the second engine's fraction at which both engines spend
// the same time in the split ops; see Evaluator.Balance. When there is
// none, the error wraps ErrNoBalance and says why.
func Balance(s *model.SoC, w *model.Workload, p model.Plan) (float64, error) {
	b, err := NewEvaluator(s, w, 0).Balance(p)
	if err != nil {
		return 0, err
	}
	if !(b.None == "") {
		return 0, fmt.Errorf("%w: %s", ErrNoBalance, b.None)
	}
	return b.Frac, nil
}

// Sensitivity sweeps accelerator engine's throughput and submit latency
// around split plan p; see Evaluator.Sensitivity, which it calls at p's
// best shares (BestN). nil factors mean the defaults.
func Sensitivity(s *model.SoC, w *model.Workload, p model.Plan, engine string, topsFactors, submitFactors []float64) (*SensitivityGrid, error) {
	e := NewEvaluator(s, w, 0)
	at, _, err := e.BestN(p)
	if err != nil {
		return nil, err
	}
	return e.Sensitivity(at, engine, topsFactors, submitFactors)
}

// Sweep runs every configuration on all cores and returns the results in
// the order given. The first error (by index) is returned with the results
// that did succeed.
func Sweep(w *model.Workload, cfgs []Config) ([]*Result, error) {
	out := make([]*Result, len(cfgs))
	errs := make([]error, len(cfgs))
	workers := runtime.GOMAXPROCS(0)
	if workers > len(cfgs) {
		workers = len(cfgs)
	}
	if len(cfgs) == 0 {
		return out, nil
	}
	// Every configuration runs the same graph: build it once. The runs
	// only read it.
	ops := buildGraphs(w)
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next += 16
				mu.Unlock()
				if i >= len(cfgs) {
					return
				}
				for j := i; j < i+16 && j < len(cfgs); j++ {
					out[j], errs[j] = run(cfgs[j].SoC, w, cfgs[j].Plan, Options{}, ops)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// GainInterval samples the SoC's uncertain parameters (independent normals
// with the profile's standard deviations, truncated at zero), and returns
// the spread of plan's gain over native in percent. The sampling is seeded,
// each parameter by its own path, so the interval is deterministic and a
// parameter made uncertain leaves the others' draws as they were. See
// Evaluator.Interval, which shares native's draws among intervals.
func GainInterval(s *model.SoC, w *model.Workload, native, plan model.Plan, draws int) (Interval, error) {
	return NewEvaluator(s, w, draws).Interval(native, plan)
}

// BestN finds the fractions of the split ops over all of plan p's engines
// (p.Fracs is ignored) that maximise throughput, and returns p with those
// fractions and its result. See Evaluator.BestN.
func BestN(s *model.SoC, w *model.Workload, p model.Plan) (model.Plan, *Result, error) {
	return NewEvaluator(s, w, 0).BestN(p)
}

// Runs is how many runs e has simulated.
func (e *Evaluator) Runs() int64 { return e.runs.Load() }
