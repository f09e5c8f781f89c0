package calibrate

import (
	"bytes"
	"math"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/model"
)

// BenchmarkFitQuick refits a recorded one-cluster quick calibration of the
// 2-vCPU build machine (testdata/quick-vm-five/v-1.jsonl) as `blsim
// calibrate --cluster big=0-1 --quick --plans fit+heldout` fits it
// (fit.Job, the held-out grid held out), at the collector's default
// (GOGC=100, no memory limit; this test binary's own setting is
// testgc's) and as calibrate sets it for its fit (FitCollector). Every
// fit must write the same profile, byte for byte (its date aside): the
// collector changes the time, not the result. Run with -benchtime 1x
// -count 5: one fit takes about a second.
func BenchmarkFitQuick(b *testing.B) {
	ms, w := recordedQuick(b, "testdata/quick-vm-five/v-1.jsonl")
	engines := NewEngines([]topology.Cluster{{Name: "big", CPUs: []int{0, 1}}})
	var first []byte
	for _, c := range []struct {
		name string
		set  func() (restore func())
	}{
		{"GOGC=100", func() func() {
			percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
			return func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) }
		}},
		{"FitCollector", func() func() {
			percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
			restore := FitCollector("/")
			return func() { restore(); debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) }
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			restore := c.set()
			defer restore()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				j := fit.Job{Prior: Prior("quick-vm", engines, ms, w), Measurements: ms,
					Options: fit.Options{Stat: fit.Median, Kernels: fit.KernelsAuto}, Holdout: []string{"set=" + HeldOutGrid}}
				r, _, err := j.Run()
				if err != nil {
					b.Fatal(err)
				}
				r.SoC.Provenance.Date = ""
				y, err := model.MarshalSoC(r.SoC)
				if err != nil {
					b.Fatal(err)
				}
				if first == nil {
					first = y
				} else if !bytes.Equal(y, first) {
					b.Fatalf("%s: the fitted profile differs from the first fit's:\n%s\nfirst:\n%s", c.name, y, first)
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.NumGC-before.NumGC)/float64(b.N), "GCs/op")
		})
	}
}
