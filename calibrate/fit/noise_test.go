package fit

import (
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

func TestNoiseOf(t *testing.T) {
	run := func(frac float64, samples ...float64) measure.Measurement {
		m := measure.Measurement{Schema: measure.Schema, Kind: measure.LlamaBench, Workload: "w", Unit: "t/s", Status: "ok",
			Plan: &model.Plan{Mode: "token", Engines: []string{"big", "little"}, Fracs: []float64{1 - frac, frac}, Threads: []int{1, 1}}, Samples: samples}
		m.Summarize()
		return m
	}
	noisy := []measure.Measurement{run(0.1, 200, 205, 300), run(0.1, 210, 206, 204), run(0.2, 100, 99, 101)}
	n, ok := NoiseOf(noisy)
	want := "noise: a configuration's median run is 0.69–0.99 of its fastest sample (0.99 typical, 2 configurations)"
	if !ok || n.String() != want {
		t.Errorf("NoiseOf = %q, %v, want %q", n, ok, want)
	}
	noisy = append(noisy, run(0.3, 60, 90, 61))
	if n, ok := NoiseOf(noisy); !ok || n.Configurations != 3 || n.Typical > 0.7 || n.String() != "noise: a configuration's median run is 0.68–0.99 of its fastest sample (0.69 typical, 3 configurations)" {
		t.Errorf("noisy host: %+v %q", n, n)
	}
	if n, ok := NoiseOf([]measure.Measurement{run(0.1, 200)}); ok {
		t.Errorf("one sample: %+v", n)
	}
}
