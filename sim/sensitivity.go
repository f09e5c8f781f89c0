package sim

import (
	"fmt"
	"runtime"
	"sync"

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
	// over native; BestVerdict judges it by the ±1% band (no interval).
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
	Class      string              `json:"class"`
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
func EffectiveTOPS(e *model.Engine, class string, threads int) float64 {
	return e.MatmulGOPS(class, threads) * e.MoEEfficiency / 1000
}

// ExpertClass is the kernel class of the workload's routed-expert ops with
// the most operations (the ops a split divides), or of all its matmuls
// when it has no experts (q4 when it has neither).
func ExpertClass(w *model.Workload) string {
	by := map[string]float64{}
	all := map[string]float64{}
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
	best, bv := "q4", 0.0
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
// of plan p (BestN) and the split at the studied SoC's best fractions. nil
// factors mean the defaults.
func Sensitivity(s *model.SoC, w *model.Workload, p model.Plan, engine string, topsFactors, submitFactors []float64) (*SensitivityGrid, error) {
	if topsFactors == nil {
		topsFactors = DefaultTOPSFactors
	}
	if submitFactors == nil {
		submitFactors = DefaultSubmitFactors
	}
	e, _, err := s.Engine(engine)
	if err != nil {
		return nil, err
	}
	if !e.IsAccelerator() {
		return nil, fmt.Errorf("sensitivity: engine %q is a %s cluster; the sweep varies an accelerator's throughput and submit latency", engine, e.Kind)
	}
	th := -1
	for i, n := range p.Engines {
		if n == engine {
			th = p.Threads[i]
		}
	}
	if th < 0 {
		return nil, fmt.Errorf("sensitivity: engine %q is not in the plan (%v)", engine, p.Engines)
	}
	native := model.NewNative(p.Engines[0], p.Threads[0], p.Poll)
	nr, err := Run(s, w, native)
	if err != nil {
		return nil, err
	}
	at, _, err := BestN(s, w, p)
	if err != nil {
		return nil, err
	}
	class := ExpertClass(w)
	g := &SensitivityGrid{Engine: engine, Class: class, AtTOPS: EffectiveTOPS(e, class, th), AtSubmitUS: e.SubmitUS, AtFracs: at.Fracs}
	for _, f := range topsFactors {
		g.TOPS = append(g.TOPS, g.AtTOPS*f)
	}
	for _, f := range submitFactors {
		g.SubmitUS = append(g.SubmitUS, e.SubmitUS*f)
	}
	verdict := func(gain float64) Verdict { return Judge(gain, Interval{LoPct: gain, HiPct: gain}) }
	g.Cells = make([][]SensitivityCell, len(submitFactors))
	for j := range g.Cells {
		g.Cells[j] = make([]SensitivityCell, len(topsFactors))
	}
	type job struct{ i, j int }
	jobs := make(chan job)
	errs := make([]error, len(topsFactors)*len(submitFactors))
	var wg sync.WaitGroup
	for k := 0; k < max(1, runtime.GOMAXPROCS(0)/2); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for jb := range jobs {
				v := s.Clone()
				ve, _, _ := v.Engine(engine)
				for c, x := range ve.KernelOpsPerCycle {
					ve.KernelOpsPerCycle[c] = x * topsFactors[jb.i]
				}
				ve.SubmitUS = e.SubmitUS * submitFactors[jb.j]
				cell := SensitivityCell{TOPS: g.TOPS[jb.i], SubmitUS: g.SubmitUS[jb.j]}
				fr, br, err := BestN(v, w, p)
				if err == nil {
					q := p
					q.Fracs = at.Fracs
					var fx *Result
					if fx, err = Run(v, w, q); err == nil {
						cell.BestFracs = fr.Fracs
						cell.BestGainPct = GainPct(br.TPS, nr.TPS)
						cell.BestVerdict = verdict(cell.BestGainPct)
						cell.FixedGainPct = GainPct(fx.TPS, nr.TPS)
						cell.FixedVerdict = verdict(cell.FixedGainPct)
					}
				}
				errs[jb.j*len(topsFactors)+jb.i] = err
				g.Cells[jb.j][jb.i] = cell
			}
		}()
	}
	for j := range submitFactors {
		for i := range topsFactors {
			jobs <- job{i, j}
		}
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
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
