package fit

import (
	"math"
	"sort"
	"strings"

	"github.com/blsim/blsim/internal/lm"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// atBound says which bound x sits on, if any.
func atBound(x float64, b lm.Bound) string {
	tol := func(v float64) float64 { return 1e-6 * math.Max(1, math.Abs(v)) }
	switch {
	case !math.IsInf(b.Lower, -1) && x-b.Lower <= tol(b.Lower):
		return "lower"
	case !math.IsInf(b.Upper, 1) && b.Upper-x <= tol(b.Upper):
		return "upper"
	}
	return ""
}

// microPrior returns the median of the microbenchmarks that inform path.
// KernelPriorRelSigma is the relative σ, at least, of a kernel rate's
// prior taken from its microbenchmark.
const KernelPriorRelSigma = 0.1

func microPrior(ms []measure.Measurement, path string) (float64, float64, bool) {
	var vals []float64
	cv := 0.0
	for _, m := range ms {
		if m.Param == path && m.OK() && !Throughput(&m) {
			vals = append(vals, m.Median)
			cv = math.Max(cv, m.CV)
		}
	}
	if len(vals) == 0 {
		return 0, 0, false
	}
	sort.Float64s(vals)
	v := vals[len(vals)/2]
	// A microbenchmark measures the mechanism, not the dispatcher's use of
	// it: keep the prior wide enough for the fit to move it. The kernel
	// microbenchmarks time the dispatcher's own hot-loop kernels (its
	// 4×2 tile and 4×1 gemv, in cache), so their priors are tighter: what
	// the dispatcher adds (cache misses, its loop) moves a rate by less.
	floor := 0.25
	if isKernelRate(path) || hasSuffix(path, "gemv_efficiency") {
		floor = KernelPriorRelSigma
	}
	if keep, ok := AtOnceKeep(ms); path == "dram.sustained_gb_s" && ok && keep >= AtOnceUnshared {
		// The dispatcher's own engines kept their speed at once: DRAM is
		// not what they share, so what every CPU streams at once is the
		// parameter itself, measured (MeasuredDirectly), and the fit may
		// not take sustained DRAM below it for what a split run loses to
		// something else. Its σ is the measurement's own: the spread of
		// one sample (one pass of every CPU, its CV), no less than the
		// spread of whole calls' values. No dispatcher's use of DRAM
		// differs from the stream here for a wider prior (3 × CV) to
		// leave room for: no run reaches it.
		return v, v * math.Max(StreamTogetherSpread, cv), true
	}
	return v, v * math.Max(floor, 3*cv), true
}

// StreamTogetherSpread is the narrowest relative σ of sustained DRAM
// measured by every CPU streaming at once (probe.StreamReadTogether): the
// spread (CV) of whole calls' values on the 2-vCPU build machine in quiet
// windows, 3.70% over 8 calls (BenchmarkStreamTogether) and 5.25% over 6
// calls of the same code minutes later, rounded up (docs/busy-machine.md).
// Measured again in a later session, after the rule was set and on no
// calibration's data: 3.07% over 10 calls, each call's own CV 4.90%.
// Calls further apart can differ by more: the host's DRAM is shared with
// other guests (34 GB/s in one window, 54 in another ten minutes later).
const StreamTogetherSpread = 0.06

// AtOnceUnshared is the at-once keep (AtOnceKeep) from which two engines
// are taken not to share DRAM bandwidth. At the calibration's decode-like
// shape about half a run is DRAM-bound in the build machine's fits
// (docs/busy-machine.md), so an engine that keeps 0.9 of its speed at once
// gets at least about 0.8 of its bandwidth alone; the build machine's
// engines kept 0.93–1.02 (BenchmarkEnginesAtOnce), its streams 57.13 GB/s
// at once against 57.16 alone.
const AtOnceUnshared = 0.9

// AtOnceKeep is the at-once step's value (calibrate's atOnceSteps, kind
// measure.AtOnce): the smaller of two engines' dispatcher speeds at once
// over alone, the median over the records of it; ok is false when ms has
// none. A record that stayed disturbed (measure.Interference.Disturbed)
// is left out: what it lost at once may be another process's doing.
func AtOnceKeep(ms []measure.Measurement) (float64, bool) {
	var vals []float64
	for _, m := range ms {
		if m.Kind == measure.AtOnce && m.OK() && m.Median > 0 && (m.Interference == nil || !m.Interference.Disturbed) {
			vals = append(vals, m.Median)
		}
	}
	if len(vals) == 0 {
		return 0, false
	}
	sort.Float64s(vals)
	return vals[len(vals)/2], true
}

func boundFor(prior *model.SoC, path string, v float64) lm.Bound {
	switch {
	case path == "dram.sustained_gb_s", hasSuffix(path, "bandwidth_max_gb_s") && prior.DRAM.PeakGBs > 0:
		// The profile's peak bounds what DRAM sustains and what an engine
		// pulls (an accelerator with memory of its own is not checked
		// against it, and keeps no upper bound here either way).
		up := prior.DRAM.PeakGBs
		if hasSuffix(path, "bandwidth_max_gb_s") && !sharesDRAM(prior, path) {
			up = math.Inf(1)
		}
		return lm.Bound{Lower: math.Max(1e-6*math.Abs(v), model.BandwidthRange.Min), Upper: math.Max(up, v)}
	case hasSuffix(path, "mem_compute_overlap"), hasSuffix(path, "gemv_overlap"), hasSuffix(path, "cache_usable_frac"), hasSuffix(path, "moe_efficiency"), hasSuffix(path, "thread_scaling_loss"):
		return lm.Bound{Lower: 0, Upper: 1}
	case hasSuffix(path, "gemv_efficiency"):
		// Zero means "not set" (1): keep the fit above it.
		return lm.Bound{Lower: 0.02, Upper: 1}
	case isKernelRate(path):
		return lm.Bound{Lower: math.Max(1e-6*math.Abs(v), model.KernelRateRange.Min), Upper: model.KernelRateRange.Max} // a fitted profile must load
	case hasSuffix(path, "forfeit_pct"):
		return lm.Bound{Lower: 0, Upper: 90}
	}
	// Rates, bandwidths and costs stay positive: at zero an op would never
	// end (or cost nothing), which no machine does.
	return lm.Bound{Lower: 1e-6 * math.Max(math.Abs(v), 1e-9), Upper: math.Inf(1)}
}

// sharesDRAM says whether the engine of an engines.NAME.… path streams
// from the SoC's DRAM.
func sharesDRAM(s *model.SoC, path string) bool {
	for i := range s.Engines {
		if strings.HasPrefix(path, "engines."+s.Engines[i].Name+".") {
			return s.Engines[i].UsesSharedDRAM()
		}
	}
	return true
}

func hasSuffix(s, suf string) bool { return len(s) >= len(suf) && s[len(s)-len(suf):] == suf }
