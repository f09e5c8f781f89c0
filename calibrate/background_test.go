package calibrate

import (
	"math"
	"testing"

	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// TestBackgroundCPUs: the host's background work is the median, over the
// throughput runs that recorded it, of what others took on the engines'
// CPUs (siblings included), in CPUs; microbenchmarks, runs without a
// record and CPUs outside the engines count nothing, and it is capped.
func TestBackgroundCPUs(t *testing.T) {
	engines := []Engine{{Cluster: topology.Cluster{Name: "big", CPUs: []int{0, 1}, SMTCPUs: []int{4}}}}
	run := func(kind string, loads ...measure.CPULoad) measure.Measurement {
		m := measure.Measurement{Kind: kind, Plan: &model.Plan{}, Unit: "t/s"}
		if loads != nil {
			m.Interference = &measure.Interference{WallS: 1, CPUs: loads}
		}
		return m
	}
	load := func(cpu int, other, steal float64) measure.CPULoad {
		return measure.CPULoad{CPU: cpu, OwnPct: 90, OtherPct: other, StealPct: steal}
	}
	ms := []measure.Measurement{
		// 0.10 + 0.05 steal on cpu1 + 0.05 on sibling cpu4; cpu2 is no engine's.
		run(measure.Dispatcher, load(0, 10, 0), load(1, 0, 5), load(2, 90, 0), load(4, 5, 0)),
		run(measure.LlamaBench, load(0, 30, 0), load(1, 10, 0)), // 0.40
		run(measure.Dispatcher, load(0, 2, 0), load(1, 3, 0)),   // 0.05
		run(measure.Dispatcher), // no record: not counted
		{Kind: measure.Kernel, Interference: &measure.Interference{WallS: 1, CPUs: []measure.CPULoad{load(0, 300, 0)}}},
	}
	got, runs := BackgroundCPUs(engines, ms)
	if runs != 3 || math.Abs(got-0.20) > 1e-12 {
		t.Errorf("BackgroundCPUs = %g over %d runs, want 0.20 over 3", got, runs)
	}
	if got, runs := BackgroundCPUs(engines, ms[3:]); got != 0 || runs != 0 {
		t.Errorf("no record: %g over %d runs, want 0 over 0", got, runs)
	}
	busy := []measure.Measurement{run(measure.Dispatcher, load(0, 100, 0), load(1, 100, 0))}
	if got, _ := BackgroundCPUs(engines, busy); got != model.MaxBackgroundCPUs {
		t.Errorf("a host busier than the cap: %g, want %g", got, model.MaxBackgroundCPUs)
	}
	if p := Prior("bg", engines, ms, nil); p.Handoff.BackgroundCPUs != 0.20 {
		t.Errorf("Prior's handoff.background_cpus = %g, want the measured 0.20", p.Handoff.BackgroundCPUs)
	}
}

// TestRecordedBackgroundCPUs: two quick calibrations recorded on the
// 2-vCPU build machine (testdata/quick-vm) carry what else ran in every
// dispatcher run; their profiles take the median of it on cpu0-1, which
// BackgroundCPUs recomputes from the records' own shares here.
func TestRecordedBackgroundCPUs(t *testing.T) {
	engines := []Engine{{Cluster: topology.Cluster{Name: "big", CPUs: []int{0, 1}}}}
	for _, name := range []string{"try5", "try9"} {
		ms, errs := measure.ReadFile("testdata/quick-vm/" + name + ".jsonl")
		if len(errs) > 0 {
			t.Fatal(errs[0])
		}
		got, runs := BackgroundCPUs(engines, ms)
		var n int
		for _, m := range ms {
			if m.Kind == measure.Dispatcher && m.Interference != nil {
				n++
			}
		}
		if runs != n || n == 0 {
			t.Errorf("%s: median of %d runs, the file has %d dispatcher runs with a record", name, runs, n)
		}
		if got < 0 || got > 0.05 {
			t.Errorf("%s: background %g CPUs on a quiet machine, want 0..0.05", name, got)
		}
		if p := Prior(name, engines, ms, nil); p.Handoff.BackgroundCPUs != got {
			t.Errorf("%s: Prior's background %g, want %g", name, p.Handoff.BackgroundCPUs, got)
		}
	}
}
