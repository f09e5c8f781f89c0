package fit

import (
	"fmt"
	"math"
	"strings"
)

// What "identified to within 10%" means for a fitted parameter (Precise).
const (
	// PreciseRelSigma is the largest σ, relative to the value, of a rate,
	// a bandwidth or a cost.
	PreciseRelSigma = 0.1
	// PreciseAbsSigma is the largest σ of a share in [0, 1] (an overlap, an
	// efficiency, the usable share of a cache), whose value can be near
	// zero, where a relative σ means nothing: 0.1 is a tenth of its range.
	PreciseAbsSigma = 0.1
	// ShareFloorSigma is the narrowest prior σ of a thread-scaling loss
	// the fit starts from: a tenth of the share's range.
	ShareFloorSigma = 0.1
)

// IsShare reports whether path is a parameter whose value is a share in
// [0, 1]: judged by an absolute σ (PreciseAbsSigma).
func IsShare(path string) bool {
	for _, s := range []string{"mem_compute_overlap", "gemv_overlap", "gemv_efficiency", "cache_usable_frac", "moe_efficiency", "thread_scaling_loss"} {
		if strings.HasSuffix(path, "."+s) {
			return true
		}
	}
	return false
}

// Precise reports whether p is known to within 10%: the runs identify
// it (Identification Identified), or no run reaches it and it is measured
// directly (Measured, MeasuredDirectly), and its σ is at most
// PreciseRelSigma of its value, or, for a share (IsShare), at most
// PreciseAbsSigma.
func (p ParamFit) Precise() bool {
	if p.Identification != Identified && p.Identification != Measured {
		return false
	}
	if IsShare(p.Path) {
		return p.Sigma <= PreciseAbsSigma
	}
	return p.Sigma <= PreciseRelSigma*math.Abs(p.Value)
}

// preciseLine says which parameters the runs identify to within 10% (σ at
// most 0.1 for a share) and which not, with their σ: "within 10%: a, b (2
// of 3); not: c (σ 25% of its value)". A parameter fitted as one with
// another (SameAs) is said once.
func (r *Result) preciseLine() string {
	var yes, no []string
	for _, p := range r.Params {
		if p.SameAs != "" {
			continue
		}
		if p.Precise() {
			if p.Identification == Measured {
				yes = append(yes, p.Path+fmt.Sprintf(" (measured directly, σ %.0f%%: no run reaches it)", 100*p.Sigma/math.Abs(p.Value)))
				continue
			}
			yes = append(yes, p.Path)
			continue
		}
		how := fmt.Sprintf("σ %.2g", p.Sigma)
		if !IsShare(p.Path) && p.Value != 0 {
			how = fmt.Sprintf("σ %.0f%% of its value", 100*p.Sigma/math.Abs(p.Value))
		}
		if p.Identification != Identified {
			how += ", " + string(p.Identification)
		}
		no = append(no, fmt.Sprintf("%s (%s)", p.Path, how))
	}
	line := fmt.Sprintf("identified within 10%% (σ ≤ 0.1 for a share): %d of %d", len(yes), len(yes)+len(no))
	if len(yes) > 0 {
		line += ": " + strings.Join(yes, ", ")
	}
	if len(no) > 0 {
		line += "; not: " + strings.Join(no, ", ")
	}
	return line
}
