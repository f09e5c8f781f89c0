package fit

import (
	"fmt"
	"math"

	"github.com/blsim/blsim/measure"
)

// medianSE is the standard error of the median of n draws of a normal
// spread over the spread of one draw: √(π/2)/√n (1.2533/√n).
func medianSE(n int) float64 { return math.Sqrt(math.Pi/2) / math.Sqrt(float64(max(n, 1))) }

// spreadPct is the standard error, in percent, of the statistic Merge
// made of a configuration's runs: what its measured value would move by
// if the configuration were timed again in the same way, however good the
// model. With Median it is the median of len(m.Samples) values (the
// rounds' medians of a merged configuration, a run's repeats otherwise)
// whose spread is m.CV: √(π/2)·CV/√n. With Best it is the fastest
// sample, as uncertain as one of the top quarter it heads: their spread,
// m.CV. 0 when nothing says (a run without samples or CV).
func spreadPct(m *measure.Measurement, stat Stat) float64 {
	if m.CV <= 0 || math.IsNaN(m.CV) || math.IsInf(m.CV, 0) {
		return 0
	}
	if stat == Best {
		return 100 * m.CV
	}
	return 100 * m.CV * medianSE(len(m.Samples))
}

// spreadOf sets g's SpreadMAPE and BeyondSpreadPct from the errors errs
// (percent) and the standard errors ses (percent, spreadPct) of its
// points. A point without a standard error counts as one with none.
func spreadOf(g *Group, errs, ses []float64) {
	if len(errs) == 0 {
		return
	}
	var abs, e2, s2 float64
	for i, e := range errs {
		abs += math.Sqrt(2/math.Pi) * ses[i]
		e2 += e * e
		s2 += ses[i] * ses[i]
	}
	n := float64(len(errs))
	g.SpreadMAPE = abs / n
	g.BeyondSpreadPct = math.Sqrt(math.Max(0, (e2-s2)/n))
}

// SpreadRounds is how many values per configuration (rounds) would bring
// g's SpreadMAPE down to target percent, from its n values now: the
// spread of a median falls as 1/√n. 0 when it is there already or g has
// no spread.
func (g Group) SpreadRounds(n int, target float64) int {
	if g.SpreadMAPE <= target || target <= 0 || n < 1 {
		return 0
	}
	r := g.SpreadMAPE / target
	return int(math.Ceil(float64(n) * r * r))
}

// spreadLine says how much of a group's error the runs' own spread
// explains: what a perfect model would score, and what is beyond it. n is
// the typical number of values per configuration (its rounds), 0 when
// unknown. "" when the group has no spread.
func spreadLine(g Group, n int) string {
	if g.N == 0 || g.SpreadMAPE <= 0 {
		return ""
	}
	s := fmt.Sprintf("the runs' own spread would give a perfect model about %.2f%% MAPE here", g.SpreadMAPE)
	if n > 1 {
		s += fmt.Sprintf(" (%d values a configuration; four times as many halve it)", n)
	}
	if g.BeyondSpreadPct <= 0 {
		return s + "; the error is within that spread: more rounds, not a better model, would lower it"
	}
	return s + fmt.Sprintf("; beyond that spread the model misses by about %.2f%% RMS", g.BeyondSpreadPct)
}
