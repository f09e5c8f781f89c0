package sim

import (
	"math"
	"slices"
	"sort"

	"github.com/blsim/blsim/model"
)

// Interval is a prediction's spread from its parameters' uncertainty.
type Interval struct {
	// LoPct and HiPct bound the central 90% of the sampled gains, in
	// percent.
	LoPct float64 `json:"lo_pct"`
	HiPct float64 `json:"hi_pct"`
	// Draws is how many parameter samples it took (0: the SoC has no
	// uncertainty, so the interval is the point).
	Draws int `json:"draws"`
}

// DefaultDraws is how many parameter samples an interval uses.
const DefaultDraws = 48

// GainPct is the gain of tps over base in percent.
func GainPct(tps, base float64) float64 { return 100 * (tps/base - 1) }

// Moved is the interval of a gain from moved to a gain to: the same spread
// around to. A what-if SoC (a heatmap's cell, a --sensitivity cell) has no
// draws of its own; its verdict takes the studied prediction's interval
// moved to its gain.
func (iv Interval) Moved(from, to float64) Interval {
	return Interval{LoPct: iv.LoPct - from + to, HiPct: iv.HiPct - from + to, Draws: iv.Draws}
}

// TPSInterval is the central 90% of plan's t/s (llama-bench's figure for
// the workload's test) over draws samples of s's uncertain parameters,
// the paths skip says to leave out kept at their values: lo and hi in
// t/s. With nothing to draw it is the point.
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

// TPSInterval is the central 90% of plan's t/s over e's parameter draws,
// lo and hi in t/s; with no uncertainty it is the point.
func (e *Evaluator) TPSInterval(plan model.Plan) (lo, hi float64, err error) {
	tps, err := e.DrawTPS(plan)
	if err != nil {
		return 0, 0, err
	}
	if len(tps) == 0 {
		r, err := e.Run(plan)
		if err != nil {
			return 0, 0, err
		}
		return r.TPS, r.TPS, nil
	}
	tps = slices.Clone(tps)
	sort.Float64s(tps)
	q := func(p float64) float64 { return tps[int(math.Round(p*float64(len(tps)-1)))] }
	return q(0.05), q(0.95), nil
}
