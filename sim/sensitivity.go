package sim

import (
	"fmt"

	"github.com/blsim/blsim/model"
)

// DefaultTOPSFactors and DefaultSubmitFactors are the multiples of an
// accelerator's studied throughput and submit latency that Sensitivity
// tries by default.
var (
	DefaultTOPSFactors   = []float64{1.0 / 16, 1.0 / 8, 1.0 / 4, 1.0 / 2, 1, 2, 4}
	DefaultSubmitFactors = []float64{1, 4, 16, 64, 256}
)

// SensitivityCell is one what-if accelerator of a Sensitivity grid.
type SensitivityCell struct {
	// TOPS is the accelerator's effective MUL_MAT_ID rate (see
	// EffectiveTOPS); SubmitUS its per-submit latency.
	TOPS     float64 `json:"tops"`
	SubmitUS float64 `json:"submit_us"`
	// BestFracs and BestGainPct are the best split (BestN) and its gain
	// over native; BestVerdict judges it by JudgePlan, with the studied
	// plan's interval moved to its gain (a what-if has no draws of its
	// own).
	BestFracs   []float64 `json:"best_fracs"`
	BestGainPct float64   `json:"best_gain_pct"`
	BestVerdict Verdict   `json:"best_verdict"`
	// FixedGainPct and FixedVerdict are the same at the studied SoC's
	// best fractions, held fixed: what a dispatcher tuned for the studied
	// accelerator would get.
	FixedGainPct float64 `json:"fixed_gain_pct"`
	FixedVerdict Verdict `json:"fixed_verdict"`
}

// SensitivityGrid is how a split's gain depends on one accelerator's
// throughput and submit latency. Cells[j][i] is at TOPS[i], SubmitUS[j].
type SensitivityGrid struct {
	Engine     string              `json:"engine"`
	Class      model.KernelClass   `json:"class"`
	TOPS       []float64           `json:"tops"`
	SubmitUS   []float64           `json:"submit_us"`
	AtTOPS     float64             `json:"at_tops"`
	AtSubmitUS float64             `json:"at_submit_us"`
	AtFracs    []float64           `json:"at_fracs"`
	Cells      [][]SensitivityCell `json:"cells"`
}

// EffectiveTOPS is engine e's MUL_MAT_ID rate with threads threads for
// kernel class class, in tera-operations per second: kernel rate x clock x
// thread scaling x MoE efficiency.
func EffectiveTOPS(e *model.Engine, class model.KernelClass, threads int) float64 {
	return e.MatmulGOPS(string(class), threads) * e.MoEEfficiency / 1000
}

// ExpertClass is the kernel class of the workload's routed-expert ops with
// the most operations (the ops a split divides), or of all its matmuls
// when it has no experts (q4 when it has neither).
func ExpertClass(w *model.Workload) model.KernelClass {
	by := map[model.KernelClass]float64{}
	all := map[model.KernelClass]float64{}
	for _, op := range w.Ops(0) {
		switch op.Kind {
		case model.ExpertMatmul:
			by[op.Class] += op.Ops
			all[op.Class] += op.Ops
		case model.Matmul:
			all[op.Class] += op.Ops
		}
	}
	if len(by) == 0 {
		by = all
	}
	best, bv := model.ClassQ4, 0.0
	for _, c := range model.KernelClasses {
		if by[c] > bv {
			best, bv = c, by[c]
		}
	}
	return best
}

