package lm_test

import (
	"fmt"
	"log"
	"math"

	"github.com/blsim/blsim/internal/lm"
	"gonum.org/v1/gonum/mat"
)

func ExampleMinimize() {
	// Fit y = a·exp(−b·t) + c to measurements with standard deviation
	// 0.02, with the decay rate b constrained to be positive and a prior on
	// the offset c from an independent measurement. The Jacobian is left to
	// finite differences.
	t := []float64{0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4}
	y := []float64{2.51, 1.54, 1.03, 0.79, 0.63, 0.57, 0.54, 0.52, 0.51}
	p := lm.Problem{
		NumResiduals: len(t),
		Residuals: func(dst, x []float64) {
			for i, ti := range t {
				dst[i] = x[0]*math.Exp(-x[1]*ti) + x[2] - y[i]
			}
		},
		Priors: []lm.Prior{{}, {}, {Mean: 0.5, Sigma: 0.05}},
	}
	bounds := []lm.Bound{lm.Unbounded, {Lower: 0, Upper: math.Inf(1)}, lm.Unbounded}
	w := make([]float64, len(t))
	for i := range w {
		w[i] = 1 / (0.02 * 0.02)
	}
	settings := &lm.Settings{Weights: w, AbsoluteWeights: true}
	res, err := lm.Minimize(p, []float64{1, 1, 0}, bounds, settings)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("converged:", res.Status.Converged())
	for j, name := range []string{"a", "b", "c"} {
		fmt.Printf("%s = %.3f ± %.3f\n", name, res.X[j], res.StdErr[j])
	}
	fmt.Println("unidentifiable:", res.Unidentifiable)

	// Output:
	// converged: true
	// a = 2.012 ± 0.021
	// b = 1.321 ± 0.034
	// c = 0.499 ± 0.011
	// unidentifiable: []
}

func ExampleIdentify() {
	// A model that uses only the sum of its first two parameters,
	// y = (a + b)·t + c, observed at t = 1, 2, 3: the Jacobian rows are
	// (t, t, 1).
	j := mat.NewDense(3, 3, []float64{
		1, 1, 1,
		2, 2, 1,
		3, 3, 1,
	})
	id, err := lm.Identify(j, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("unidentifiable:", id.Unidentifiable)
	fmt.Printf("null direction: %.3f\n", id.NullSpace[0])
	fmt.Printf("shares: %.2f\n", id.NullShare)

	// Output:
	// unidentifiable: [0 1]
	// null direction: [0.707 -0.707 0.000]
	// shares: [0.50 0.50 0.00]
}
