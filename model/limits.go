package model

import "github.com/blsim/blsim/internal/units"

// MaxUbatches is the most ubatches one prediction simulates: a prompt of
// 4096 one-token ubatches already takes a minute of a full blsim predict
// (its sweeps and interval draws) on two cores.
const MaxUbatches = 4096

// Range is the span of values with physical meaning for one kind of
// quantity (units.Range): a value outside is refused where it enters with
// a one-line reason.
type Range = units.Range

// The physical ranges, one table for every input (package units).
var (
	ClockRange        = units.ClockRange
	ThroughputRange   = units.ThroughputRange
	BandwidthRange    = units.BandwidthRange
	KernelRateRange   = units.KernelRateRange
	LatencyRange      = units.LatencyRange
	TransferRateRange = units.TransferRateRange
)

// RangeOf is the range of values measured in unit, and whether there is one.
func RangeOf(unit string) (Range, bool) { return units.RangeOf(unit) }
