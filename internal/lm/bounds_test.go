package lm

import (
	"math"
	"testing"
)

func TestTransform(t *testing.T) {
	inf := math.Inf(1)
	for _, test := range []struct {
		name string
		b    Bound
		xs   []float64
	}{
		{name: "free", b: Unbounded, xs: []float64{-1e6, -1, 0, 2.5, 1e9}},
		{name: "lower", b: Bound{Lower: -2, Upper: inf}, xs: []float64{-2 + 1e-9, -1.999, -1, 0, 40, 1e9}},
		{name: "upper", b: Bound{Lower: -inf, Upper: 3}, xs: []float64{-1e9, -40, 0, 2.9, 3 - 1e-9}},
		{name: "both", b: Bound{Lower: 1, Upper: 5}, xs: []float64{1 + 1e-9, 1.5, 3, 4.999, 5 - 1e-9}},
		{name: "tiny scale", b: Bound{Lower: 0, Upper: inf}, xs: []float64{1e-12, 3e-9, 1e-6}},
	} {
		t.Run(test.name, func(t *testing.T) {
			tr := newTransform(test.b)
			for _, x := range test.xs {
				u := tr.toU(x)
				if got := tr.toX(u); math.Abs(got-x) > 1e-12*math.Max(1, math.Abs(x)) && math.Abs(got-x) > 1e-9*math.Abs(x) {
					t.Errorf("toX(toU(%v)) = %v", x, got)
				}
				h := 1e-6 * math.Max(1, math.Abs(u))
				num := (tr.toX(u+h) - tr.toX(u-h)) / (2 * h)
				if d := tr.deriv(u); math.Abs(d-num) > 1e-6*math.Max(math.Abs(num), 1e-300) && math.Abs(d-num) > 1e-9 {
					t.Errorf("deriv(%v) = %v, numerical %v", u, d, num)
				}
			}
			// Extreme u stay within the bounds.
			for _, u := range []float64{-1e300, -800, -40, 40, 800, 1e300} {
				x := tr.toX(u)
				if x < test.b.Lower || x > test.b.Upper || math.IsNaN(x) {
					t.Errorf("toX(%v) = %v outside %v", u, x, test.b)
				}
			}
		})
	}
}

func TestTransformStartOnBound(t *testing.T) {
	inf := math.Inf(1)
	for _, test := range []struct {
		name string
		b    Bound
		x, y float64 // start and where it is moved
	}{
		{name: "lower", b: Bound{Lower: 0, Upper: inf}, x: 0, y: 1e-3},
		{name: "large lower", b: Bound{Lower: 100, Upper: inf}, x: 100, y: 100.1},
		{name: "upper", b: Bound{Lower: -inf, Upper: -10}, x: -10, y: -10.01},
		{name: "both low", b: Bound{Lower: 0, Upper: 10}, x: 0, y: 0.01},
		{name: "both high", b: Bound{Lower: 0, Upper: 10}, x: 10, y: 9.99},
	} {
		t.Run(test.name, func(t *testing.T) {
			tr := newTransform(test.b)
			u := tr.toU(test.x)
			if math.IsInf(u, 0) || math.IsNaN(u) {
				t.Fatalf("toU(%v) = %v", test.x, u)
			}
			if got := tr.toX(u); math.Abs(got-test.y) > 1e-9*math.Max(1, math.Abs(test.y)) {
				t.Errorf("start moved to %v, want %v", got, test.y)
			}
		})
	}
}

