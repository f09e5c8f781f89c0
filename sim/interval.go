package sim

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
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

// GainInterval samples the SoC's uncertain parameters (independent normals
// with the profile's standard deviations, truncated at zero), and returns
// the spread of plan's gain over native in percent. The sampling is seeded,
// each parameter by its own path, so the interval is deterministic and a
// parameter made uncertain leaves the others' draws as they were.
func GainInterval(s *model.SoC, w *model.Workload, native, plan model.Plan, draws int) (Interval, error) {
	if draws <= 0 {
		draws = DefaultDraws
	}
	if len(s.Uncertainty) == 0 {
		r0, err := Run(s, w, native)
		if err != nil {
			return Interval{}, err
		}
		r1, err := Run(s, w, plan)
		if err != nil {
			return Interval{}, err
		}
		g := GainPct(r1.TPS, r0.TPS)
		return Interval{LoPct: g, HiPct: g, Draws: 0}, nil
	}
	cfgs := make([]Config, 0, 2*draws)
	for _, v := range drawSoCs(s, draws, nil) {
		cfgs = append(cfgs, Config{SoC: v, Plan: native}, Config{SoC: v, Plan: plan})
	}
	res, err := Sweep(w, cfgs)
	if err != nil {
		return Interval{}, err
	}
	gains := make([]float64, draws)
	for d := range gains {
		gains[d] = GainPct(res[2*d+1].TPS, res[2*d].TPS)
	}
	sort.Float64s(gains)
	q := func(p float64) float64 { return gains[int(math.Round(p*float64(draws-1)))] }
	return Interval{LoPct: q(0.05), HiPct: q(0.95), Draws: draws}, nil
}

// drawSoCs samples s's uncertain parameters draws times, those skip
// says to leave out kept at their values: independent normals with the
// profile's standard deviations, truncated at a twentieth of the value,
// each parameter from a stream seeded by its path, so that a parameter
// made uncertain (or left out) leaves the others' draws as they were.
func drawSoCs(s *model.SoC, draws int, skip func(path string) bool) []*model.SoC {
	paths := make([]string, 0, len(s.Uncertainty))
	for p := range s.Uncertainty {
		if skip == nil || !skip(p) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	streams := make([]*rand.Rand, len(paths))
	for i, p := range paths {
		h := fnv.New64a()
		h.Write([]byte(p))
		streams[i] = rand.New(rand.NewPCG(0x62_6c_73_69_6d^h.Sum64(), uint64(draws)))
	}
	out := make([]*model.SoC, draws)
	for d := range out {
		v := s.Clone()
		for i, p := range paths {
			x, _ := v.Get(p)
			y := x + streams[i].NormFloat64()*s.Uncertainty[p]
			_ = v.SetWithTypes(p, math.Max(y, x*0.05))
		}
		out[d] = v
	}
	return out
}

// TPSInterval is the central 90% of plan's t/s (llama-bench's figure for
// the workload's test) over draws samples of s's uncertain parameters,
// the paths skip says to leave out kept at their values: Lo and Hi in
// t/s. With nothing to draw it is the point.
func TPSInterval(s *model.SoC, w *model.Workload, plan model.Plan, draws int, skip func(path string) bool) (lo, hi float64, err error) {
	if draws <= 0 {
		draws = DefaultDraws
	}
	socs := drawSoCs(s, draws, skip)
	cfgs := make([]Config, len(socs))
	for i, v := range socs {
		cfgs[i] = Config{SoC: v, Plan: plan}
	}
	res, err := Sweep(w, cfgs)
	if err != nil {
		return 0, 0, err
	}
	tps := make([]float64, len(res))
	for i, r := range res {
		tps[i] = r.TPS
	}
	sort.Float64s(tps)
	q := func(p float64) float64 { return tps[int(math.Round(p*float64(len(tps)-1)))] }
	return q(0.05), q(0.95), nil
}

// GainPct is the gain of tps over base in percent.
func GainPct(tps, base float64) float64 { return 100 * (tps/base - 1) }

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
)

// Judge gives the verdict on a gain in percent and its interval: Parity
// when the gain is within ±1% or the interval includes zero, else Win or
// Loss.
func Judge(gainPct float64, iv Interval) Verdict {
	switch {
	case math.Abs(gainPct) <= 1, iv.LoPct <= 0 && iv.HiPct >= 0:
		return Parity
	case gainPct > 0:
		return Win
	}
	return Loss
}
