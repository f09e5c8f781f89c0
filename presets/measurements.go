package presets

import (
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

// SeedMeasurements returns the seed experiment's reported figures as
// measurement lines (JSONL, measure's format), for the rk3588
// preset and the qwen3.5-35b-a3b workload.
func SeedMeasurements() []byte { return append([]byte(nil), seedRK3588...) }

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
