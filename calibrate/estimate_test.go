package calibrate

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/calibrate/runner"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// TestEstimateGrid: a point's time is its tests' tokens at the prior's
// predicted rates, llama-bench's repetitions and warm-up, and the load; a
// point whose tests the knobs do not give cannot be told.
func TestEstimateGrid(t *testing.T) {
	prior, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	w, err := presets.Workload("qwen3.5-35b-a3b")
	if err != nil {
		t.Fatal(err)
	}
	wyaml, _ := model.MarshalWorkload(w)
	cfg := runner.Config{Grid: runner.Grid{Command: []string{"llama-bench", "-p", "64", "-n", "0", "-r", "2"},
		Args: []runner.Axis{{Name: "-t", Values: []string{"4"}}}}, Mapping: runner.DefaultMapping(), Workload: w.Name, WorkloadYAML: string(wyaml)}
	EstimateGrid(&cfg, prior)
	p := cfg.Grid.Points()[0]
	got, ok := cfg.Estimate(p)
	m := measure.Measurement{Kind: measure.LlamaBench, Workload: w.Name, WorkloadYAML: string(wyaml), Unit: "t/s",
		Plan: &model.Plan{Mode: "native", Engines: []string{"big"}, Fracs: []float64{1}, Threads: []int{4}, Poll: 50},
		Run:  &measure.Run{PromptTokens: 64, Ubatch: 64}}
	tps, err := fit.NewPredictor().Predict(prior, &m)
	if err != nil {
		t.Fatal(err)
	}
	want := LoadSeconds + 3*64/tps
	if !ok || math.Abs(got.Seconds()-want) > 1e-6 {
		t.Errorf("estimate %v (%v), want %.3f s (%.2f t/s)", got, ok, want, tps)
	}
	if h := cfg.Header("r.jsonl"); !strings.HasSuffix(h, "; about "+got.Round(time.Second).String()) {
		t.Errorf("header %q does not give the estimate %v", h, got)
	}
	cfg.Grid.Command = []string{"my-fork-bench"}
	EstimateGrid(&cfg, prior)
	if _, ok := cfg.Estimate(cfg.Grid.Points()[0]); ok {
		t.Error("a point whose tests are not known was estimated")
	}
}
