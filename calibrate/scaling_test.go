package calibrate

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// A cluster of two or more cores gets one thread-scaling step, timed on
// all its CPUs; a one-core cluster none. The loss is (one/each-1)/(n-1),
// within [0, 1], and the prior takes it; unmeasured, the prior keeps 0.02.
func TestThreadScaling(t *testing.T) {
	two := Engine{Cluster: topology.Cluster{Name: "big", CPUs: []int{0, 1}}, ClockGHz: 2}
	one := Engine{Cluster: topology.Cluster{Name: "little", CPUs: []int{2}}, ClockGHz: 1}
	var ids []string
	for _, st := range MicroSteps(&Settings{Engines: []Engine{two, one}}) {
		if strings.HasPrefix(st.ID, "scaling/") {
			ids = append(ids, st.ID)
			if len(st.cpus) != 2 {
				t.Errorf("%s pinned to %v, want both CPUs", st.ID, st.cpus)
			}
		}
	}
	if len(ids) != 1 || ids[0] != "scaling/q8x4x2/big/0-1" {
		t.Errorf("scaling steps %v, want one for big", ids)
	}
	for _, c := range []struct {
		n        int
		one, all float64
		want     float64
	}{
		{2, 100, 100, 0},
		{2, 100, 80, 0.25},    // 2 threads at 1.6x one: 2/(1+0.25)
		{4, 100, 50, 1.0 / 3}, // 4 threads at 2x one
		{2, 80, 100, 0},       // alone slower than together: noise, not a gain
		{2, 100, 20, 1},       // capped
	} {
		m := ScalingMeasurement("id", "engines.big.thread_scaling_loss", "big", c.n,
			probe.Stats{Median: c.one, CV: 0.03}, probe.Stats{Median: c.all, CV: 0.04})
		if math.Abs(m.Median-c.want) > 1e-12 || math.Abs(m.CV-0.05) > 1e-12 {
			t.Errorf("n=%d one %g all %g: loss %g cv %g, want %g", c.n, c.one, c.all, m.Median, m.CV, c.want)
		}
		if c.want > 0 && c.want < 1 {
			e := model.Engine{ThreadScalingLoss: m.Median}
			if got := e.ThreadRate(c.n); math.Abs(got-float64(c.n)*c.all/c.one) > 1e-9 {
				t.Errorf("n=%d: the engine's rate %g, want %g", c.n, got, float64(c.n)*c.all/c.one)
			}
		}
	}
	ms := []measure.Measurement{ScalingMeasurement("scaling/q8x4x2/big/0-1", "engines.big.thread_scaling_loss", "big", 2,
		probe.Stats{Median: 100}, probe.Stats{Median: 80})}
	ms[0].Status = measure.StatusOK
	p := Prior("p", []Engine{two, one}, ms, nil)
	if p.Engines[0].ThreadScalingLoss != 0.25 || p.Engines[1].ThreadScalingLoss != 0.02 {
		t.Errorf("prior's losses %g and %g, want 0.25 (measured) and 0.02", p.Engines[0].ThreadScalingLoss, p.Engines[1].ThreadScalingLoss)
	}
}

// The loss of interleaved pairs is the median of the pairs' losses: one
// pair a slow spell fell on (its core alone at half speed) moves it little.
func TestScalingOfPairs(t *testing.T) {
	st := func(v float64) probe.Stats { return probe.Stats{Median: v, CV: 0.02} }
	ones := []probe.Stats{st(100), st(100), st(50), st(100), st(100)}
	alls := []probe.Stats{st(80), st(90), st(80), st(85), st(100)}
	m := ScalingOfPairs("id", "engines.big.thread_scaling_loss", "big", 2, ones, alls)
	// Losses 0.25, 0.111, 0 (alone slower: noise), 0.176, 0: median 0.111.
	if want := 100.0/90 - 1; math.Abs(m.Median-want) > 1e-12 || len(m.Samples) != 5 || m.Knobs["pairs"] != "5" {
		t.Errorf("loss %g samples %v knobs %v, want %g of 5 pairs", m.Median, m.Samples, m.Knobs, want)
	}
	if one := ScalingOfPairs("id", "p", "big", 2, ones[:1], alls[:1]); one.Median != 0.25 || one.Knobs["pairs"] != "" {
		t.Errorf("one pair: %g %v, want ScalingMeasurement's 0.25", one.Median, one.Knobs)
	}
}
