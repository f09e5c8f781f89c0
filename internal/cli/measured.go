package cli

import (
	"fmt"
	"io"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
)

// Measured are a command's --measurements, read before its request so
// that the request predicts the workload they ran.
type Measured struct {
	Raw  []measure.Measurement // as read
	Src  string                // a name for them
	stat fit.Stat              // how the runs of one configuration merge
	wl   *model.Workload       // the one workload a file's lines all ran, or nil
}

// ReadMeasurements reads the measurements file path, or, when path is ""
// and --soc is the rk3588 preset (or an unchanged copy of it:
// presets.SoCPreset), the seed's figures. The request then
// predicts the workload a file's lines all ran, unless --workload is
// given (merge refuses one that disagrees).
func (r *RequestFlags) ReadMeasurements(path, statFlag string, warn io.Writer) (*Measured, error) {
	stat, err := fit.ParseStat(statFlag)
	if err != nil {
		return nil, fmt.Errorf("--stat: %w", err)
	}
	if path == "" && presets.SoCPreset(r.SoC) != presets.SeedSoC {
		return nil, fmt.Errorf("--measurements: a measurements file is required for soc %s (only %s has built-in ones)", r.SoC, presets.SeedSoC)
	}
	s, err := presets.LoadSoC(r.SoC)
	if err != nil {
		return nil, fmt.Errorf("--soc: %w", err)
	}
	m := &Measured{stat: stat}
	var warnings []string
	// A run the SoC cannot run is a bad line (fit.PlanCheck).
	if m.Raw, warnings, m.Src, err = presets.Measurements(path, fit.PlanCheck(s)); err != nil {
		return nil, fmt.Errorf("--measurements: %w", err)
	}
	for _, w := range warnings {
		if warn != nil {
			fmt.Fprintf(warn, "blsim: warning: %s\n", w)
		}
	}
	if path != "" {
		if m.wl, err = presets.MeasuredWorkload(m.Raw); err != nil {
			return nil, fmt.Errorf("--measurements: %s: %w", m.Src, err)
		}
		r.MeasuredWL = m.wl
	}
	return m, nil
}

// Merge checks that the measurements were made on q's SoC and workload
// and returns their throughputs, one per configuration (merged as blsim
// fit and validate merge them).
func (r *RequestFlags) Merge(m *Measured, q predict.Request) ([]measure.Measurement, error) {
	if m.wl != nil && m.wl.Name != q.Workload.Name {
		return nil, fmt.Errorf("--workload: the measurements in %s ran workload %s, not workload %s; leave --workload out to predict theirs", m.Src, m.wl.Name, q.Workload.Name)
	}
	if err := measure.CheckNames(m.Raw, []string{q.SoC.Name, r.SoC}, q.Workload.Name); err != nil {
		return nil, fmt.Errorf("--measurements: %s: %w", m.Src, err)
	}
	return fit.Merge(m.Raw, m.stat), nil
}
