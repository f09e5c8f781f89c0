package report

import (
	"fmt"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
)

// Input is what a report is built from: the request predicted and,
// optionally, measurements with the model that predicts each of them.
type Input struct {
	// Request is the prediction the report is about; Build adds the split
	// curve (two CPU engines) and the figures' traces to it.
	Request predict.Request
	// Own is the workload's own run: what a measurement that records no
	// run of its own ran, and the thread sweep's other test.
	Own model.Run
	// Run predicts a request (nil: predict.Run); a command passes one
	// that shows progress.
	Run func(predict.Request) (*predict.Prediction, error)
	// Measured are the measurements, one per configuration (fit.Merge),
	// or nil; Source names them. Predicted predicts each and Fitted says
	// which set the profile's values (calibrate/fit.Parity).
	Measured  []measure.Measurement
	Source    string
	Predicted predict.Predictor
	Fitted    func(*measure.Measurement) bool
	// WhatIfProgress, when not nil, is told of the what-if grid's cells
	// done (predict.WhatIfOptions.Progress).
	WhatIfProgress measure.Progress
	// Seed says the SoC is the seed's (rk3588).
	Seed bool
	// Command, Version and Date end the verdict.
	Command, Version, Date string
}

// Build predicts in.Request and everything report.md and its figures
// show around it: the poll-0 split (the seed's artefact), the thread
// sweep, the what-if grid, the measurements against their predictions and
// on the split curve. It returns the report as a value: Markdown writes
// report.md from it, plots.SaveViews draws its figures from the same
// data, simulating nothing, and Data.Figures names their files.
func Build(in Input) (*Data, error) {
	run := in.Run
	if run == nil {
		run = predict.Run
	}
	q := in.Request
	q.Sweep, q.SweepSteps, q.Traces = q.TwoEngine(), 40, true
	if to := predict.MeasuredMaxFrac(in.Measured); to > 0 {
		q.SweepMaxFrac = to // the curve reaches every measured share
	}
	p, err := run(q)
	if err != nil {
		return nil, err
	}
	s, wl := q.SoC, q.Workload
	d := &Data{Prediction: p, SoC: s, Workload: wl, Seed: in.Seed, Drawn: p.Drawn().Kind,
		Command: in.Command, Version: in.Version, Date: in.Date}
	// The seed's poll-0 artefact: the same token split at poll 0.
	if _, token := p.Plan(model.TokenSplit, predict.Requested); token && p.TwoEngine() && q.Poll != 0 && p.Plans[0].Kind == predict.Requested {
		if d.Poll0, err = predict.Poll0(q, p); err != nil {
			return nil, err
		}
	}
	if d.Threads, err = predict.ThreadsBeside(q, in.Own, p); err != nil {
		d.Threads, d.NoThreads = nil, err.Error()
	}
	if in.Measured != nil {
		if d.Parity, err = predict.ParityPoints(in.Measured, in.Predicted, in.Fitted); err != nil {
			return nil, fmt.Errorf("parity: %s: %w", in.Source, err)
		}
		d.ParitySource, d.Sources = in.Source, measure.Sources(in.Measured)
		if p.TwoEngine() {
			d.Measured = predict.SplitPoints(in.Measured, p, wl.WithRun(in.Own))
		}
	}
	heat, err := predict.WhatIfOf(p, s, wl, predict.WhatIfOptions{Progress: in.WhatIfProgress})
	if err != nil {
		return nil, err
	}
	d.WhatIf = &heat
	return d, nil
}
