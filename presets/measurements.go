package presets

import (
	"bytes"
	_ "embed"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// seedRK3588 is the seed experiment's own figures (Exp-2026-08-17, RK3588,
// 35B MoE, pp512): native and token split at frac 0.12, both at poll 50.
// The seed's poll-0 "+1 t/s" has no absolute numbers, so it is not a
// measurement here.
//
//go:embed measurements/seed-rk3588.jsonl
var seedRK3588 []byte

// SeedSoC is the preset the seed's figures were measured on.
const SeedSoC = "rk3588"

// SeedSource names the seed's figures where a file name would go.
const SeedSource = "the seed's figures, presets/measurements/seed-rk3588.jsonl"

// Measurements reads the measurements file path, or, when path is "", the
// seed's figures (presets/measurements/seed-rk3588.jsonl, embedded), by measure's one rule for bad lines
// (measure.Check): the measurements, the warnings about bad lines, and the
// name of their source (path, or SeedSource). check, when not nil, is a
// further test of each record, which counts one it fails as a bad line
// (measure.ReadUsable).
func Measurements(path string, check func(*measure.Measurement) error) (ms []measure.Measurement, warnings []string, src string, err error) {
	if path != "" {
		ms, warnings, err = measure.ReadUsable(path, check)
		return ms, warnings, path, err
	}
	ms, errs := measure.ReadChecked(bytes.NewReader(seedRK3588), "seed-rk3588.jsonl", check)
	if warnings, err = measure.Check(SeedSource, len(ms), errs); err != nil {
		return nil, nil, SeedSource, err
	}
	return ms, warnings, SeedSource, nil
}

// MeasuredWorkload is the one workload every throughput of ms ran (from
// its workload_yaml, else the preset of its name), or nil when they ran
// several or name none.
func MeasuredWorkload(ms []measure.Measurement) (*model.Workload, error) {
	var name, yaml string
	for i, m := range ms {
		if i > 0 && (m.Workload != name || m.WorkloadYAML != yaml) {
			return nil, nil
		}
		name, yaml = m.Workload, m.WorkloadYAML
	}
	switch {
	case name == "":
		return nil, nil
	case yaml != "":
		return model.ParseWorkload([]byte(yaml), "the measurements' workload_yaml")
	}
	return LoadWorkload(name)
}
