package lm

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// redundant is y = (a + k·b)·t + c: only a + k·b is determined.
func redundant(k float64, ts, y []float64, analytic bool) Problem {
	p := Problem{
		NumResiduals: len(ts),
		Residuals: func(dst, x []float64) {
			for i, t := range ts {
				dst[i] = (x[0]+k*x[1])*t + x[2] - y[i]
			}
		},
	}
	if analytic {
		p.Jacobian = func(dst *mat.Dense, _ []float64) {
			for i, t := range ts {
				dst.Set(i, 0, t)
				dst.Set(i, 1, k*t)
				dst.Set(i, 2, 1)
			}
		}
	}
	return p
}

func redundantData() (ts, y []float64) {
	rng := newRand(4)
	for i := 0; i < 20; i++ {
		t := float64(i) / 4
		ts = append(ts, t)
		y = append(y, 3*t+1+0.1*rng.NormFloat64())
	}
	return ts, y
}

func TestIdentifiabilityRedundant(t *testing.T) {
	ts, y := redundantData()
	// Closed form of the identifiable fit y = s·t + c.
	x := mat.NewDense(len(ts), 2, nil)
	for i, t := range ts {
		x.SetRow(i, []float64{t, 1})
	}
	lin, err := Minimize(linear(x, y, true), []float64{0, 0}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range []struct {
		name     string
		k        float64
		analytic bool
	}{
		{name: "sum analytic", k: 1, analytic: true},
		{name: "sum finite differences", k: 1},
		{name: "scaled analytic", k: 1e6, analytic: true},
		{name: "scaled finite differences", k: 1e6},
		{name: "difference", k: -2, analytic: true},
	} {
		t.Run(test.name, func(t *testing.T) {
			res, err := Minimize(redundant(test.k, ts, y, test.analytic), []float64{1, 1e-6, 0}, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Status.Converged() {
				t.Errorf("status %v", res.Status)
			}
			if s := res.X[0] + test.k*res.X[1]; math.Abs(s-lin.X[0]) > 1e-7*math.Abs(lin.X[0]) {
				t.Errorf("a + k·b = %v, want %v", s, lin.X[0])
			}
			if !sameSlice(res.Unidentifiable, []int{0, 1}) {
				t.Fatalf("Unidentifiable = %v, want [0 1]", res.Unidentifiable)
			}
			if res.Condition < 1e6 {
				t.Errorf("Condition = %v, want ≥ 1e6", res.Condition)
			}
			// Both scaled columns are ±t: each has half of the null space.
			for j, want := range []float64{0.5, 0.5, 0} {
				if math.Abs(res.NullShare[j]-want) > 1e-6 {
					t.Errorf("NullShare[%d] = %v, want %v", j, res.NullShare[j], want)
				}
			}
			// The null direction is ∝ (k, −1, 0): a + k·b does not change.
			if len(res.NullSpace) != 1 {
				t.Fatalf("%d null directions, want 1", len(res.NullSpace))
			}
			want := []float64{test.k, -1, 0}
			norm := math.Hypot(test.k, 1) // signed so the largest element is positive
			if math.Abs(test.k) < 1 || test.k < 0 {
				norm = -norm
			}
			for j := range want {
				want[j] /= norm
				if math.Abs(res.NullSpace[0][j]-want[j]) > 1e-6 {
					t.Errorf("NullSpace[0] = %v, want %v", res.NullSpace[0], want)
					break
				}
			}
			// Pseudo-inverse: +Inf for a and b, the closed form for c, with
			// the degrees of freedom of a rank-2 fit.
			if !math.IsInf(res.StdErr[0], 1) || !math.IsInf(res.StdErr[1], 1) {
				t.Errorf("StdErr = %v, want +Inf for a and b", res.StdErr)
			}
			if d := math.Abs(res.StdErr[2]/lin.StdErr[1] - 1); d > 1e-6 {
				t.Errorf("StdErr[2] = %v, want %v", res.StdErr[2], lin.StdErr[1])
			}
			if res.Covariance == nil || math.IsNaN(res.Covariance.At(0, 0)) || math.IsInf(res.Covariance.At(0, 0), 0) {
				t.Errorf("Covariance not a finite pseudo-inverse: %v", res.Covariance)
			}
		})
	}
}

func TestIdentify(t *testing.T) {
	for _, test := range []struct {
		name   string
		j      *mat.Dense
		unid   []int
		share  []float64
		cond   float64 // 0: +Inf
		nNull  int
		values []float64
	}{
		{
			name: "orthogonal", j: mat.NewDense(3, 2, []float64{1, 0, 0, 5, 0, 0}),
			share: []float64{0, 0}, cond: 1, values: []float64{1, 1},
		},
		{
			name: "zero column", j: mat.NewDense(3, 2, []float64{1, 0, 2, 0, 3, 0}),
			unid: []int{1}, share: []float64{0, 1}, nNull: 1, values: []float64{1, 0},
		},
		{
			name: "fewer rows", j: mat.NewDense(1, 3, []float64{1, 2, 0}),
			unid: []int{0, 1, 2}, share: []float64{0.5, 0.5, 1}, nNull: 2, values: []float64{math.Sqrt2},
		},
		{
			name: "collinear pair", j: mat.NewDense(3, 3, []float64{1, 2, 0, 2, 4, 1, 3, 6, 0}),
			unid: []int{0, 1}, share: []float64{0.5, 0.5, 0}, nNull: 1,
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			id, err := Identify(test.j, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !sameSlice(id.Unidentifiable, test.unid) {
				t.Errorf("Unidentifiable = %v, want %v", id.Unidentifiable, test.unid)
			}
			for j, w := range test.share {
				if math.Abs(id.NullShare[j]-w) > 1e-12 {
					t.Errorf("NullShare = %v, want %v", id.NullShare, test.share)
					break
				}
			}
			if test.cond == 0 && !math.IsInf(id.Condition, 1) && id.Condition < 1e12 {
				t.Errorf("Condition = %v, want +Inf", id.Condition)
			}
			if test.cond != 0 && math.Abs(id.Condition-test.cond) > 1e-12 {
				t.Errorf("Condition = %v, want %v", id.Condition, test.cond)
			}
			if len(id.NullSpace) != test.nNull {
				t.Errorf("%d null directions, want %d", len(id.NullSpace), test.nNull)
			}
			for _, d := range id.NullSpace {
				var jd mat.VecDense
				jd.MulVec(test.j, mat.NewVecDense(len(d), d))
				if mat.Norm(&jd, 2) > 1e-12 {
					t.Errorf("J·%v = %v, want 0", d, jd.RawVector().Data)
				}
			}
			for k, v := range test.values {
				if math.Abs(id.SingularValues[k]-v) > 1e-12 {
					t.Errorf("SingularValues = %v, want %v", id.SingularValues, test.values)
				}
			}
		})
	}
}

// TestPriors checks that a prior pins a parameter the data cannot determine
// and combines with the data for one they can.
func TestPriors(t *testing.T) {
	ts, y := redundantData()
	const sigma = 0.1
	w := make([]float64, len(ts))
	for i := range w {
		w[i] = 1 / (sigma * sigma)
	}
	set := &Settings{Weights: w, AbsoluteWeights: true}

	t.Run("unidentifiable", func(t *testing.T) {
		for _, analytic := range []bool{true, false} {
			p := redundant(1, ts, y, analytic)
			p.Priors = []Prior{{}, {Mean: 0.7, Sigma: 0.2}, {}}
			res, err := Minimize(p, []float64{1, 1, 0}, nil, set)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(res.X[1]-0.7) > 1e-6 {
				t.Errorf("b = %v, want the prior mean 0.7", res.X[1])
			}
			// The prior's uncertainty carries over to b and, through
			// a + b, to a.
			if math.Abs(res.StdErr[1]-0.2) > 1e-6 {
				t.Errorf("StdErr[1] = %v, want 0.2", res.StdErr[1])
			}
			if res.StdErr[0] < 0.2 || math.IsInf(res.StdErr[0], 0) {
				t.Errorf("StdErr[0] = %v, want finite and ≥ 0.2", res.StdErr[0])
			}
			if !sameSlice(res.Unidentifiable, []int{0, 1}) {
				t.Errorf("Unidentifiable = %v, want [0 1] (data alone)", res.Unidentifiable)
			}
			if res.DegreesOfFreedom != len(ts)+1-3 {
				t.Errorf("DegreesOfFreedom = %d", res.DegreesOfFreedom)
			}
		}
	})

	// y = a with n observations of known σ and a prior N(μ₀, σ₀²): the
	// posterior mean and variance have a closed form, bounded or not.
	obs := []float64{1.2, 0.9, 1.4, 1.1}
	const mu0, s0 = 2.0, 0.5
	var sum float64
	for _, o := range obs {
		sum += o
	}
	prec := float64(len(obs))/(sigma*sigma) + 1/(s0*s0)
	mean := (sum/(sigma*sigma) + mu0/(s0*s0)) / prec
	wantCost := 0.0
	for _, o := range obs {
		wantCost += (mean - o) * (mean - o) / (sigma * sigma)
	}
	wantCost = 0.5 * (wantCost + (mean-mu0)*(mean-mu0)/(s0*s0))
	for _, test := range []struct {
		name   string
		bounds []Bound
	}{
		{name: "identifiable"},
		{name: "identifiable two-sided bound", bounds: []Bound{{Lower: 0, Upper: 3}}},
		{name: "identifiable lower bound", bounds: []Bound{{Lower: 1, Upper: math.Inf(1)}}},
	} {
		t.Run(test.name, func(t *testing.T) {
			p := Problem{NumResiduals: len(obs), Residuals: func(dst, x []float64) {
				for i, o := range obs {
					dst[i] = x[0] - o
				}
			}, Priors: []Prior{{Mean: mu0, Sigma: s0}}}
			ow := []float64{1 / (sigma * sigma), 1 / (sigma * sigma), 1 / (sigma * sigma), 1 / (sigma * sigma)}
			res, err := Minimize(p, []float64{2.5}, test.bounds, &Settings{Weights: ow, AbsoluteWeights: true})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(res.X[0]-mean) > 1e-9 || math.Abs(res.StdErr[0]-1/math.Sqrt(prec)) > 1e-9 {
				t.Errorf("X = %v ± %v, want %v ± %v", res.X[0], res.StdErr[0], mean, 1/math.Sqrt(prec))
			}
			if math.Abs(res.Cost-wantCost) > 1e-9*wantCost {
				t.Errorf("Cost = %v, want %v", res.Cost, wantCost)
			}
		})
	}
}
