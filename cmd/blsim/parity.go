package main

import (
	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
)

// parityPoints predicts every throughput of ms (merged from the records
// raw) on s by plain simulation (each measurement's own plan and workload;
// w when it names none), each point told fitted or held-out by s's
// provenance (fit.FittedOn).
func parityPoints(s *model.SoC, w *model.Workload, ms, raw []measure.Measurement) ([]predict.ParityPoint, error) {
	pr := fit.NewPredictor()
	if w != nil {
		pr.Add(w)
	}
	pred := func(m *measure.Measurement) (float64, error) { return pr.Predict(s, m) }
	var fitted func(*measure.Measurement) bool
	if set := fit.FittedOn(s); !set.Unrecorded() {
		fitted = set.Configs(raw)
	}
	return predict.ParityPoints(ms, pred, fitted)
}
