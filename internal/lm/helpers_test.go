package lm

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// rosenbrock is the Rosenbrock function as two residuals.
func rosenbrock() Problem {
	return Problem{
		NumResiduals: 2,
		Residuals: func(dst, x []float64) {
			dst[0] = 10 * (x[1] - x[0]*x[0])
			dst[1] = 1 - x[0]
		},
	}
}

func rosenbrockJac(dst *mat.Dense, x []float64) {
	dst.Set(0, 0, -20*x[0])
	dst.Set(0, 1, 10)
	dst.Set(1, 0, -1)
}

// decay is y = a·exp(−b·t) + c sampled at t with data y.
func decay(t, y []float64) Problem {
	return Problem{
		NumResiduals: len(t),
		Residuals: func(dst, x []float64) {
			for i, ti := range t {
				dst[i] = x[0]*math.Exp(-x[1]*ti) + x[2] - y[i]
			}
		},
		Jacobian: func(dst *mat.Dense, x []float64) {
			for i, ti := range t {
				e := math.Exp(-x[1] * ti)
				dst.Set(i, 0, e)
				dst.Set(i, 1, -x[0]*ti*e)
				dst.Set(i, 2, 1)
			}
		},
	}
}

// decayData returns m points of y = a·exp(−b·t) + c + N(0, σ²) on [0, 4].
func decayData(rng *rand.Rand, m int, truth []float64, sigma float64) (t, y []float64) {
	t = make([]float64, m)
	y = make([]float64, m)
	for i := range t {
		t[i] = 4 * float64(i) / float64(m-1)
		y[i] = truth[0]*math.Exp(-truth[1]*t[i]) + truth[2]
		if sigma > 0 {
			y[i] += sigma * rng.NormFloat64()
		}
	}
	return t, y
}

// linear is the linear least-squares problem X·β ≈ y.
func linear(x *mat.Dense, y []float64, analytic bool) Problem {
	m, n := x.Dims()
	p := Problem{
		NumResiduals: m,
		Residuals: func(dst, b []float64) {
			for i := range dst {
				s := -y[i]
				for j := 0; j < n; j++ {
					s += x.At(i, j) * b[j]
				}
				dst[i] = s
			}
		},
	}
	if analytic {
		p.Jacobian = func(dst *mat.Dense, _ []float64) { dst.Copy(x) }
	}
	return p
}

func sameSlice(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }
