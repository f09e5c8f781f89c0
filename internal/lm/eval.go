package lm

import (
	"math"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// evaluator calls the user's functions, counts the calls and checks their
// results, and estimates the Jacobian by finite differences when needed.
type evaluator struct {
	p      Problem
	tr     []transform
	x0     []float64
	step   float64 // relative finite-difference step
	evals  int
	jevals int

	// Finite-difference scratch.
	fdStep []float64
	fdX    []float64
}

// residuals writes r(x) into dst.
func (e *evaluator) residuals(dst, x []float64) error {
	for i := range dst {
		dst[i] = math.NaN()
	}
	e.evals++
	e.p.Residuals(dst, x)
	for i, v := range dst {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &NonFiniteError{Func: "Residuals", Row: i, Col: -1, Value: v, X: append([]float64(nil), x...)}
		}
	}
	return nil
}

// jacobian writes the Jacobian of r at x into dst; r holds r(x).
func (e *evaluator) jacobian(dst *mat.Dense, x, r []float64) error {
	e.jevals++
	if e.p.Jacobian != nil {
		dst.Zero()
		e.p.Jacobian(dst, x)
		m, n := dst.Dims()
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				if v := dst.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
					return &NonFiniteError{Func: "Jacobian", Row: i, Col: j, Value: v, X: append([]float64(nil), x...)}
				}
			}
		}
		return nil
	}
	return e.finiteDiff(dst, x, r)
}

// finiteDiff estimates the Jacobian with fd.Jacobian's forward formula. The
// function handed to fd.Jacobian is g(v) = r(x + v∘s) at v = 0 with unit
// step, so that each parameter gets its own step sⱼ, relative to its
// magnitude and pointing into its bounds.
func (e *evaluator) finiteDiff(dst *mat.Dense, x, r []float64) error {
	n := len(x)
	if e.fdStep == nil {
		e.fdStep = make([]float64, n)
		e.fdX = make([]float64, n)
	}
	for j, xj := range x {
		h := e.step * math.Max(math.Abs(xj), math.Abs(e.x0[j]))
		if h == 0 {
			h = e.step
		}
		t := e.tr[j]
		if xj+h > t.hi {
			if xj-h >= t.lo {
				h = -h
			} else if t.hi-xj >= xj-t.lo {
				h = (t.hi - xj) / 2
			} else {
				h = -(xj - t.lo) / 2
			}
		}
		e.fdStep[j] = (xj + h) - xj // exactly representable step
	}
	var err error
	g := func(y, v []float64) {
		if err != nil {
			return
		}
		for j := range v {
			e.fdX[j] = x[j] + v[j]*e.fdStep[j]
		}
		err = e.residuals(y, e.fdX)
	}
	fd.Jacobian(dst, g, make([]float64, n), &fd.JacobianSettings{
		Formula:     fd.Forward,
		OriginValue: r,
		Step:        1,
	})
	if err != nil {
		return err
	}
	m, _ := dst.Dims()
	for j := 0; j < n; j++ {
		inv := 1 / e.fdStep[j]
		for i := 0; i < m; i++ {
			dst.Set(i, j, dst.At(i, j)*inv)
		}
	}
	return nil
}
