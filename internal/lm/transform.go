package lm

import "math"

// transform maps an unconstrained u to a bounded x; see the package
// documentation for the formulas.
type transform struct {
	kind   transformKind
	lo, hi float64
}

type transformKind int

const (
	free transformKind = iota
	lowerOnly
	upperOnly
	twoSided
)

// boundNudge is the relative distance by which a start value on a bound is
// moved inside.
const boundNudge = 1e-3

func newTransform(b Bound) transform {
	lo, hi := !math.IsInf(b.Lower, -1), !math.IsInf(b.Upper, 1)
	switch {
	case lo && hi:
		return transform{kind: twoSided, lo: b.Lower, hi: b.Upper}
	case lo:
		return transform{kind: lowerOnly, lo: b.Lower, hi: math.Inf(1)}
	case hi:
		return transform{kind: upperOnly, lo: math.Inf(-1), hi: b.Upper}
	}
	return transform{kind: free, lo: math.Inf(-1), hi: math.Inf(1)}
}

// softplus returns log(1 + eᵘ) without overflow.
func softplus(u float64) float64 {
	return math.Max(u, 0) + math.Log1p(math.Exp(-math.Abs(u)))
}

// softplusInv returns the u with softplus(u) = y for y > 0.
func softplusInv(y float64) float64 {
	return y + math.Log(-math.Expm1(-y))
}

// logistic returns 1/(1 + e⁻ᵘ).
func logistic(u float64) float64 {
	if u >= 0 {
		return 1 / (1 + math.Exp(-u))
	}
	e := math.Exp(u)
	return e / (1 + e)
}

// toX maps u to x, clamped to the bounds against rounding.
func (t transform) toX(u float64) float64 {
	var x float64
	switch t.kind {
	case free:
		return u
	case lowerOnly:
		x = t.lo + softplus(u)
	case upperOnly:
		x = t.hi - softplus(-u)
	case twoSided:
		x = t.lo + (t.hi-t.lo)*logistic(u)
	}
	return math.Min(math.Max(x, t.lo), t.hi)
}

// toU maps x, which must lie within the bounds, to u. A value on a bound is
// first moved inside by boundNudge.
func (t transform) toU(x float64) float64 {
	switch t.kind {
	case lowerOnly:
		d := x - t.lo
		if d <= 0 {
			d = boundNudge * math.Max(1, math.Abs(t.lo))
		}
		return softplusInv(d)
	case upperOnly:
		d := t.hi - x
		if d <= 0 {
			d = boundNudge * math.Max(1, math.Abs(t.hi))
		}
		return -softplusInv(d)
	case twoSided:
		w := t.hi - t.lo
		a, b := x-t.lo, t.hi-x
		if a <= 0 {
			a, b = boundNudge*w, (1-boundNudge)*w
		}
		if b <= 0 {
			a, b = (1-boundNudge)*w, boundNudge*w
		}
		return math.Log(a) - math.Log(b)
	}
	return x
}

// deriv returns dx/du at u.
func (t transform) deriv(u float64) float64 {
	switch t.kind {
	case lowerOnly:
		return logistic(u)
	case upperOnly:
		return logistic(-u)
	case twoSided:
		return (t.hi - t.lo) * logistic(u) * logistic(-u)
	}
	return 1
}
