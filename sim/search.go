package sim

import (
	"fmt"
	"math"

	"github.com/blsim/blsim/model"
)

// MaxSecondFrac is the largest share the search gives the second engine.
const MaxSecondFrac = 0.5

// Best finds the second engine's fraction that maximises throughput for a
// two-engine plan (its Fracs are ignored): a coarse grid over
// [0, MaxSecondFrac] finds the best bracket, then golden-section search
// refines it to 1e-4. It returns p with the best fractions and its result;
// the second engine's share is Fracs[1].
func Best(s *model.SoC, w *model.Workload, p model.Plan) (model.Plan, *Result, error) {
	f, r, err := best(s, w, p)
	if err != nil {
		return model.Plan{}, nil, err
	}
	p.Fracs = []float64{1 - f, f}
	return p, r, nil
}

func best(s *model.SoC, w *model.Workload, p model.Plan) (float64, *Result, error) {
	if p.Mode == model.Native || p.Mode == model.PoolPlan {
		return 0, nil, fmt.Errorf("best: a %s plan has no fractions to find", p.Mode)
	}
	eval := func(f float64) (*Result, error) {
		q := p
		q.Fracs = []float64{1 - f, f}
		return Run(s, w, q)
	}
	const steps = 20
	bestI, bestTPS := 0, math.Inf(-1)
	for i := 0; i <= steps; i++ {
		r, err := eval(MaxSecondFrac * float64(i) / steps)
		if err != nil {
			return 0, nil, err
		}
		if r.TPS > bestTPS {
			bestI, bestTPS = i, r.TPS
		}
	}
	h := MaxSecondFrac / steps
	a := math.Max(0, float64(bestI-1)*h)
	b := math.Min(MaxSecondFrac, float64(bestI+1)*h)
	best := float64(bestI) * h
	phi := (math.Sqrt(5) - 1) / 2
	c, d := b-phi*(b-a), a+phi*(b-a)
	rc, err := eval(c)
	if err != nil {
		return 0, nil, err
	}
	rd, err := eval(d)
	if err != nil {
		return 0, nil, err
	}
	for b-a > 1e-4 {
		if rc.TPS >= rd.TPS {
			b, d, rd = d, c, rc
			c = b - phi*(b-a)
			if rc, err = eval(c); err != nil {
				return 0, nil, err
			}
		} else {
			a, c, rc = c, d, rd
			d = a + phi*(b-a)
			if rd, err = eval(d); err != nil {
				return 0, nil, err
			}
		}
	}
	// The split curve has kinks where another op's partition becomes
	// critical; keep the grid point if golden section settled lower.
	f, r := c, rc
	if rd.TPS > r.TPS {
		f, r = d, rd
	}
	if rb, err := eval(best); err == nil && rb.TPS > r.TPS {
		f, r = best, rb
	}
	return f, r, nil
}

// Balance finds the second engine's fraction at which both engines spend
// the same time in the split ops (big and little finish together), by
// bisection over (0, 1). It returns NaN when the second engine is faster
// than the first even at the smallest share or slower at the largest.
func Balance(s *model.SoC, w *model.Workload, p model.Plan) (float64, error) {
	if p.Mode != model.TokenSplit && p.Mode != model.ExpertSplit {
		return 0, fmt.Errorf("balance: a %s plan has no split ops to balance", p.Mode)
	}
	diff := func(f float64) (float64, error) {
		q := p
		q.Fracs = []float64{1 - f, f}
		r, err := Run(s, w, q)
		if err != nil {
			return 0, err
		}
		return r.Split.EngineS[0] - r.Split.EngineS[1], nil
	}
	lo, hi := 1e-3, 0.999
	dlo, err := diff(lo)
	if err != nil {
		return 0, err
	}
	dhi, err := diff(hi)
	if err != nil {
		return 0, err
	}
	if dlo < 0 || dhi > 0 {
		return math.NaN(), nil
	}
	for hi-lo > 1e-4 {
		mid := (lo + hi) / 2
		d, err := diff(mid)
		if err != nil {
			return 0, err
		}
		if d > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, nil
}
