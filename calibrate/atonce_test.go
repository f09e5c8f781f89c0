package calibrate

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// TestAtOnceMeasurement: the record's value is the engine that lost more,
// each engine's speeds and keep are in its knobs, and an engine measured
// at zero alone keeps nothing.
func TestAtOnceMeasurement(t *testing.T) {
	run := &model.Run{PromptTokens: 64, Ubatch: 2}
	m := AtOnceMeasurement("atonce/1+0", [2]string{"big", "little"}, run, [2]float64{400, 500}, [2]float64{392, 450})
	if m.Kind != measure.AtOnce || m.Param != "" || m.Median != 0.9 || !m.OK() || m.Run.Ubatch != 2 {
		t.Errorf("record %+v", m)
	}
	if m.Knobs["big_keep"] != "0.980" || m.Knobs["little_keep"] != "0.900" || m.Knobs["little_alone_tps"] != "500" || m.Knobs["big_at_once_tps"] != "392" {
		t.Errorf("knobs %v", m.Knobs)
	}
	if z := AtOnceMeasurement("x", [2]string{"a", "b"}, run, [2]float64{0, 500}, [2]float64{1, 500}); z.Median != 0 {
		t.Errorf("an engine at 0 t/s alone: keep %g, want 0", z.Median)
	}
}

// TestAtOnceStep runs the step on two CPUs: its record says each engine's
// speeds alone and at once, and it comes before the dispatcher grid, only
// where there are two engines and the microbenchmarks run.
func TestAtOnceStep(t *testing.T) {
	cpus, err := probe.AllowedCPUs()
	if err != nil || len(cpus) < 2 {
		t.Skipf("needs two CPUs (%v, %v)", cpus, err)
	}
	w := dispatch.CalibrationWorkload(1<<20, 0)
	s := &Settings{Engines: NewEngines([]topology.Cluster{{Name: "big", CPUs: cpus[1:2]}, {Name: "little", CPUs: cpus[:1]}}), Quick: true, Workload: w}
	steps, err := DispatcherSteps(s, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) < 2 || !strings.HasPrefix(steps[0].ID, "atonce/") || !strings.HasPrefix(steps[1].ID, "dispatcher/") {
		t.Fatalf("steps %s, %s...: want the at-once step first", steps[0].ID, steps[1].ID)
	}
	m, err := steps[0].run()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %g %v", m.ID, m.Median, m.Knobs)
	if m.Kind != measure.AtOnce || !(m.Median > 0) || m.Knobs["big_alone_tps"] == "" || m.Knobs["little_at_once_tps"] == "" {
		t.Errorf("record %+v", m)
	}
	s.NoMicro = true
	if steps, _ := DispatcherSteps(s, ""); strings.HasPrefix(steps[0].ID, "atonce/") {
		t.Error("NoMicro: the at-once step is there")
	}
	s.NoMicro, s.Engines = false, s.Engines[:1]
	if steps, _ := DispatcherSteps(s, ""); strings.HasPrefix(steps[0].ID, "atonce/") {
		t.Error("one engine: the at-once step is there")
	}
}
