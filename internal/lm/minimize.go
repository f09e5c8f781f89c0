package lm

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Result is the outcome of Minimize.
type Result struct {
	// X is the solution, within the bounds.
	X []float64
	// Cost is ½Σwᵢrᵢ² plus ½Σ((xⱼ−μⱼ)/σⱼ)² over the priors, at X.
	Cost float64
	// Residuals are the Problem's residuals at X, unweighted and without
	// prior rows.
	Residuals []float64
	// Jacobian is the m×n Jacobian of Residuals at X with respect to x (not
	// the unconstrained variables), unweighted and without prior rows.
	Jacobian *mat.Dense

	// Iterations is the number of damped steps solved, accepted or not.
	Iterations int
	// Evaluations is the number of calls to Problem.Residuals, including
	// those made for finite differences.
	Evaluations int
	// JacobianEvaluations is the number of Jacobians computed, analytically
	// or by finite differences.
	JacobianEvaluations int
	// Status says why the iteration stopped.
	Status Status

	// DegreesOfFreedom is m_eff + priors − rank, where m_eff counts the
	// residuals with a positive weight and rank is the number of
	// identifiable directions of the weighted Jacobian with the prior rows
	// (n when all parameters are identifiable).
	DegreesOfFreedom int
	// ResidualVariance is the factor s² that scales the covariance:
	// 2·Cost/DegreesOfFreedom, or 1 with Settings.AbsoluteWeights.
	ResidualVariance float64
	// Covariance is s²·(JᵀWJ + P)⁻¹, with P the diagonal of the priors'
	// 1/σ², computed as a pseudo-inverse when the matrix is singular. It is
	// nil when DegreesOfFreedom ≤ 0 and the weights are not absolute.
	Covariance *mat.SymDense
	// StdErr holds the square roots of Covariance's diagonal, or +Inf for a
	// parameter that has a share in the null space of the weighted
	// Jacobian including the prior rows, or when Covariance is nil.
	StdErr []float64

	// Identifiability describes what the data alone, without the priors,
	// determine about the parameters.
	Identifiability
}

// Minimize finds the parameters x that minimise the weighted sum of squared
// residuals of p, plus the prior terms, starting from x0. bounds, if not nil,
// holds one Bound per parameter; nil means all parameters are free. A nil s
// means default settings.
//
// Minimize returns an error, and a nil Result, for invalid input or when the
// Problem produces a value that is not finite. Not converging within
// Settings.MaxIterations is not an error; check Result.Status.
func Minimize(p Problem, x0 []float64, bounds []Bound, s *Settings) (*Result, error) {
	nPrior, err := validate(p, x0, bounds)
	if err != nil {
		return nil, err
	}
	set, err := s.resolve(p.NumResiduals)
	if err != nil {
		return nil, err
	}
	lm := newSolver(p, x0, bounds, nPrior, set)
	if err := lm.run(); err != nil {
		return nil, err
	}
	return lm.result()
}

// solver holds the state of one minimisation. Rows 0..m-1 of the weighted
// residual vector f are √wᵢ·rᵢ, rows m.. are the prior residuals.
type solver struct {
	set   Settings
	ev    evaluator
	m, n  int
	sqrtW []float64 // nil when unweighted
	prior []int     // parameter index of each prior row
	pm    []float64 // prior means, by row
	ps    []float64 // prior sigmas, by row

	u, x   []float64
	r, f   []float64
	cost   float64
	jx     *mat.Dense // unweighted x-space Jacobian of r
	ju     *mat.Dense // weighted u-space Jacobian of f
	a      *mat.SymDense
	g      *mat.VecDense
	scale  []float64 // Marquardt scaling D
	iter   int
	status Status
}

