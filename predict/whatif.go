package predict

import (
	"math"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// WhatIf is the best split's gain over native across two SoC
// parameters: a grid of what-if variants of one SoC, drawn as a heatmap.
type WhatIf struct {
	SoC, Workload string
	Mode          model.Mode
	Poll          int
	XParam        string
	YParam        string
	XLabel        string
	YLabel        string
	// X and Y are the cell centres, increasing.
	X, Y []float64
	// Gain[j][i] is the best split's gain over native in percent at
	// (X[i], Y[j]); BestFrac[j][i] is the little fraction that gives it.
	Gain     [][]float64
	BestFrac [][]float64
	// NativeTPS[j][i] is native's t/s at (X[i], Y[j]): the gains' base.
	NativeTPS [][]float64
	// Verdict[j][i] is the cell's verdict (sim.JudgePlan): its gain
	// judged with AtInterval moved to it, since a what-if SoC has no
	// interval of its own.
	Verdict [][]sim.Verdict
	// AtX, AtY locate the studied SoC; AtGain and AtFrac are its best
	// gain (percent) and fraction, AtInterval and AtVerdict its interval
	// and verdict: the prediction's best split of the mode.
	AtX, AtY       float64
	AtGain, AtFrac float64
	AtInterval     sim.Interval
	AtVerdict      sim.Verdict
	// Engines are the split's engines, main first.
	Engines []string
	// Threads are the engines' threads, in the order of Engines.
	Threads []int
	// NWay is set when the cells come from sim.BestN over Engines (more
	// than two, or an accelerator among them). BestFrac then holds the
	// share of all engines after the first; BestFracs[j][i] and AtFracs
	// hold every engine's share.
	NWay      bool
	BestFracs [][][]float64
	AtFracs   []float64
	// LogX and LogY draw the axis on a log scale (the values are then
	// positive).
	LogX, LogY bool
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// VerdictLevels are the gains at which a cell's verdict turns: WIN above
// win (the larger of +1% and the studied interval's reach below its
// gain), LOSS below loss (the smaller of -1% and minus its reach above).
func (d *WhatIf) VerdictLevels() (win, loss float64) {
	return math.Max(1, d.AtGain-d.AtInterval.LoPct), math.Min(-1, d.AtGain-d.AtInterval.HiPct)
}
