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
	paths := make([]string, 0, len(s.Uncertainty))
	for p := range s.Uncertainty {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	// One stream per parameter, seeded by its path: a parameter's draws do
	// not depend on which others the profile makes uncertain.
	streams := make([]*rand.Rand, len(paths))
	for i, p := range paths {
		h := fnv.New64a()
		h.Write([]byte(p))
		streams[i] = rand.New(rand.NewPCG(0x62_6c_73_69_6d^h.Sum64(), uint64(draws)))
	}
	cfgs := make([]Config, 0, 2*draws)
	for d := 0; d < draws; d++ {
		v := s.Clone()
		for i, p := range paths {
			x, _ := v.Get(p)
			y := x + streams[i].NormFloat64()*s.Uncertainty[p]
			_ = v.SetWithTypes(p, math.Max(y, x*0.05))
		}
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
