package fit

import (
	"fmt"
	"slices"

	"github.com/blsim/blsim/measure"
)

// Noise is how far a configuration's median run falls below its fastest
// sample, over the configurations with more than one sample: the ratio of
// the one to the other, lowest, highest and typical (the median). On a
// quiet machine it stays near 1; a typical ratio well below it says the
// runs were disturbed, and Best may fit better than Median.
type Noise struct {
	Min, Max, Typical float64
	// Configurations counts the configurations with more than one sample.
	Configurations int
}

// NoiseOf is the noise of the throughputs in ms; false when no
// configuration has two samples.
func NoiseOf(ms []measure.Measurement) (Noise, bool) {
	med, best := Merge(ms, Median), Merge(ms, Best)
	var ratios []float64
	for i := range med {
		if len(best[i].Samples) < 2 || best[i].Median <= 0 {
			continue
		}
		ratios = append(ratios, med[i].Median/best[i].Median)
	}
	if len(ratios) == 0 {
		return Noise{}, false
	}
	slices.Sort(ratios)
	return Noise{Min: ratios[0], Max: ratios[len(ratios)-1], Typical: ratios[len(ratios)/2], Configurations: len(ratios)}, true
}

// String is "noise: a configuration's median run is 0.69–0.99 of its
// fastest sample (0.99 typical, 2 configurations)".
func (n Noise) String() string {
	return fmt.Sprintf("noise: a configuration's median run is %.2f–%.2f of its fastest sample (%.2f typical, %d configurations)",
		n.Min, n.Max, n.Typical, n.Configurations)
}
