// Package units holds the physical ranges of blsim's inputs, one table
// for every input (a SoC file, a part, a flag, a measurement): a value
// outside is a typo, a unit mix-up or a broken benchmark.
package units

import (
	"fmt"
	"math"
)

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
		if r.Unit == "" { // a ratio: a coefficient of variation
			return fmt.Errorf("%g is outside [%g, %g] for %s", v, r.Min, r.Max, r.What)
		}
		return fmt.Errorf("%g %s is outside [%g, %g] %s for %s%s", v, r.Unit, r.Min, r.Max, r.Unit, r.What, Hint(r, v))
	}
	return nil
}

// Hint is the hint a value out of range gets when it is in range in
// the unit a thousand times smaller or larger (a clock in MHz, a rate in
// GT/s): "" otherwise.
func Hint(r Range, v float64) string {
	prefix := map[string][2]string{
		"GHz":  {"MHz", "kHz"},
		"GB/s": {"MB/s", "TB/s"},
		"MT/s": {"kT/s", "GT/s"},
	}[r.Unit]
	switch {
	case prefix[0] != "" && v > r.Max && v/1000 >= r.Min && v/1000 <= r.Max:
		return fmt.Sprintf(" (in %s? %g %s is %g %s: write it in %s)", prefix[0], v, prefix[0], v/1000, r.Unit, r.Unit)
	case prefix[1] != "" && v > 0 && v < r.Min && v*1000 >= r.Min && v*1000 <= r.Max:
		return fmt.Sprintf(" (in %s? %g %s is %g %s: write it in %s)", prefix[1], v, prefix[1], v*1000, r.Unit, r.Unit)
	}
	return ""
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
