package model

import "fmt"

// MaxUbatches is the most ubatches one prediction simulates: a prompt of
// 4096 one-token ubatches already takes a minute of a full blsim predict
// (its sweeps and interval draws) on two cores.
const MaxUbatches = 4096

// Range is the span of values with physical meaning for one kind of
// quantity: a value outside is a typo, a unit mix-up or a broken
// benchmark, and is refused where it enters (a SoC, a measurement, a
// benchmark's output) with a one-line reason.
type Range struct {
	Min, Max float64
	Unit     string
	What     string // "a clock"
}

// The physical ranges, one table for every input.
var (
	// ClockRange spans the clocks of any core or accelerator blsim models.
	ClockRange = Range{Min: 0.05, Max: 10, Unit: "GHz", What: "a clock"}
	// ThroughputRange spans tokens per second, a board's slowest prompt to
	// a datacentre's fastest.
	ThroughputRange = Range{Min: 1e-6, Max: 1e9, Unit: "t/s", What: "a throughput"}
	// BandwidthRange spans memory bandwidths.
	BandwidthRange = Range{Min: 0.01, Max: 10000, Unit: "GB/s", What: "a bandwidth"}
	// KernelRateRange spans kernel rates per thread per cycle.
	KernelRateRange = Range{Min: 1e-6, Max: 4096, Unit: "ops/cycle", What: "a kernel rate"}
	// TransferRateRange spans DRAM transfer rates (DDR3-800 to beyond
	// LPDDR6).
	TransferRateRange = Range{Min: 100, Max: 20000, Unit: "MT/s", What: "a DRAM transfer rate"}
	// LatencyRange spans wake, handoff and submit costs.
	LatencyRange = Range{Min: 1e-4, Max: 1e7, Unit: "us", What: "a latency"}
)

// RangeOf is the range of values measured in unit, and whether there is one.
func RangeOf(unit string) (Range, bool) {
	for _, r := range []Range{ClockRange, ThroughputRange, BandwidthRange, KernelRateRange, LatencyRange, TransferRateRange} {
		if r.Unit == unit {
			return r, true
		}
	}
	return Range{}, false
}

// Check returns nil when v is in the range, else a one-line reason.
func (r Range) Check(v float64) error {
	if !finite(v) || v < r.Min || v > r.Max {
		return fmt.Errorf("%g %s is outside [%g, %g] %s for %s%s", v, r.Unit, r.Min, r.Max, r.Unit, r.What, unitHint(r, v))
	}
	return nil
}
