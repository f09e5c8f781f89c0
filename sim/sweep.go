package sim

import (
	"runtime"
	"sync"

	"github.com/blsim/blsim/model"
)

// Config is one point of a sweep: a SoC (possibly a what-if variant) and a
// plan.
type Config struct {
	SoC  *model.SoC
	Plan model.Plan
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
