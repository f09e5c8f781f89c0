package model

import (
	"fmt"

	"github.com/blsim/blsim/internal/units"
)

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

// A SettingError is a setting of a library call that cannot be used, for
// the caller to name as it names it (a flag, a file's field): Setting is
// the setting's name as the call's documentation gives it (a field of
// calibrate.Run or runner.Settings, a knob of dispatch.Knobs), Value the
// value given ("" when Err holds it), Err why.
type SettingError struct {
	Setting, Value string
	Err            error
}

func (e *SettingError) Error() string {
	if e.Value == "" {
		return e.Setting + ": " + e.Err.Error()
	}
	return e.Setting + " " + e.Value + ": " + e.Err.Error()
}

func (e *SettingError) Unwrap() error { return e.Err }

// IntRange is the span of a count with physical meaning: a prompt's
// tokens, a KV depth, an engine's cores. One table serves the flags, the
// files (a workload, a SoC, a measurement) and a benchmark's output, so
// that a value one accepts the others accept too.
type IntRange struct {
	Min, Max int
	What     string // "a KV depth"
}

// The count ranges, one table for every input.
var (
	// PromptRange spans llama-bench's -p: 0 is a tg test. 2^20 tokens is
	// past any model's context window blsim maps.
	PromptRange = IntRange{Min: 0, Max: 1 << 20, What: "prompt tokens"}
	// UbatchRange spans llama-bench's -ub.
	UbatchRange = IntRange{Min: 1, Max: 1 << 16, What: "a ubatch"}
	// DepthRange spans llama-bench's -d: a 4M-token KV cache.
	DepthRange = IntRange{Min: 0, Max: 1 << 22, What: "a KV depth"}
	// GenRange spans llama-bench's -n.
	GenRange = IntRange{Min: 0, Max: 1 << 20, What: "generated tokens"}
	// CPUCoresRange spans the CPU cores of a SoC, all its clusters
	// together: one ggml pool runs at most MaxPoolThreads threads, and a
	// thread sweep runs one over two clusters.
	CPUCoresRange = IntRange{Min: 1, Max: MaxPoolThreads, What: "CPU cores"}
	// RoundsRange spans the passes over a calibration grid.
	RoundsRange = IntRange{Min: 0, Max: 1000, What: "rounds"}
	// RepeatsRange spans the timed repeats of one run.
	RepeatsRange = IntRange{Min: 0, Max: 1000, What: "repeats"}
	// CVRange spans a coefficient of variation (sd/mean): a run whose
	// samples scatter by ten times their mean measured nothing.
	CVRange = Range{Min: 0, Max: 10, What: "a coefficient of variation"}
)

// Check returns nil when v is in the range, else a one-line reason.
func (r IntRange) Check(v int) error {
	if v < 0 && r.Min >= 0 {
		return fmt.Errorf("%d is negative", v)
	}
	if v < r.Min || v > r.Max {
		return fmt.Errorf("%d is outside [%d, %d] for %s", v, r.Min, r.Max, r.What)
	}
	return nil
}

// Check checks a run's counts against their ranges (PromptRange,
// UbatchRange, DepthRange, GenRange), that it times something, and that
// its prompt is at most MaxUbatches ubatches: what every input that names
// a run (a workload, a flag, a measurement, a benchmark's record) must
// hold. The error is a *FieldError whose Path is the field's YAML key
// (prompt_tokens, ubatch, depth, gen_tokens).
func (r Run) Check() error {
	for _, f := range []struct {
		key string
		v   int
		rng IntRange
	}{{"prompt_tokens", r.PromptTokens, PromptRange}, {"ubatch", r.Ubatch, UbatchRange}, {"depth", r.Depth, DepthRange}, {"gen_tokens", r.GenTokens, GenRange}} {
		if err := f.rng.Check(f.v); err != nil {
			return &FieldError{Path: f.key, Msg: err.Error()}
		}
	}
	if r.PromptTokens == 0 && r.GenTokens == 0 {
		return &FieldError{Path: "prompt_tokens", Msg: fmt.Sprintf("0 is outside [1, %d] when gen_tokens is 0 too: a run times a prompt (pp), generated tokens (tg), or both", PromptRange.Max)}
	}
	if n := r.Ubatches(); n > MaxUbatches {
		return &FieldError{Path: "ubatch", Msg: fmt.Sprintf("prompt %d in ubatches of %d is %d ubatches: at most %d per prediction (a simulation's cost grows with them; a larger ubatch, or a shorter prompt)",
			r.PromptTokens, r.Ubatch, n, MaxUbatches)}
	}
	return nil
}
