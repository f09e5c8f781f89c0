package probe

import (
	"fmt"
	"math"
	"testing"
)

// BenchmarkGemvEfficiency compares the two ways of measuring the gemv
// efficiency (the Q8_0 4×1 walk's rate over the 4×2 tile's) on each CPU
// this process may use: "separate", the calibration step before it used
// KernelRatio (each kernel's samples as a series of its own, the gemv's
// samples over the tile's median), and "paired", KernelRatio. The two
// alternate, b.N calls each. It reports the median over the calls of the
// CV each measurement gives (cv_%, which sets the calibration prior's
// width) and the spread of the calls' medians (spread_% = their CV: how
// far two calibrations' values differ). docs/busy-machine.md quotes it;
// run it on a quiet machine:
//
//	go test ./calibrate/probe -run '^$' -bench GemvEfficiency -benchtime 10x
func BenchmarkGemvEfficiency(b *testing.B) {
	cpus, err := AllowedCPUs()
	if err != nil {
		b.Fatal(err)
	}
	for _, cpu := range cpus {
		b.Run(fmt.Sprintf("cpu%d", cpu), func(b *testing.B) {
			var cv, med [2][]float64
			for range b.N {
				for i, f := range []func() (Stats, error){
					func() (Stats, error) { return separateRatio(cpu) },
					func() (Stats, error) { return KernelRatio(cpu, KernelQ8Q8Gemv, KernelQ8Q8Tile, nil) },
				} {
					st, err := f()
					if err != nil {
						b.Fatal(err)
					}
					cv[i], med[i] = append(cv[i], st.CV), append(med[i], st.Median)
				}
			}
			for i, name := range []string{"separate", "paired"} {
				m := Summarize("", med[i])
				b.ReportMetric(100*Summarize("", cv[i]).Median, name+"_cv_%")
				b.ReportMetric(100*m.CV, name+"_spread_%")
				b.ReportMetric(m.Median, name+"_ratio")
			}
		})
	}
}

// separateRatio is the gemv efficiency as the calibration step measured it
// before KernelRatio: the gemv's samples, then the tile's, each a series
// of its own; the gemv's samples over the tile's median, their CV the two
// series' CVs added in quadrature.
func separateRatio(cpu int) (Stats, error) {
	gemv, err := KernelThroughput([]int{cpu}, 1, KernelQ8Q8Gemv, nil)
	if err != nil {
		return Stats{}, err
	}
	tile, err := KernelThroughput([]int{cpu}, 1, KernelQ8Q8Tile, nil)
	if err != nil {
		return Stats{}, err
	}
	xs := make([]float64, len(gemv.Samples))
	for i, v := range gemv.Samples {
		xs[i] = v / tile.Median
	}
	st := Summarize("ratio", xs)
	st.CV = math.Hypot(gemv.CV, tile.CV)
	return st, nil
}
