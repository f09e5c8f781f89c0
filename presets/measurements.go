package presets

import _ "embed"

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
