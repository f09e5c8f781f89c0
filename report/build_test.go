package report_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/report"
	"github.com/blsim/blsim/sim"
)

// Build returns the report as a value: its split curve reaches and holds
// every measured share (the report dropped the points that plot split
// drew, issue 29), its traces are the drawn plan's, and Markdown writes it.
func TestBuild(t *testing.T) {
	s, w := seed(t)
	var ms []measure.Measurement
	for i, f := range []float64{0.12, 0.8} {
		pl := model.Plan{Mode: model.TokenSplit, Engines: []string{"big", "little"}, Fracs: []float64{1 - f, f}, Threads: []int{4, 4}, Poll: 50}
		ms = append(ms, measure.Measurement{Schema: measure.Schema, ID: fmt.Sprint("m", i), Kind: measure.Dispatcher, SoC: s.Name,
			Workload: w.Name, Plan: measure.PlanOf(pl), Unit: "t/s", Status: "ok", Samples: []float64{20}, Median: 20})
	}
	in := report.Input{Request: predict.Request{SoC: s, Workload: w, Fracs: []float64{0.88, 0.12}, Poll: 50, Draws: 4}, Own: w.Run,
		Measured: ms, Source: "test", Predicted: func(*measure.Measurement) (float64, error) { return 21, nil },
		Command: "blsim report", Version: "test", Date: "2026-12-02"}
	d, err := report.Build(in)
	if err != nil {
		t.Fatal(err)
	}
	p := d.Prediction
	if len(d.Measured) != 2 || d.Measured[1].Frac != 0.8 {
		t.Errorf("measured on the split curve: %+v, want both shares", d.Measured)
	}
	if last := p.Sweep[len(p.Sweep)-1]; last.Frac < 0.8 {
		t.Errorf("the split curve ends at %.3f, before the measured 0.8", last.Frac)
	}
	if p.Traces == nil || p.Traces.Plan.String() != p.Drawn().Plan.String() || len(d.Parity) != 2 || d.WhatIf == nil || d.Threads == nil {
		t.Fatalf("report data: traces %v, parity %d, what-if %v, threads %v", p.Traces, len(d.Parity), d.WhatIf != nil, d.Threads != nil)
	}
	var md strings.Builder
	if err := report.Markdown(&md, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "blsim report") {
		t.Errorf("report.md does not end its verdict with the command:\n%.600s", md.String())
	}
}

// The seed's report, built, runs at most a third of the 3161 simulations
// it ran before sim.Evaluator (issue 29; docs/verdicts.md counts it): its
// views take the prediction's runs (the poll-0 paragraph and the thread
// sweep reuse its evaluator; the heatmap's cells share native and the
// dispatcher alone along the compute ratio).
func TestBuildCount(t *testing.T) {
	s, w := seed(t)
	n0 := sim.Simulations()
	d, err := report.Build(report.Input{Request: predict.Request{SoC: s, Workload: w, Fracs: []float64{0.88, 0.12}, Poll: 50}, Own: w.Run})
	if err != nil {
		t.Fatal(err)
	}
	if n := sim.Simulations() - n0; n > 3161/3 {
		t.Errorf("the seed's report simulated %d runs; want at most %d", n, 3161/3)
	}
	if d.Poll0 == nil || d.Threads == nil || d.WhatIf == nil {
		t.Errorf("report data: poll 0 %v, threads %v, what-if %v", d.Poll0 != nil, d.Threads != nil, d.WhatIf != nil)
	}
}
