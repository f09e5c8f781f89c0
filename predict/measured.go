package predict

import (
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// SplitPoint is a measured throughput placed on a prediction's split
// curve.
type SplitPoint struct {
	// Mode is model.Native (drawn at share 0), model.TokenSplit or
	// model.ExpertSplit.
	Mode model.Mode `json:"mode"`
	// Frac is the second engine's share; TPS the measured throughput and
	// ErrTPS its standard deviation (0: none known).
	Frac   float64 `json:"frac"`
	TPS    float64 `json:"tps"`
	ErrTPS float64 `json:"err_tps"`
}

// SplitPoints picks from ms the throughputs measured on p's plans: of
// workload w (by name, and by content when the measurement carries its
// workload's YAML), native on p's first engine, or a token or expert split
// between p's two engines, with p's threads and poll. Merge the runs of one
// configuration first (fit.Merge), or each run is a point of its own.
func SplitPoints(ms []measure.Measurement, p *Prediction, w *model.Workload) []SplitPoint {
	if len(p.Engines) != 2 || len(p.Threads) != 2 {
		return nil
	}
	want, err := model.MarshalWorkload(w)
	if err != nil {
		return nil
	}
	same := map[string]bool{} // workload YAML -> is w
	isW := func(m measure.Measurement) bool {
		if m.Workload != w.Name {
			return false
		}
		if m.WorkloadYAML == "" {
			return true
		}
		if v, ok := same[m.WorkloadYAML]; ok {
			return v
		}
		mw, err := model.ParseWorkload([]byte(m.WorkloadYAML), m.ID)
		var got []byte
		if err == nil {
			got, err = model.MarshalWorkload(mw)
		}
		same[m.WorkloadYAML] = err == nil && string(got) == string(want)
		return same[m.WorkloadYAML]
	}
	var out []SplitPoint
	for _, m := range ms {
		if !sameRun(m.Run.Of(w.Run), p) {
			continue // another test: not a point of this curve
		}
		pl := m.Plan
		if !m.IsThroughput() || !m.OK() || pl.Poll != p.Poll || len(pl.Engines) != len(pl.Threads) || len(pl.Engines) == 0 ||
			pl.Engines[0] != p.Engines[0] || pl.Threads[0] != p.Threads[0] || !isW(m) {
			continue
		}
		pt := SplitPoint{Mode: pl.Mode, TPS: m.Median, ErrTPS: m.SD()}
		switch {
		case pt.Mode == model.Native && len(pl.Engines) == 1:
		case pt.Mode.IsSplit() && len(pl.Engines) == 2 &&
			pl.Engines[1] == p.Engines[1] && pl.Threads[1] == p.Threads[1] && len(pl.Fracs) == 2:
			pt.Frac = pl.Fracs[1]
		default:
			continue
		}
		out = append(out, pt)
	}
	return out
}

// sameRun reports whether r is the run p predicts: its prompt, generated
// tokens and depth, and for a prompt its ubatch.
func sameRun(r model.Run, p *Prediction) bool {
	return r.PromptTokens == p.Prompt && r.GenTokens == p.Gen && r.Depth == p.Depth &&
		(r.PromptTokens == 0 || r.Ubatch == p.Ubatch)
}

// MeasuredMaxFrac is the largest second-engine share of ms's two-engine
// plans past sim.MaxSecondFrac, or 0: how far a split curve must reach
// to draw them (Request.SweepMaxFrac).
func MeasuredMaxFrac(ms []measure.Measurement) float64 {
	to := 0.0
	for _, m := range ms {
		if m.Plan != nil && len(m.Plan.Fracs) == 2 && m.Plan.Fracs[1] > sim.MaxSecondFrac {
			to = max(to, m.Plan.Fracs[1])
		}
	}
	return to
}
