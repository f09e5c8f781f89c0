package probe

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/blsim/blsim/measure"
)

// Stats summarises the samples of one measurement.
type Stats struct {
	Unit    string    // the samples' unit: "GB/s", "GOPS", "µs"
	Samples []float64 // in the order taken, without the warm-up
	N       int       // len(Samples)

	Median float64
	Mean   float64
	StdDev float64 // sample standard deviation (n-1)
	CV     float64 // StdDev / Mean; zero when Mean is zero
	MAD    float64 // median absolute deviation from Median, unscaled
	Q1, Q3 float64 // quartiles, linear interpolation between order statistics
	IQR    float64 // Q3 - Q1
	Min    float64
	Max    float64

	Converged bool          // CV reached the target before the runs or budget ran out
	Elapsed   time.Duration // time spent on the measured samples
}

// Summarize computes Stats of samples, which it copies. Empty samples give
// a zero Stats with the unit set.
func Summarize(unit string, samples []float64) Stats {
	st := Stats{Unit: unit, Samples: slices.Clone(samples), N: len(samples)}
	if len(samples) == 0 {
		return st
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	st.Min, st.Max = sorted[0], sorted[len(sorted)-1]
	st.Median = quantile(sorted, 0.5)
	st.Q1, st.Q3 = quantile(sorted, 0.25), quantile(sorted, 0.75)
	st.IQR = st.Q3 - st.Q1

	st.Mean, st.StdDev = measure.MeanSD(samples)
	if st.Mean != 0 {
		st.CV = st.StdDev / math.Abs(st.Mean)
	}
	dev := make([]float64, len(sorted))
	for i, x := range sorted {
		dev[i] = math.Abs(x - st.Median)
	}
	slices.Sort(dev)
	st.MAD = quantile(dev, 0.5)
	return st
}

// quantile of sorted data, interpolating linearly (Hyndman–Fan type 7).
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	return sorted[lo] + (pos-float64(lo))*(sorted[hi]-sorted[lo])
}

// repeat takes one warm-up sample, then samples until MaxRuns are in, or
// until at least MinRuns are in and either the CV is at most TargetCV or
// the budget is spent.
func repeat(cfg settings, unit string, sample func() (float64, error)) (Stats, error) {
	if _, err := sample(); err != nil {
		return Stats{Unit: unit}, err
	}
	start := time.Now()
	var xs []float64
	for {
		v, err := sample()
		if err != nil {
			return Summarize(unit, xs), err
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return Summarize(unit, xs), fmt.Errorf("probe: sample %d is %g %s", len(xs), v, unit)
		}
		xs = append(xs, v)
		if len(xs) >= cfg.maxRuns {
			break
		}
		if len(xs) >= cfg.minRuns {
			if Summarize(unit, xs).CV <= cfg.targetCV || time.Since(start) >= cfg.budget {
				break
			}
		}
	}
	st := Summarize(unit, xs)
	st.Converged = st.CV <= cfg.targetCV
	st.Elapsed = time.Since(start)
	return st, nil
}
