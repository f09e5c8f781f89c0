package lm

import (
	"fmt"
	"math"
)

// Settings configures Minimize. The zero value of every field means its
// default, and a nil *Settings means all defaults.
type Settings struct {
	// MaxIterations is the maximum number of damped steps solved, whether
	// accepted or not. Reaching it is not an error: Result.Status is then
	// IterationLimit. The default is 1000.
	MaxIterations int

	// FunctionTolerance stops the iteration when an accepted step reduces
	// the cost by no more than FunctionTolerance times its value. The
	// default is 1e-10.
	FunctionTolerance float64

	// GradientTolerance stops the iteration when, for every parameter, the
	// cosine of the angle between the residual vector and that parameter's
	// Jacobian column is at most GradientTolerance (MINPACK's gtol; it does
	// not depend on units). The default is 1e-10.
	GradientTolerance float64

	// StepTolerance stops the iteration when the step h in the
	// unconstrained variables satisfies ‖h‖ ≤ StepTolerance·(‖u‖ +
	// StepTolerance). The default is 1e-10.
	StepTolerance float64

	// InitialDamping is the damping μ of the first step, relative to
	// Marquardt's scaling diag(JᵀJ). Large values start with short
	// gradient-descent-like steps, small ones with Gauss–Newton steps. The
	// default is 1e-3.
	InitialDamping float64

	// Weights, if not nil, holds one weight wᵢ = 1/σᵢ² per residual, where
	// σᵢ is the standard deviation of residual i; the cost is ½Σwᵢrᵢ². A
	// weight must be finite and non-negative; a zero weight drops the
	// residual from the fit and from the degrees of freedom.
	Weights []float64

	// AbsoluteWeights declares that Weights are exact inverse variances
	// (σ = 1 when Weights is nil). The covariance is then (JᵀWJ)⁻¹ as is;
	// otherwise it is rescaled by the residual variance
	// s² = 2·Cost/Result.DegreesOfFreedom, which assumes only that the
	// weights are right up to a common factor. The rescaling applies to the
	// priors' rows too, so fits with priors should use true 1/σ² weights
	// and set AbsoluteWeights.
	AbsoluteWeights bool

	// SingularTolerance is the relative threshold below which a singular
	// value of the column-scaled Jacobian counts as zero, for the
	// identifiability analysis and the pseudo-inverse. The default is 1e-6,
	// which stays above the noise of finite-difference Jacobians.
	SingularTolerance float64

	// FiniteDifferenceStep is the relative step of the forward differences
	// used when Problem.Jacobian is nil: parameter j is stepped by
	// FiniteDifferenceStep·max(|xⱼ|, |x0ⱼ|), or by FiniteDifferenceStep when
	// both are zero, towards the inside of its bounds. The default is
	// √ε ≈ 1.5e-8.
	FiniteDifferenceStep float64
}

// Default values of Settings.
const (
	DefaultMaxIterations     = 1000
	DefaultFunctionTolerance = 1e-10
	DefaultGradientTolerance = 1e-10
	DefaultStepTolerance     = 1e-10
	DefaultInitialDamping    = 1e-3
	DefaultSingularTolerance = 1e-6
)

// DefaultFiniteDifferenceStep is the default of Settings.FiniteDifferenceStep.
var DefaultFiniteDifferenceStep = math.Sqrt(0x1p-52)

// resolve returns a copy of s with defaults filled in, or an error for an
// invalid field.
func (s *Settings) resolve(m int) (Settings, error) {
	var r Settings
	if s != nil {
		r = *s
	}
	if r.MaxIterations < 0 {
		return r, &InputError{Field: "Settings.MaxIterations", Index: -1, Msg: "negative"}
	}
	if r.MaxIterations == 0 {
		r.MaxIterations = DefaultMaxIterations
	}
	for _, f := range []struct {
		name string
		v    *float64
		def  float64
	}{
		{"FunctionTolerance", &r.FunctionTolerance, DefaultFunctionTolerance},
		{"GradientTolerance", &r.GradientTolerance, DefaultGradientTolerance},
		{"StepTolerance", &r.StepTolerance, DefaultStepTolerance},
		{"InitialDamping", &r.InitialDamping, DefaultInitialDamping},
		{"SingularTolerance", &r.SingularTolerance, DefaultSingularTolerance},
		{"FiniteDifferenceStep", &r.FiniteDifferenceStep, DefaultFiniteDifferenceStep},
	} {
		if *f.v < 0 || math.IsNaN(*f.v) || math.IsInf(*f.v, 0) {
			return r, &InputError{Field: "Settings." + f.name, Index: -1, Msg: fmt.Sprintf("%v must be finite and non-negative", *f.v)}
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if r.SingularTolerance >= 1 {
		return r, &InputError{Field: "Settings.SingularTolerance", Index: -1, Msg: "must be less than 1"}
	}
	if r.Weights != nil {
		if len(r.Weights) != m {
			return r, &InputError{Field: "Settings.Weights", Index: -1, Msg: "length differs from Problem.NumResiduals"}
		}
		var positive bool
		for i, w := range r.Weights {
			if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
				return r, &InputError{Field: "Settings.Weights", Index: i, Msg: fmt.Sprintf("%v must be finite and non-negative", w)}
			}
			positive = positive || w > 0
		}
		if !positive {
			return r, &InputError{Field: "Settings.Weights", Index: -1, Msg: "all weights are zero"}
		}
	}
	return r, nil
}

// Status says why Minimize stopped.
type Status int

const (
	// NotTerminated is the zero Status; Minimize never returns it.
	NotTerminated Status = iota
	// GradientConverged: the gradient test of Settings.GradientTolerance
	// passed, or the cost is exactly zero.
	GradientConverged
	// StepConverged: the step fell below Settings.StepTolerance.
	StepConverged
	// FunctionConverged: the relative cost reduction fell below
	// Settings.FunctionTolerance.
	FunctionConverged
	// IterationLimit: Settings.MaxIterations steps were taken.
	IterationLimit
)

func (s Status) String() string {
	switch s {
	case NotTerminated:
		return "NotTerminated"
	case GradientConverged:
		return "GradientConverged"
	case StepConverged:
		return "StepConverged"
	case FunctionConverged:
		return "FunctionConverged"
	case IterationLimit:
		return "IterationLimit"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}