// TestMinimizeBounds fits y = a·t (one parameter) and y = a·exp(−b·t) + c
// (three) with bounds that are active or not, and checks that the solver
// never evaluates outside the bounds.
func TestMinimizeBounds(t *testing.T) {
	inf := math.Inf(1)
	ts := []float64{0.5, 1, 1.5, 2, 2.5, 3}
	for _, test := range []struct {
		name   string
		slope  float64 // data slope for the one-parameter cases
		x0     []float64
		bounds []Bound
		want   []float64
		tol    float64
	}{
		{name: "interior two-sided", slope: 2, x0: []float64{5}, bounds: []Bound{{0, 10}}, want: []float64{2}, tol: 1e-9},
		{name: "interior lower", slope: 2, x0: []float64{1.5}, bounds: []Bound{{1, inf}}, want: []float64{2}, tol: 1e-9},
		{name: "interior upper", slope: 2, x0: []float64{-7}, bounds: []Bound{{-inf, 2.5}}, want: []float64{2}, tol: 1e-9},
		{name: "start on bound", slope: 2, x0: []float64{0}, bounds: []Bound{{0, inf}}, want: []float64{2}, tol: 1e-9},
		{name: "on lower", slope: -1, x0: []float64{1}, bounds: []Bound{{0, inf}}, want: []float64{0}, tol: 1e-6},
		{name: "on upper", slope: 5, x0: []float64{1}, bounds: []Bound{{-inf, 3}}, want: []float64{3}, tol: 1e-6},
		{name: "on upper two-sided", slope: 5, x0: []float64{1}, bounds: []Bound{{0, 3}}, want: []float64{3}, tol: 1e-6},
		{name: "on lower two-sided", slope: -5, x0: []float64{1}, bounds: []Bound{{-1, 3}}, want: []float64{-1}, tol: 1e-6},
		{
			name: "decay interior", x0: []float64{1, 0.5, 0},
			bounds: []Bound{{0, inf}, {0.1, 10}, Unbounded},
			want:   []float64{2, 1.3, 0.5}, tol: 1e-7,
		},
		{
			// c pinned at its lower bound; a and b adjust.
			name: "decay on bound", x0: []float64{1, 0.5, 0.8},
			bounds: []Bound{{0, inf}, {0.1, 10}, {0.6, 1}},
			want:   []float64{math.NaN(), math.NaN(), 0.6}, tol: 1e-6,
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			var p Problem
			if len(test.x0) == 1 {
				p = Problem{NumResiduals: len(ts), Residuals: func(dst, x []float64) {
					for i, ti := range ts {
						dst[i] = x[0]*ti - test.slope*ti
					}
				}}
			} else {
				tt, y := decayData(nil, 30, []float64{2, 1.3, 0.5}, 0)
				p = decay(tt, y)
				p.Jacobian = nil
			}
			inner := p.Residuals
			var outside int
			p.Residuals = func(dst, x []float64) {
				for j, v := range x {
					if v < test.bounds[j].Lower || v > test.bounds[j].Upper {
						outside++
					}
				}
				inner(dst, x)
			}
			res, err := Minimize(p, test.x0, test.bounds, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("X=%v status=%v iter=%d evals=%d", res.X, res.Status, res.Iterations, res.Evaluations)
			if outside > 0 {
				t.Errorf("%d evaluations outside the bounds", outside)
			}
			if !res.Status.Converged() {
				t.Errorf("status %v after %d iterations", res.Status, res.Iterations)
			}
			for j, w := range test.want {
				if !math.IsNaN(w) && math.Abs(res.X[j]-w) > test.tol*math.Max(1, math.Abs(w)) {
					t.Errorf("X[%d] = %v, want %v", j, res.X[j], w)
				}
			}
			for j, x := range res.X {
				if x < test.bounds[j].Lower || x > test.bounds[j].Upper {
					t.Errorf("X[%d] = %v outside %v", j, x, test.bounds[j])
				}
			}
		})
	}
}

// TestMinimizeBoundsInteriorStatistics checks that inactive bounds leave the
// solution and its standard errors as they are without bounds.
func TestMinimizeBoundsInteriorStatistics(t *testing.T) {
	truth := []float64{2, 1.3, 0.5}
	tt, y := decayData(newRand(7), 40, truth, 0.05)
	free, err := Minimize(decay(tt, y), []float64{1, 1, 0}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	bounded, err := Minimize(decay(tt, y), []float64{1, 1, 0}, []Bound{{0, 100}, {0, math.Inf(1)}, {math.Inf(-1), 10}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for j := range truth {
		if d := math.Abs(free.X[j] - bounded.X[j]); d > 1e-7 {
			t.Errorf("X[%d]: free %v, bounded %v", j, free.X[j], bounded.X[j])
		}
		if d := math.Abs(free.StdErr[j]/bounded.StdErr[j] - 1); d > 1e-5 {
			t.Errorf("StdErr[%d]: free %v, bounded %v", j, free.StdErr[j], bounded.StdErr[j])
		}
	}
}
