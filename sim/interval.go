package sim

import (
	"math"
	"slices"
	"sort"

	"github.com/blsim/blsim/model"
)

// Interval is a prediction's spread from its parameters' uncertainty.
type Interval struct {
	// LoPct and HiPct bound the 90% interval of the gain, in percent.
	LoPct float64 `json:"lo_pct"`
	HiPct float64 `json:"hi_pct"`
	// Method is how it was made: FirstOrder, MonteCarlo, or None (the
	// SoC has no uncertainty, so the interval is the point).
	Method IntervalMethod `json:"method"`
	// Draws is how many perturbed SoCs each plan was simulated on: two
	// per uncertain parameter (first-order) or the random draws (Monte
	// Carlo); 0 with no uncertainty.
	Draws int `json:"draws"`
}

// IntervalRule is how blsim's 90% intervals are made, in words (blsim
// predict --help).
const IntervalRule = `The 90% intervals are first-order by default: each uncertain parameter of
the SoC's uncertainty table at +σ and at −σ, the others at their values
(two runs each); each parameter's larger move of the gain down and up, added
in quadrature, times 1.645. It ignores how the parameters interact.
--draws N makes them Monte Carlo instead: the central 90% of N random draws.`

// IntervalMethod is how an interval is made from the SoC's uncertainty
// table, whose parameters are independent normals.
type IntervalMethod string

const (
	// FirstOrder, the default: each uncertain parameter k at p_k+σ_k and
	// p_k−σ_k (truncated at 5% of p_k), the others at their values; each
	// k's larger downward and larger upward move of the gain (a
	// semi-deviation, so a one-sided bottleneck stays one-sided); the
	// interval is the point gain − z90·√Σ down² … + z90·√Σ up². Two runs
	// per parameter. It is first-order: it ignores how the parameters
	// interact, and a gain's curvature within ±σ.
	FirstOrder IntervalMethod = "first-order"
	// MonteCarlo: the central 90% of the gains over N random draws of
	// every uncertain parameter at once (predict --draws N).
	MonteCarlo IntervalMethod = "monte-carlo"
	// None: the SoC has no uncertainty; the interval is the point.
	None IntervalMethod = "none"
)

// Z90 is the standard normal's 95th percentile, the half-width of a
// central 90% interval in standard deviations (1.6449, to five figures).
const Z90 = 1.6448536269514722

// spread bounds the 90% interval of a quantity whose point value is x0
// and whose values on the perturbed SoCs are xs (method m, drawSoCs'
// order).
func spread(m IntervalMethod, x0 float64, xs []float64) (lo, hi float64) {
	if m == MonteCarlo {
		xs = slices.Clone(xs)
		sort.Float64s(xs)
		q := func(p float64) float64 { return xs[int(math.Round(p*float64(len(xs)-1)))] }
		return q(0.05), q(0.95)
	}
	var down, up float64
	for k := 0; k+1 < len(xs); k += 2 {
		dp, dm := xs[k]-x0, xs[k+1]-x0
		d := math.Max(0, -math.Min(dp, dm))
		u := math.Max(0, math.Max(dp, dm))
		down += d * d
		up += u * u
	}
	return x0 - Z90*math.Sqrt(down), x0 + Z90*math.Sqrt(up)
}

// GainPct is the gain of tps over base in percent.
func GainPct(tps, base float64) float64 { return 100 * (tps/base - 1) }

// Moved is the interval of a gain from moved to a gain to: the same spread
// around to. A what-if SoC (a heatmap's cell, a --sensitivity cell) has no
// draws of its own; its verdict takes the studied prediction's interval
// moved to its gain.
func (iv Interval) Moved(from, to float64) Interval {
	return Interval{LoPct: iv.LoPct - from + to, HiPct: iv.HiPct - from + to, Method: iv.Method, Draws: iv.Draws}
}

// TPSInterval is the 90% interval of plan's t/s (llama-bench's figure for
// the workload's test) from s's uncertain parameters (first-order with
// draws 0, else over draws random samples), the paths skip says to leave
// out kept at their values: lo and hi in t/s. With nothing uncertain it
// is the point.
func TPSInterval(s *model.SoC, w *model.Workload, plan model.Plan, draws int, skip func(path string) bool) (lo, hi float64, err error) {
	if skip != nil {
		c := s.Clone()
		for p := range c.Uncertainty {
			if skip(p) {
				delete(c.Uncertainty, p)
			}
		}
		s = c
	}
	return NewEvaluator(s, w, draws).TPSInterval(plan)
}

// TPSInterval is the 90% interval of plan's t/s from e's uncertainty, by
// e's Method, lo and hi in t/s; with no uncertainty it is the point.
func (e *Evaluator) TPSInterval(plan model.Plan) (lo, hi float64, err error) {
	m := e.Method()
	var x0 float64
	if m != MonteCarlo {
		r, err := e.Run(plan)
		if err != nil {
			return 0, 0, err
		}
		if m == None {
			return r.TPS, r.TPS, nil
		}
		x0 = r.TPS
	}
	tps, err := e.DrawTPS(plan)
	if err != nil {
		return 0, 0, err
	}
	lo, hi = spread(m, x0, tps)
	return lo, hi, nil
}
