package predict

import (
	"errors"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/sim"
)

// load returns the preset SoC soc and the qwen3.5-35b-a3b workload.
func load(t *testing.T, soc string) (*model.SoC, *model.Workload) {
	t.Helper()
	s, err := presets.LoadSoC(soc)
	if err != nil {
		t.Fatal(err)
	}
	w, err := presets.LoadWorkload("qwen3.5-35b-a3b")
	if err != nil {
		t.Fatal(err)
	}
	return s, w
}

// simPredictor is a plain (uncalibrated) predictor that does not need
// calibrate/fit: it simulates the measurement's own plan of w on s (a
// native plan recorded without shares runs everything on its engine).
func simPredictor(s *model.SoC, w *model.Workload) Predictor {
	return func(m *measure.Measurement) (float64, error) {
		if m.Plan == nil {
			return 0, errors.New("measurement " + m.ID + " has no plan")
		}
		p := *m.Plan
		if p.Mode == model.Native && len(p.Fracs) == 0 {
			p.Fracs = []float64{1}
		}
		r, err := sim.Run(s, w, p)
		if err != nil {
			return 0, err
		}
		return r.TPS, nil
	}
}

// seedMeasurements are the seed experiment's reported figures.
func seedMeasurements(t *testing.T) []measure.Measurement {
	t.Helper()
	ms, warns, _, err := presets.Measurements("", nil)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	return ms
}