func newSolver(p Problem, x0 []float64, bounds []Bound, nPrior int, set Settings) *solver {
	m, n := p.NumResiduals, len(x0)
	s := &solver{set: set, m: m, n: n}
	s.ev = evaluator{p: p, tr: make([]transform, n), x0: x0, step: set.FiniteDifferenceStep}
	for j := range s.ev.tr {
		b := Unbounded
		if bounds != nil {
			b = bounds[j]
		}
		s.ev.tr[j] = newTransform(b)
	}
	if set.Weights != nil {
		s.sqrtW = make([]float64, m)
		for i, w := range set.Weights {
			s.sqrtW[i] = math.Sqrt(w)
		}
	}
	for j, pr := range p.Priors {
		if pr.active() {
			s.prior = append(s.prior, j)
			s.pm = append(s.pm, pr.Mean)
			s.ps = append(s.ps, pr.Sigma)
		}
	}
	rows := m + nPrior
	s.u = make([]float64, n)
	s.x = make([]float64, n)
	for j, t := range s.ev.tr {
		s.u[j] = t.toU(x0[j])
		s.x[j] = t.toX(s.u[j])
	}
	s.r = make([]float64, m)
	s.f = make([]float64, rows)
	s.jx = mat.NewDense(m, n, nil)
	s.ju = mat.NewDense(rows, n, nil)
	s.a = mat.NewSymDense(n, nil)
	s.g = mat.NewVecDense(n, nil)
	s.scale = make([]float64, n)
	return s
}

// weigh fills f from r and x and returns ½‖f‖².
func (s *solver) weigh(f, r, x []float64) float64 {
	for i, v := range r {
		if s.sqrtW != nil {
			v *= s.sqrtW[i]
		}
		f[i] = v
	}
	for k, j := range s.prior {
		f[s.m+k] = (x[j] - s.pm[k]) / s.ps[k]
	}
	return 0.5 * floats.Dot(f, f)
}

// linearize computes the Jacobians, JᵀJ and the gradient Jᵀf at the
// current point.
func (s *solver) linearize() error {
	if err := s.ev.jacobian(s.jx, s.x, s.r); err != nil {
		return err
	}
	for j, t := range s.ev.tr {
		d := t.deriv(s.u[j])
		for i := 0; i < s.m; i++ {
			v := s.jx.At(i, j) * d
			if s.sqrtW != nil {
				v *= s.sqrtW[i]
			}
			s.ju.Set(i, j, v)
		}
	}
	for k, j := range s.prior {
		s.ju.Set(s.m+k, j, s.ev.tr[j].deriv(s.u[j])/s.ps[k])
	}
	s.a.SymOuterK(1, s.ju.T())
	s.g.MulVec(s.ju.T(), mat.NewVecDense(len(s.f), s.f))
	for j := range s.scale {
		s.scale[j] = math.Max(s.scale[j], s.a.At(j, j))
	}
	return nil
}

// gradientConverged reports whether every Jacobian column is within
// GradientTolerance of orthogonal to f.
func (s *solver) gradientConverged() bool {
	fn := math.Sqrt(2 * s.cost)
	if fn == 0 {
		return true
	}
	for j := 0; j < s.n; j++ {
		ajj := s.a.At(j, j)
		if ajj == 0 {
			continue
		}
		if math.Abs(s.g.AtVec(j))/(math.Sqrt(ajj)*fn) > s.set.GradientTolerance {
			return false
		}
	}
	return true
}