// Sensitivity sweeps accelerator engine's throughput (all its kernel
// rates scaled by each of topsFactors) and submit latency (scaled by each
// of submitFactors) and reports, per what-if accelerator, the best split
// over at's engines (BestN) and the split at at's shares (the studied
// plan, held fixed), each judged by JudgePlan with at's interval moved to
// its gain. nil factors mean the defaults.
func (e *Evaluator) Sensitivity(at model.Plan, engine string, topsFactors, submitFactors []float64) (*SensitivityGrid, error) {
	s := e.soc
	if topsFactors == nil {
		topsFactors = DefaultTOPSFactors
	}
	if submitFactors == nil {
		submitFactors = DefaultSubmitFactors
	}
	eng, _, err := s.Engine(engine)
	if err != nil {
		return nil, err
	}
	if !eng.IsAccelerator() {
		return nil, fmt.Errorf("sensitivity: engine %q is a %s cluster; the sweep varies an accelerator's throughput and submit latency", engine, eng.Kind)
	}
	th := -1
	for i, n := range at.Engines {
		if n == engine {
			th = at.Threads[i]
		}
	}
	if th < 0 {
		return nil, fmt.Errorf("sensitivity: engine %q is not in the plan (%v)", engine, at.Engines)
	}
	native := model.NewNative(at.Engines[0], at.Threads[0], at.Poll)
	nr, err := e.Run(native)
	if err != nil {
		return nil, err
	}
	ar, err := e.Run(at)
	if err != nil {
		return nil, err
	}
	iv, err := e.Interval(native, at)
	if err != nil {
		return nil, err
	}
	atGain := GainPct(ar.TPS, nr.TPS)
	class := ExpertClass(e.wl)
	g := &SensitivityGrid{Engine: engine, Class: class, AtTOPS: EffectiveTOPS(eng, class, th), AtSubmitUS: eng.SubmitUS, AtFracs: at.Fracs}
	for _, f := range topsFactors {
		g.TOPS = append(g.TOPS, g.AtTOPS*f)
	}
	for _, f := range submitFactors {
		g.SubmitUS = append(g.SubmitUS, eng.SubmitUS*f)
	}
	g.Cells = make([][]SensitivityCell, len(submitFactors))
	for j := range g.Cells {
		g.Cells[j] = make([]SensitivityCell, len(topsFactors))
	}
	nt := len(topsFactors)
	err = parallel(nt*len(submitFactors), func(k int) error {
		i, j := k%nt, k/nt
		v := s.Clone()
		ve, _, _ := v.Engine(engine)
		for c, x := range ve.KernelOpsPerCycle {
			ve.KernelOpsPerCycle[c] = x * topsFactors[i]
		}
		ve.SubmitUS = eng.SubmitUS * submitFactors[j]
		ev := e.For(v)
		cell := SensitivityCell{TOPS: g.TOPS[i], SubmitUS: g.SubmitUS[j]}
		// The native plan does not run the accelerator: its t/s is the
		// studied SoC's.
		bp, br, err := ev.BestN(at)
		if err != nil {
			return err
		}
		fx, err := ev.Run(at)
		if err != nil {
			return err
		}
		cell.BestFracs = bp.Fracs
		cell.BestGainPct = GainPct(br.TPS, nr.TPS)
		cell.BestVerdict = JudgePlan(bp, cell.BestGainPct, iv.Moved(atGain, cell.BestGainPct))
		cell.FixedGainPct = GainPct(fx.TPS, nr.TPS)
		cell.FixedVerdict = JudgePlan(at, cell.FixedGainPct, iv.Moved(atGain, cell.FixedGainPct))
		g.Cells[j][i] = cell
		return nil
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// Boundary is, for one submit latency, the throughput interval in which
// a verdict turns from not-WIN to WIN: at LoTOPS (the largest swept
// throughput that does not win) it does not, at HiTOPS (the next) it does.
// LoTOPS is 0 when every swept throughput wins; NeverWins is set (and HiTOPS 0)
// when none does.
type Boundary struct {
	SubmitUS  float64 `json:"submit_us"`
	LoTOPS    float64 `json:"lo_tops"`
	HiTOPS    float64 `json:"hi_tops"`
	NeverWins bool    `json:"never_wins,omitempty"`
}

// WinBoundary finds, per submit latency of the grid, where the verdict
// (the best split's when best, else the fixed fractions') turns to WIN.
func (g *SensitivityGrid) WinBoundary(best bool) []Boundary {
	var out []Boundary
	for j, row := range g.Cells {
		b := Boundary{SubmitUS: g.SubmitUS[j], NeverWins: true}
		for i := len(row) - 1; i >= 0; i-- {
			v := row[i].FixedVerdict
			if best {
				v = row[i].BestVerdict
			}
			if v != "WIN" {
				b.LoTOPS = g.TOPS[i]
				break
			}
			b.HiTOPS, b.NeverWins = g.TOPS[i], false
		}
		out = append(out, b)
	}
	return out
}
