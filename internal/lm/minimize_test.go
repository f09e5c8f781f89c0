package lm

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestMinimizeRosenbrock(t *testing.T) {
	for _, test := range []struct {
		name     string
		analytic bool
		settings *Settings
	}{
		{name: "finite differences"},
		{name: "analytic", analytic: true},
		{name: "large damping", analytic: true, settings: &Settings{InitialDamping: 1e3}},
		{name: "small damping", settings: &Settings{InitialDamping: 1e-9}},
	} {
		t.Run(test.name, func(t *testing.T) {
			p := rosenbrock()
			if test.analytic {
				p.Jacobian = rosenbrockJac
			}
			res, err := Minimize(p, []float64{-1.2, 1}, nil, test.settings)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Status.Converged() {
				t.Fatalf("status %v after %d iterations", res.Status, res.Iterations)
			}
			for j, v := range res.X {
				if math.Abs(v-1) > 1e-8 {
					t.Errorf("X[%d] = %v, want 1", j, v)
				}
			}
			if res.Cost > 1e-16 {
				t.Errorf("Cost = %v, want ≈0", res.Cost)
			}
			if res.Iterations > 100 {
				t.Errorf("%d iterations, want at most 100", res.Iterations)
			}
			// Jacobian at the solution, in x space.
			want := mat.NewDense(2, 2, []float64{-20, 10, -1, 0})
			if !mat.EqualApprox(res.Jacobian, want, 1e-6) {
				t.Errorf("Jacobian = %v, want %v", mat.Formatted(res.Jacobian), mat.Formatted(want))
			}
			// One evaluation per accepted step and the start, plus n per
			// finite-difference Jacobian.
			minEvals := res.JacobianEvaluations
			if !test.analytic {
				minEvals += 2 * res.JacobianEvaluations
			}
			if res.Evaluations < minEvals {
				t.Errorf("Evaluations = %d, want at least %d", res.Evaluations, minEvals)
			}
		})
	}
}