// run iterates until a stopping test passes.
func (s *solver) run() error {
	if err := s.ev.residuals(s.r, s.x); err != nil {
		return err
	}
	s.cost = s.weigh(s.f, s.r, s.x)
	if err := s.linearize(); err != nil {
		return err
	}

	n := s.n
	var (
		mu   = s.set.InitialDamping
		nu   = 2.0
		b    = mat.NewSymDense(n, nil)
		chol mat.Cholesky
		h    = mat.NewVecDense(n, nil)
		negG = mat.NewVecDense(n, nil)
		uNew = make([]float64, n)
		xNew = make([]float64, n)
		rNew = make([]float64, s.m)
		fNew = make([]float64, len(s.f))
		dh   = make([]float64, n)
	)
	for {
		if s.gradientConverged() {
			s.status = GradientConverged
			return nil
		}
		if s.iter >= s.set.MaxIterations {
			s.status = IterationLimit
			return nil
		}
		s.iter++

		// Solve (A + μD) h = −g.
		floor := floats.Max(s.scale) * 1e-12
		if floor == 0 {
			floor = 1
		}
		b.CopySym(s.a)
		for j := 0; j < n; j++ {
			b.SetSym(j, j, b.At(j, j)+mu*math.Max(s.scale[j], floor))
		}
		if !chol.Factorize(b) {
			mu *= nu
			nu *= 2
			continue
		}
		negG.ScaleVec(-1, s.g)
		if err := chol.SolveVecTo(h, negG); err != nil {
			mu *= nu
			nu *= 2
			continue
		}
		hs := h.RawVector().Data
		hn := floats.Norm(hs, 2)
		// A NaN step means the damping overflowed: no progress is possible.
		if math.IsNaN(hn) || hn <= s.set.StepTolerance*(floats.Norm(s.u, 2)+s.set.StepTolerance) {
			s.status = StepConverged
			return nil
		}

		for j, t := range s.ev.tr {
			uNew[j] = s.u[j] + hs[j]
			xNew[j] = t.toX(uNew[j])
		}
		if err := s.ev.residuals(rNew, xNew); err != nil {
			return err
		}
		costNew := s.weigh(fNew, rNew, xNew)

		// Predicted reduction ½hᵀ(μDh − g).
		for j := range dh {
			dh[j] = mu*math.Max(s.scale[j], floor)*hs[j] - s.g.AtVec(j)
		}
		pred := 0.5 * floats.Dot(hs, dh)
		actual := s.cost - costNew
		rho := actual / pred
		if !(actual > 0 && pred > 0) {
			rho = -1
		}
		if rho <= 0 {
			mu *= nu
			nu *= 2
			continue
		}

		old := s.cost
		copy(s.u, uNew)
		copy(s.x, xNew)
		copy(s.r, rNew)
		copy(s.f, fNew)
		s.cost = costNew
		if err := s.linearize(); err != nil {
			return err
		}
		mu *= math.Max(1.0/3, 1-math.Pow(2*rho-1, 3))
		nu = 2
		if actual <= s.set.FunctionTolerance*old {
			s.status = FunctionConverged
			return nil
		}
	}
}

// result assembles the Result at the final point.
func (s *solver) result() (*Result, error) {
	m, n := s.m, s.n
	res := &Result{
		X:                   append([]float64(nil), s.x...),
		Cost:                s.cost,
		Residuals:           append([]float64(nil), s.r...),
		Jacobian:            mat.DenseCopyOf(s.jx),
		Iterations:          s.iter,
		Evaluations:         s.ev.evals,
		JacobianEvaluations: s.ev.jevals,
		Status:              s.status,
	}

	// Weighted x-space Jacobian with prior rows.
	jw := mat.NewDense(m+len(s.prior), n, nil)
	meff := m
	for i := 0; i < m; i++ {
		w := 1.0
		if s.sqrtW != nil {
			w = s.sqrtW[i]
			if w == 0 {
				meff--
			}
		}
		for j := 0; j < n; j++ {
			v := w * s.jx.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				// A derivative the residuals could not give (a
				// parameter at its bound): unknown, so no information,
				// rather than a decomposition that fails.
				v = 0
			}
			jw.Set(i, j, v)
		}
	}
	for k, j := range s.prior {
		jw.Set(m+k, j, 1/s.ps[k])
	}
	id, err := Identify(jw.Slice(0, m, 0, n), s.set.SingularTolerance)
	if err != nil {
		return nil, err
	}
	res.Identifiability = id

	full, ok := decompose(jw, s.set.SingularTolerance)
	if !ok {
		return nil, ErrSVD
	}
	res.DegreesOfFreedom = meff + len(s.prior) - full.rank
	res.StdErr = make([]float64, n)
	switch {
	case s.set.AbsoluteWeights:
		res.ResidualVariance = 1
	case res.DegreesOfFreedom > 0:
		res.ResidualVariance = 2 * s.cost / float64(res.DegreesOfFreedom)
	default:
		res.ResidualVariance = math.NaN()
		for j := range res.StdErr {
			res.StdErr[j] = math.Inf(1)
		}
		return res, nil
	}
	cov := full.pseudoInverse()
	cov.ScaleSym(res.ResidualVariance, cov)
	res.Covariance = cov
	for j := range res.StdErr {
		if full.share[j] > NullShareThreshold {
			res.StdErr[j] = math.Inf(1)
		} else {
			res.StdErr[j] = math.Sqrt(cov.At(j, j))
		}
	}
	return res, nil
}
