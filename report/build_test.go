package report_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/report"
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
