package lm

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// tenByTwoHundred is a 10-parameter, 200-residual problem shaped like a
// cost model: configuration i has a size tᵢ and five features zᵢₖ, and
// its predicted value is Σₖ aₖ·zᵢₖ·exp(−bₖ·tᵢ). The data are exact at truth.
func tenByTwoHundred(analytic bool) (p Problem, x0, truth []float64) {
	const m, k = 200, 5
	rng := newRand(5)
	ts := make([]float64, m)
	z := mat.NewDense(m, k, nil)
	for i := range ts {
		ts[i] = 3 * rng.Float64()
		for c := 0; c < k; c++ {
			z.Set(i, c, rng.Float64())
		}
	}
	truth = []float64{1.5, 0.8, 2.0, 1.2, 0.6, 0.3, 0.7, 1.1, 1.6, 2.2}
	model := func(i int, x []float64) float64 {
		var s float64
		for c := 0; c < k; c++ {
			s += x[c] * z.At(i, c) * math.Exp(-x[k+c]*ts[i])
		}
		return s
	}
	y := make([]float64, m)
	for i := range y {
		y[i] = model(i, truth)
	}
	p = Problem{
		NumResiduals: m,
		Residuals: func(dst, x []float64) {
			for i := range dst {
				dst[i] = model(i, x) - y[i]
			}
		},
	}
	if analytic {
		p.Jacobian = func(dst *mat.Dense, x []float64) {
			for i := 0; i < m; i++ {
				for c := 0; c < k; c++ {
					e := z.At(i, c) * math.Exp(-x[k+c]*ts[i])
					dst.Set(i, c, e)
					dst.Set(i, k+c, -x[c]*ts[i]*e)
				}
			}
		}
	}
	x0 = []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	return p, x0, truth
}

func TestMinimizeTenParameters(t *testing.T) {
	for _, test := range []struct {
		name     string
		analytic bool
		bounds   bool
	}{
		{name: "analytic", analytic: true},
		{name: "finite differences"},
		{name: "bounded finite differences", bounds: true},
	} {
		t.Run(test.name, func(t *testing.T) {
			p, x0, truth := tenByTwoHundred(test.analytic)
			var bounds []Bound
			if test.bounds {
				bounds = make([]Bound, len(x0))
				for j := range bounds {
					bounds[j] = Bound{Lower: 0, Upper: 10}
				}
			}
			res, err := Minimize(p, x0, bounds, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Status.Converged() {
				t.Fatalf("status %v after %d iterations", res.Status, res.Iterations)
			}
			for j, w := range truth {
				if math.Abs(res.X[j]-w) > 1e-6 {
					t.Errorf("X[%d] = %v, want %v", j, res.X[j], w)
				}
			}
			if len(res.Unidentifiable) != 0 {
				t.Errorf("Unidentifiable = %v", res.Unidentifiable)
			}
		})
	}
}

func BenchmarkMinimize10x200(b *testing.B) {
	for _, bench := range []struct {
		name     string
		analytic bool
	}{
		{name: "analytic", analytic: true},
		{name: "finite-differences"},
	} {
		b.Run(bench.name, func(b *testing.B) {
			p, x0, _ := tenByTwoHundred(bench.analytic)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Minimize(p, x0, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
