package calibrate

import (
	"testing"
	"time"

	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// BenchmarkDriftReference asks whether a short fixed reference timed
// beside each run takes the machine's moment out of it. For 45 s it times,
// in turn, the quick grid's two-thread pool on the workload's own prompt
// at poll 50 (A) and at poll 25 (B) and the one-thread pool (C), two
// repeats each, and before and after each a reference: the two-thread pool
// (R2) or the one-thread pool (R1) on the decode-like shape, one repeat.
// Each run's sample is then corrected by its reference's speed at that
// moment (the mean of the references before and after it, over their
// median over the whole benchmark). It reports the CV of each series'
// samples raw and corrected (cv_A_raw, cv_A_ref…): the correction helps
// where the machine drifts on the time scale of a run and the reference
// follows it, and adds the reference's own noise where it does not.
// docs/busy-machine.md quotes it; run it on a quiet machine:
//
//	go test ./calibrate -run '^$' -bench DriftReference -benchtime 1x
func BenchmarkDriftReference(b *testing.B) {
	cpus, w := liveBench(b, 512<<20) // the quick calibration's workload
	m, err := dispatch.NewModel(w, 1)
	if err != nil {
		b.Fatal(err)
	}
	gemv, _, _ := Shapes(w)
	two, one := cpus[:2], cpus[:1]
	run := func(th, poll int, use []int, r *model.Run, reps int) []float64 {
		tps, err := nativeTPS(m, "big", th, poll, use, r, reps, 0)
		if err != nil {
			b.Fatal(err)
		}
		return tps
	}
	ref := func(th int) float64 {
		if th == 2 {
			return run(2, 50, two, gemv, 1)[0]
		}
		return run(1, 50, one, gemv, 1)[0]
	}
	type sample struct{ v, refBefore, refAfter float64 }
	for range b.N {
		run(2, 50, two, nil, 2) // warm
		series := map[string][]sample{}
		refs := map[int][]float64{}
		end := time.Now().Add(45 * time.Second)
		for time.Now().Before(end) {
			for _, s := range []struct {
				name     string
				th, poll int
			}{{"A", 2, 50}, {"B", 2, 25}, {"C", 1, 50}} {
				use := two
				if s.th == 1 {
					use = one
				}
				before := ref(s.th)
				vs := run(s.th, s.poll, use, nil, 2)
				after := ref(s.th)
				refs[s.th] = append(refs[s.th], before, after)
				for _, v := range vs {
					series[s.name] = append(series[s.name], sample{v, before, after})
				}
			}
		}
		for _, name := range []string{"A", "B", "C"} {
			th := 2
			if name == "C" {
				th = 1
			}
			med := medianOf(refs[th])
			var raw, cor []float64
			for _, s := range series[name] {
				raw = append(raw, s.v)
				cor = append(cor, s.v*med/((s.refBefore+s.refAfter)/2))
			}
			_, sdr := measure.MeanSD(raw)
			mr, _ := measure.MeanSD(raw)
			mc, sdc := measure.MeanSD(cor)
			b.Logf("%s (t=%d): %d samples, CV raw %.1f%%, by the reference %.1f%%", name, th, len(raw), 100*sdr/mr, 100*sdc/mc)
			b.ReportMetric(100*sdr/mr, "cv_"+name+"_raw_%")
			b.ReportMetric(100*sdc/mc, "cv_"+name+"_ref_%")
		}
		for _, th := range []int{2, 1} {
			mean, sd := measure.MeanSD(refs[th])
			b.Logf("reference t=%d: %d samples, median %.0f t/s, CV %.1f%%", th, len(refs[th]), medianOf(refs[th]), 100*sd/mean)
		}
	}
}

// liveBench is what this package's live benchmarks (DriftReference,
// EnginesAtOnce) start from: the CPUs this process may use, skipping the
// benchmark with fewer than two to pin to, and the calibration workload
// sized from this host's last-level cache (FallbackLLC when it cannot be
// read), its weights at most maxBytes.
func liveBench(b *testing.B, maxBytes int64) ([]int, *model.Workload) {
	b.Helper()
	cpus, err := probe.AllowedCPUs()
	if err != nil || len(cpus) < 2 {
		b.Skipf("needs two CPUs to pin to (%v, %v)", cpus, err)
	}
	llc, _, err := probe.HostLLC()
	if err != nil {
		llc = FallbackLLC
	}
	return cpus, dispatch.CalibrationWorkload(llc, maxBytes)
}

// nativeTPS runs m's native plan on one engine, pinned to cpus: threads
// at poll, warmup untimed runs and reps timed ones of r (nil: the
// workload's own run), seed 1. It returns each timed run's t/s.
func nativeTPS(m *dispatch.Model, engine string, threads, poll int, cpus []int, r *model.Run, reps, warmup int) ([]float64, error) {
	res, err := m.Run(dispatch.Config{Plan: model.NewNative(engine, threads, poll), CPUs: map[string][]int{engine: cpus},
		Repeats: reps, Warmup: warmup, Seed: 1, Run: r})
	if err != nil {
		return nil, err
	}
	return res.TPS, nil
}
