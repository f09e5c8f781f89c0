package lm

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Problem describes a nonlinear least-squares problem.
type Problem struct {
	// Residuals writes the NumResiduals residuals at x into dst. It must
	// not retain or modify x. Minimize fills dst with NaN before each call,
	// so an element left unset is reported as a *NonFiniteError.
	Residuals func(dst, x []float64)

	// NumResiduals is the number of residuals, m. It must be positive.
	NumResiduals int

	// Jacobian, if not nil, writes the m×n Jacobian ∂rᵢ/∂xⱼ of the
	// unweighted residuals at x into dst, which is zeroed beforehand. If it
	// is nil, the Jacobian is estimated by forward differences with the
	// step described at Settings.FiniteDifferenceStep.
	Jacobian func(dst *mat.Dense, x []float64)

	// Priors, if not nil, holds one Prior per parameter; the zero Prior
	// means none for that parameter. Each prior adds the residual
	// (x − Mean)/Sigma to the cost, see the package documentation.
	Priors []Prior
}

// Prior is an independent Gaussian estimate of one parameter: a measured
// value Mean with standard uncertainty Sigma. A Sigma of zero or +Inf means
// no prior.
type Prior struct {
	Mean, Sigma float64
}

func (p Prior) active() bool { return p.Sigma != 0 && !math.IsInf(p.Sigma, 1) }

// Bound restricts a parameter to [Lower, Upper]. Lower may be -Inf and Upper
// may be +Inf; the zero Bound is not unbounded, use Unbounded for that.
type Bound struct {
	Lower, Upper float64
}

// Unbounded is the Bound of a free parameter.
var Unbounded = Bound{Lower: math.Inf(-1), Upper: math.Inf(1)}

// validate checks the problem and the start point against the bounds and
// returns the number of active priors.
func validate(p Problem, x0 []float64, bounds []Bound) (int, error) {
	n := len(x0)
	if n == 0 {
		return 0, ErrZeroDimensional
	}
	if p.Residuals == nil {
		return 0, ErrMissingResiduals
	}
	if p.NumResiduals <= 0 {
		return 0, ErrNoResiduals
	}
	for j, v := range x0 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, &InputError{Field: "x0", Index: j, Msg: "not finite"}
		}
	}
	if bounds != nil {
		if len(bounds) != n {
			return 0, &InputError{Field: "bounds", Index: -1, Msg: "length differs from len(x0)"}
		}
		for j, b := range bounds {
			switch {
			case math.IsNaN(b.Lower) || math.IsNaN(b.Upper):
				return 0, &InputError{Field: "bounds", Index: j, Msg: "NaN bound"}
			case math.IsInf(b.Lower, 1) || math.IsInf(b.Upper, -1):
				return 0, &InputError{Field: "bounds", Index: j, Msg: "Lower is +Inf or Upper is -Inf"}
			case b.Lower >= b.Upper:
				return 0, &InputError{Field: "bounds", Index: j, Msg: "Lower must be less than Upper"}
			case math.IsInf(b.Upper-b.Lower, 1) && !math.IsInf(b.Lower, 0) && !math.IsInf(b.Upper, 0):
				return 0, &InputError{Field: "bounds", Index: j, Msg: "width overflows"}
			case x0[j] < b.Lower || x0[j] > b.Upper:
				return 0, &InputError{Field: "x0", Index: j, Msg: "outside its bounds"}
			}
		}
	}
	var np int
	if p.Priors != nil {
		if len(p.Priors) != n {
			return 0, &InputError{Field: "Problem.Priors", Index: -1, Msg: "length differs from len(x0)"}
		}
		for j, pr := range p.Priors {
			if !pr.active() {
				continue
			}
			if math.IsNaN(pr.Mean) || math.IsInf(pr.Mean, 0) || math.IsNaN(pr.Sigma) || pr.Sigma < 0 {
				return 0, &InputError{Field: "Problem.Priors", Index: j, Msg: "Mean must be finite and Sigma non-negative"}
			}
			np++
		}
	}
	return np, nil
}
