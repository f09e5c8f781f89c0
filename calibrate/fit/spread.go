package fit

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/blsim/blsim/measure"
)

// medianSE is the standard error of the median of n draws of a normal
// spread over the spread of one draw: √(π/2)/√n (1.2533/√n).
func medianSE(n int) float64 { return math.Sqrt(math.Pi/2) / math.Sqrt(float64(max(n, 1))) }

// MinSpreadRuns is the fewest runs (rounds) of a configuration from
// which its statistic's spread is estimated (spreadPct).
const MinSpreadRuns = 3

// spreadPct is the standard error, in percent, of the median Merge made
// of a configuration's runs: what its measured value would move by were
// the configuration timed again the same way, however good the model. It
// comes from the spread of the runs' medians (the rounds' values Merge
// keeps as its samples), by their median absolute deviation, robust to
// the one round a slow spell of the machine fell on: σ ≈ 1.4826·MAD, and
// the median of n values has a standard error of about √(π/2)·σ/√n.
// Checked against what no model produced: each held-out quick
// configuration timed at a second poll level, which the model predicts
// alike, differed from its twin by 6.61% on average over 50 pairs on one
// host, and this estimate said 7.91%; 2.62% against 2.86% over 50 on
// another (TestRecordedHeldOutSpread). A repeat's spread within one run
// (back to back, not rounds apart) overstated it up to twice, so 0
// (unknown) with fewer than MinSpreadRuns runs, and for Best, whose value
// is one sample.
func spreadPct(m *measure.Measurement, stat Stat) float64 {
	runs, _ := strconv.Atoi(m.Knobs["runs"])
	if stat == Best || runs < MinSpreadRuns || len(m.Samples) < MinSpreadRuns || m.Median <= 0 {
		return 0
	}
	dev := make([]float64, len(m.Samples))
	for i, v := range m.Samples {
		dev[i] = math.Abs(v - m.Median)
	}
	slices.Sort(dev)
	mad := dev[len(dev)/2]
	if len(dev)%2 == 0 {
		mad = (dev[len(dev)/2-1] + dev[len(dev)/2]) / 2
	}
	return 100 * 1.4826 * mad / m.Median * medianSE(len(m.Samples))
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
		// At best: on the build VM four times the rounds took the poll
		// twins' mean difference to 0.63 of it, not 0.5, since part of
		// the spread is spells longer than a round (docs/busy-machine.md).
		s += fmt.Sprintf(" (%d values a configuration; four times as many would at best halve it)", n)
	}
	if g.BeyondSpreadPct <= 0 {
		return s + "; the error is within that spread: more rounds, not a better model, would lower it"
	}
	return s + fmt.Sprintf("; beyond that spread the model misses by about %.2f%% RMS", g.BeyondSpreadPct)
}
