package predict

import (
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/sim"
)

// Benchmarks of what one prediction costs, in time and in simulations
// (sims/op, sim.Simulations): the work sim.Evaluator does once. They
// compile against the code before it too (given a sim.Simulations
// counter), so docs/verdicts.md quotes old and new side by side from one
// run.

func benchLoad(b *testing.B, soc string) (*model.SoC, *model.Workload) {
	b.Helper()
	s, err := presets.LoadSoC(soc)
	if err != nil {
		b.Fatal(err)
	}
	w, err := presets.LoadWorkload("qwen3.5-35b-a3b")
	if err != nil {
		b.Fatal(err)
	}
	return s, w
}

// BenchmarkPredictDDR5Token is `blsim predict --soc ddr5 --split token`.
func BenchmarkPredictDDR5Token(b *testing.B) {
	s, w := benchLoad(b, "ddr5")
	n0 := sim.Simulations()
	for b.Loop() {
		if _, err := Run(Request{SoC: s, Workload: w, Modes: []model.Mode{model.TokenSplit}, Fracs: []float64{0.88, 0.12}, Poll: 50}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(sim.Simulations()-n0)/float64(b.N), "sims/op")
}

// BenchmarkPredictSeed is `blsim predict` (both modes on rk3588).
func BenchmarkPredictSeed(b *testing.B) {
	s, w := benchLoad(b, "rk3588")
	n0 := sim.Simulations()
	for b.Loop() {
		if _, err := Run(Request{SoC: s, Workload: w, Fracs: []float64{0.88, 0.12}, Poll: 50}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(sim.Simulations()-n0)/float64(b.N), "sims/op")
}

// BenchmarkHeatmapSeed is the heatmap `blsim plot heatmap` draws around
// the seed's prediction (12 x 10 what-if SoCs), without the prediction.
func BenchmarkHeatmapSeed(b *testing.B) {
	s, w := benchLoad(b, "rk3588")
	p, err := Run(Request{SoC: s, Workload: w, Fracs: []float64{0.88, 0.12}, Poll: 50})
	if err != nil {
		b.Fatal(err)
	}
	n0 := sim.Simulations()
	for b.Loop() {
		if _, err := WhatIfOf(p, s, w, WhatIfOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(sim.Simulations()-n0)/float64(b.N), "sims/op")
}
