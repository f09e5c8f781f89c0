package sim

import (
	"github.com/blsim/blsim/model"
)

// VerdictRule is the one rule blsim judges every plan by, in words: the
// table, the headline, the heatmap, --sensitivity, the thread sweep and
// the report all apply it through JudgePlan.
const VerdictRule = `WIN when the gain over native is above +1% and its whole 90% interval
above 0; LOSS when it is below -1% and its whole interval below 0;
PARITY otherwise. A plan that gives the helper engines nothing (every
share after the first below 0.0005) is the dispatcher alone: where it
would win, its verdict is ALONE (run the split dispatcher, give the
helpers no work), never a split WIN. The headline judges the best plan
of all modes: among each mode's best and dispatcher-alone plans, a sure
gain (WIN or ALONE) first, then PARITY, then LOSS, the larger gain first
within each. A what-if SoC (a heatmap cell, a --sensitivity cell) has no
interval of its own: it is judged with the studied best plan's interval
moved to its gain.`

// Verdict says whether a plan pays against native.
type Verdict string

// Verdicts.
const (
	// Win: the gain is above 1% and its interval above zero.
	Win Verdict = "WIN"
	// Parity: the gain is within ±1%, or its interval includes zero.
	Parity Verdict = "PARITY"
	// Loss: the gain is below -1% and its interval below zero.
	Loss Verdict = "LOSS"
	// Alone: a plan that gives the helper engines nothing gains as a Win
	// would: the split dispatcher alone pays (its handoff saved), not the
	// helpers' work. Run it with no work on the helpers.
	Alone Verdict = "ALONE"
)

// Sure reports whether v is a gain beyond the uncertainty: WIN or ALONE.
func (v Verdict) Sure() bool { return v == Win || v == Alone }

// rank orders verdicts for the headline: a sure gain, parity, loss.
func (v Verdict) rank() int {
	switch {
	case v.Sure():
		return 2
	case v == Parity:
		return 1
	}
	return 0
}

// Judge gives the verdict on a gain in percent and its interval: Win
// when the gain is above +1% and the whole interval above zero, Loss when
// it is below -1% and the whole interval below zero, else Parity.
// JudgePlan applies it to a plan.
func Judge(gainPct float64, iv Interval) Verdict {
	switch {
	case gainPct > 1 && iv.LoPct > 0:
		return Win
	case gainPct < -1 && iv.HiPct < 0:
		return Loss
	}
	return Parity
}

// JudgePlan is the verdict on plan p's gain over its baseline and the
// gain's interval, by VerdictRule: Judge's, except that a split plan that
// gives its helpers nothing is Alone where Judge would say Win.
func JudgePlan(p model.Plan, gainPct float64, iv Interval) Verdict {
	v := Judge(gainPct, iv)
	if v == Win && HelpersIdle(p) {
		return Alone
	}
	return v
}

// HelpersIdle reports whether split plan p gives the engines after the
// first nothing to do: every share below 0.0005, which tables print as
// 0.000.
func HelpersIdle(p model.Plan) bool {
	if !p.Mode.IsSplit() {
		return false
	}
	for _, f := range p.Fracs[min(1, len(p.Fracs)):] {
		if f >= 0.0005 {
			return false
		}
	}
	return true
}

// Judged is a plan with its gain, interval and verdict, as Headline ranks
// it.
type Judged struct {
	Plan     model.Plan
	GainPct  float64
	Interval Interval
	Verdict  Verdict
}

// Headline is the index of the plan the headline judges among cands (-1
// for none): a sure gain (WIN or ALONE) first, then PARITY, then LOSS,
// and within each the larger gain; ties keep the first.
func Headline(cands []Judged) int {
	best := -1
	for i, c := range cands {
		if best < 0 {
			best = i
			continue
		}
		b := cands[best]
		if r, rb := c.Verdict.rank(), b.Verdict.rank(); r > rb || (r == rb && c.GainPct > b.GainPct) {
			best = i
		}
	}
	return best
}
