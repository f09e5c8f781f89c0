package dispatch

import (
	"fmt"
	"math"

	"github.com/blsim/blsim/model"
)

// checkPlan checks that plan p is a native run or a two-engine split the
// dispatcher can run pinned to cpus: one CPU per thread of each engine it
// uses, no CPU given to two engines.
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