func TestMinimizeIterationLimit(t *testing.T) {
	res, err := Minimize(rosenbrock(), []float64{-1.2, 1}, nil, &Settings{MaxIterations: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != IterationLimit || res.Iterations != 3 {
		t.Errorf("Status = %v, Iterations = %d, want IterationLimit, 3", res.Status, res.Iterations)
	}
	if res.Status.Converged() {
		t.Error("IterationLimit reports converged")
	}
}

func TestMinimizeInputErrors(t *testing.T) {
	ok := Problem{NumResiduals: 2, Residuals: func(dst, x []float64) { dst[0], dst[1] = x[0], x[0] }}
	for _, test := range []struct {
		name     string
		p        Problem
		x0       []float64
		bounds   []Bound
		settings *Settings
		is       error  // sentinel, or nil
		field    string // InputError.Field, when is == nil
	}{
		{name: "zero dimensional", p: ok, is: ErrZeroDimensional},
		{name: "nil residuals", p: Problem{NumResiduals: 1}, x0: []float64{1}, is: ErrMissingResiduals},
		{name: "no residuals", p: Problem{Residuals: ok.Residuals}, x0: []float64{1}, is: ErrNoResiduals},
		{name: "x0 NaN", p: ok, x0: []float64{math.NaN()}, field: "x0"},
		{name: "bounds length", p: ok, x0: []float64{1}, bounds: []Bound{Unbounded, Unbounded}, field: "bounds"},
		{name: "zero bound", p: ok, x0: []float64{0}, bounds: []Bound{{}}, field: "bounds"},
		{name: "reversed bound", p: ok, x0: []float64{1}, bounds: []Bound{{Lower: 2, Upper: 0}}, field: "bounds"},
		{name: "NaN bound", p: ok, x0: []float64{1}, bounds: []Bound{{Lower: math.NaN(), Upper: 2}}, field: "bounds"},
		{name: "x0 below bound", p: ok, x0: []float64{-1}, bounds: []Bound{{Lower: 0, Upper: math.Inf(1)}}, field: "x0"},
		{name: "x0 above bound", p: ok, x0: []float64{3}, bounds: []Bound{{Lower: 0, Upper: 2}}, field: "x0"},
		{name: "weights length", p: ok, x0: []float64{1}, settings: &Settings{Weights: []float64{1}}, field: "Settings.Weights"},
		{name: "negative weight", p: ok, x0: []float64{1}, settings: &Settings{Weights: []float64{1, -1}}, field: "Settings.Weights"},
		{name: "zero weights", p: ok, x0: []float64{1}, settings: &Settings{Weights: []float64{0, 0}}, field: "Settings.Weights"},
		{name: "negative tolerance", p: ok, x0: []float64{1}, settings: &Settings{StepTolerance: -1}, field: "Settings.StepTolerance"},
		{name: "negative iterations", p: ok, x0: []float64{1}, settings: &Settings{MaxIterations: -1}, field: "Settings.MaxIterations"},
		{name: "singular tolerance", p: ok, x0: []float64{1}, settings: &Settings{SingularTolerance: 1}, field: "Settings.SingularTolerance"},
		{name: "priors length", p: Problem{NumResiduals: 2, Residuals: ok.Residuals, Priors: []Prior{{}, {}}}, x0: []float64{1}, field: "Problem.Priors"},
		{name: "negative prior sigma", p: Problem{NumResiduals: 2, Residuals: ok.Residuals, Priors: []Prior{{Mean: 1, Sigma: -1}}}, x0: []float64{1}, field: "Problem.Priors"},
	} {
		t.Run(test.name, func(t *testing.T) {
			res, err := Minimize(test.p, test.x0, test.bounds, test.settings)
			if res != nil {
				t.Errorf("non-nil Result with error %v", err)
			}
			if test.is != nil {
				if !errors.Is(err, test.is) {
					t.Errorf("error %v, want %v", err, test.is)
				}
				return
			}
			var ie *InputError
			if !errors.As(err, &ie) || ie.Field != test.field {
				t.Fatalf("error %v, want *InputError for %s", err, test.field)
			}
			if !strings.HasPrefix(err.Error(), "lm: "+test.field) {
				t.Errorf("message %q does not name %s", err, test.field)
			}
		})
	}
}

func TestMinimizeNonFinite(t *testing.T) {
	line := func(dst, x []float64) {
		for i := range dst {
			dst[i] = x[0] - 5
		}
	}
	for _, test := range []struct {
		name     string
		p        Problem
		fn       string
		row, col int
		nan      bool
	}{
		{
			name: "NaN at start",
			p: Problem{NumResiduals: 3, Residuals: func(dst, x []float64) {
				line(dst, x)
				dst[1] = math.NaN()
			}},
			fn: "Residuals", row: 1, col: -1, nan: true,
		},
		{
			name: "unset residual",
			p: Problem{NumResiduals: 3, Residuals: func(dst, x []float64) {
				dst[0], dst[1] = x[0], x[0]
			}},
			fn: "Residuals", row: 2, col: -1, nan: true,
		},
		{
			name: "NaN after a step",
			p: Problem{NumResiduals: 3, Residuals: func(dst, x []float64) {
				line(dst, x)
				if x[0] > 3 {
					dst[0] = math.Sqrt(-1)
				}
			}},
			fn: "Residuals", row: 0, col: -1, nan: true,
		},
		{
			name: "Inf Jacobian",
			p: Problem{NumResiduals: 3, Residuals: line, Jacobian: func(dst *mat.Dense, x []float64) {
				dst.Set(2, 0, math.Inf(1))
			}},
			fn: "Jacobian", row: 2, col: 0,
		},
	} {
		t.Run(test.name, func(t *testing.T) {
			res, err := Minimize(test.p, []float64{0}, nil, nil)
			if res != nil {
				t.Error("non-nil Result with error")
			}
			var nf *NonFiniteError
			if !errors.As(err, &nf) {
				t.Fatalf("error %v, want *NonFiniteError", err)
			}
			if nf.Func != test.fn || nf.Row != test.row || nf.Col != test.col {
				t.Errorf("got %s (%d, %d), want %s (%d, %d)", nf.Func, nf.Row, nf.Col, test.fn, test.row, test.col)
			}
			if test.nan != math.IsNaN(nf.Value) || len(nf.X) != 1 {
				t.Errorf("Value = %v, X = %v", nf.Value, nf.X)
			}
			want := "lm: " + test.fn + " returned"
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("message %q, want prefix %q", err, want)
			}
		})
	}
}

func TestStatusString(t *testing.T) {
	for s, want := range map[Status]string{
		NotTerminated:     "NotTerminated",
		GradientConverged: "GradientConverged",
		StepConverged:     "StepConverged",
		FunctionConverged: "FunctionConverged",
		IterationLimit:    "IterationLimit",
		Status(42):        "Status(42)",
	} {
		if got := s.String(); got != want {
			t.Errorf("Status(%d).String() = %q, want %q", int(s), got, want)
		}
	}
}
