package lm

import (
	"errors"
	"fmt"
)

var (
	// ErrZeroDimensional is returned when x0 has length zero.
	ErrZeroDimensional = errors.New("lm: zero dimensional input")

	// ErrNoResiduals is returned when Problem.NumResiduals is not positive.
	ErrNoResiduals = errors.New("lm: Problem.NumResiduals must be positive")

	// ErrMissingResiduals is returned when Problem.Residuals is nil.
	ErrMissingResiduals = errors.New("lm: Problem.Residuals is nil")
)

// InputError reports an invalid argument to Minimize: a setting, a weight, a
// bound, a prior or a start value. Index is the element concerned, or -1 when
// the field is not a slice.
type InputError struct {
	Field string // such as "Settings.Weights", "bounds", "x0"
	Index int
	Msg   string
}

func (e *InputError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("lm: %s: %s", e.Field, e.Msg)
	}
	return fmt.Sprintf("lm: %s[%d]: %s", e.Field, e.Index, e.Msg)
}

// NonFiniteError is returned when Residuals or Jacobian produce NaN or ±Inf.
// Minimize stops at the first such value; use bounds to keep the solver where
// the model is defined. A residual that Residuals left unset is reported as
// NaN, because Minimize fills dst with NaN before each call.
type NonFiniteError struct {
	Func  string    // "Residuals" or "Jacobian"
	Row   int       // residual index
	Col   int       // parameter index for Func == "Jacobian", otherwise -1
	Value float64   // the offending value
	X     []float64 // the parameters at which it was produced
}

func (e *NonFiniteError) Error() string {
	if e.Col < 0 {
		return fmt.Sprintf("lm: Residuals returned %v for residual %d at x = %v", e.Value, e.Row, e.X)
	}
	return fmt.Sprintf("lm: Jacobian returned %v for element (%d, %d) at x = %v", e.Value, e.Row, e.Col, e.X)
}

// ErrSVD is returned in the rare case that the singular value decomposition
// of the Jacobian does not converge.
var ErrSVD = errors.New("lm: singular value decomposition failed")
