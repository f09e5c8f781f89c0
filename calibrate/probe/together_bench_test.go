package probe

import (
	"testing"
)

// BenchmarkStreamTogether compares the two ways of measuring what two CPUs
// read from DRAM at once (what sets dram.sustained_gb_s's prior):
// "contended", the calibration step before StreamReadTogether (each CPU's
// pass on the wall clock while the other streams, one after the other,
// their medians added), and "together", StreamReadTogether. The two
// alternate, b.N calls each, on the first two CPUs this process may use,
// each CPU reading DefaultWorkingSet as the calibration's step does. It
// reports the median over the calls of the CV each measurement gives
// (cv_%, which sets the prior's width), the spread of the calls' values
// (spread_%, their CV) and their median (GB/s). docs/busy-machine.md
// quotes it; run it on a quiet machine:
//
//	go test ./calibrate/probe -run '^$' -bench StreamTogether -benchtime 10x
func BenchmarkStreamTogether(b *testing.B) {
	cpus, err := AllowedCPUs()
	if err != nil {
		b.Fatal(err)
	}
	if len(cpus) < 2 {
		b.Skip("needs two CPUs")
	}
	ws := DefaultWorkingSet(0)
	var cv, val [2][]float64
	for range b.N {
		c, err := streamReadContended(cpus[:1], cpus[1:2], ws, nil)
		if err != nil {
			b.Fatal(err)
		}
		cv[0], val[0] = append(cv[0], max(c.A.CV, c.B.CV)), append(val[0], c.A.Median+c.B.Median)
		st, err := StreamReadTogether(cpus[:2], ws, nil)
		if err != nil {
			b.Fatal(err)
		}
		cv[1], val[1] = append(cv[1], st.CV), append(val[1], st.Median)
	}
	for i, name := range []string{"contended", "together"} {
		m := Summarize("", val[i])
		b.ReportMetric(100*Summarize("", cv[i]).Median, name+"_cv_%")
		b.ReportMetric(100*m.CV, name+"_spread_%")
		b.ReportMetric(m.Median, name+"_GB/s")
	}
}
