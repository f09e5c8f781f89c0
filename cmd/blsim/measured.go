package main

import (
	"fmt"
	"io"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
)

// measured are a command's --measurements, read before its request so
// that the request predicts the workload they ran.
type measured struct {
	raw  []measure.Measurement // as read
	src  string                // a name for them
	stat fit.Stat              // how the runs of one configuration merge
	wl   *model.Workload       // the one workload a file's lines all ran, or nil
}

// readMeasurements reads the measurements file path, or, when path is ""
// and --soc is the rk3588 preset, the seed's figures. The request then
// predicts the workload a file's lines all ran, unless --workload is
// given (merge refuses one that disagrees).
func (r *requestFlags) readMeasurements(path, statFlag string, warn io.Writer) (*measured, error) {
	stat, err := fit.ParseStat(statFlag)
	if err != nil {
		return nil, fmt.Errorf("--stat: %w", err)
	}
	if path == "" && r.SoC != seedSoC {
		return nil, fmt.Errorf("--measurements: a measurements file is required for soc %s (only %s has built-in ones)", r.SoC, seedSoC)
	}
	s, err := presets.LoadSoC(r.SoC)
	if err != nil {
		return nil, fmt.Errorf("--soc: %w", err)
	}
	m := &measured{stat: stat}
	var warnings []string
	// A run the SoC cannot run is a bad line (fit.PlanCheck).
	if m.raw, warnings, m.src, err = presets.Measurements(path, fit.PlanCheck(s)); err != nil {
		return nil, fmt.Errorf("--measurements: %w", err)
	}
	warnAll(warn, warnings)
	if path != "" {
		if m.wl, err = presets.MeasuredWorkload(m.raw); err != nil {
			return nil, fmt.Errorf("--measurements: %s: %w", m.src, err)
		}
		r.measuredWL = m.wl
	}
	return m, nil
}

// merge checks that the measurements were made on q's SoC and workload
// and returns their throughputs, one per configuration (merged as blsim
// fit and validate merge them).
func (r *requestFlags) merge(m *measured, q predict.Request) ([]measure.Measurement, error) {
	if m.wl != nil && m.wl.Name != q.Workload.Name {
		return nil, fmt.Errorf("--workload: the measurements in %s ran workload %s, not workload %s; leave --workload out to predict theirs", m.src, m.wl.Name, q.Workload.Name)
	}
	if err := measure.CheckNames(m.raw, []string{q.SoC.Name, r.SoC}, q.Workload.Name); err != nil {
		return nil, fmt.Errorf("--measurements: %s: %w", m.src, err)
	}
	return fit.Merge(m.raw, m.stat), nil
}
