package presets

// Test-only helpers: nothing outside the tests calls them (deadcode).

// SeedMeasurements returns the seed experiment's reported figures as
// measurement lines (JSONL, measure's format), for the rk3588
// preset and the qwen3.5-35b-a3b workload.
func SeedMeasurements() []byte { return append([]byte(nil), seedRK3588...) }
