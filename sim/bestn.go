package sim

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/blsim/blsim/model"
	"gonum.org/v1/gonum/optimize"
)

// MaxBestNEngines is the most engines BestN splits over: it searches every
// face of the simplex (each subset of the helper engines), 2^(N-1) of
// them, each over more co-running engines, so every engine more makes it
// several times slower: issue 31's probe timed a prediction over seven
// engines at 46 s and over eight at 5 min 58 s on a 2-vCPU machine, with
// no word on the terminal; six is the most below those.
const MaxBestNEngines = 6

// BestN finds the fractions of the split ops over all of plan p's engines
// (p.Fracs is ignored) that maximise throughput, and returns p with those
// fractions and its result.
//
// The fractions live on the simplex (each >= 0, summing to 1). An engine
// given exactly 0 is never woken, so the throughput jumps at the simplex's
// faces; BestN therefore searches each face apart: for every subset of the
// helper engines (those after the main engine) that take a share. The
// empty subset is the dispatcher alone; a subset of one helper is a
// two-engine split, whose share the one-dimensional search of Best finds
// (over [0, 1], so it covers the empty face too); on a larger subset the
// fractions of the main engine and the subset are parameterised by a
// softmax (the main engine's logit fixed at 0) and maximised with a
// Nelder-Mead simplex search (nelderMead) from a few starts: the
// two-engine optimum of each helper, equal shares, and a main-heavy
// split. The best of all faces wins. Everything is deterministic: same
// inputs, same answer.
func (e *Evaluator) BestN(p model.Plan) (model.Plan, *Result, error) {
	n := len(p.Engines)
	if p.Mode == model.Native || p.Mode == model.PoolPlan {
		return model.Plan{}, nil, fmt.Errorf("bestn: a %s plan has no fractions to find", p.Mode)
	}
	if n < 2 {
		return model.Plan{}, nil, fmt.Errorf("bestn: %d engine; a split needs two or more", n)
	}
	if n > MaxBestNEngines {
		return model.Plan{}, nil, fmt.Errorf("bestn: %d engines; at most %d", n, MaxBestNEngines)
	}
	// Check the plan with every engine given a share: an engine that
	// cannot take one is an error, not silently left out.
	q := p
	q.Fracs = make([]float64, n)
	for i := range q.Fracs {
		q.Fracs[i] = 1 / float64(n)
	}
	q.Fracs[0] = 1 - float64(n-1)/float64(n)
	if err := e.check(q); err != nil {
		return model.Plan{}, nil, err
	}
	eval := func(fr []float64) (*Result, error) {
		q := p
		q.Fracs = fr
		return e.Run(q)
	}

	// Two-engine optima of each helper with the main engine: the faces of
	// one helper, and starts for the larger faces that include it.
	pair := make([]float64, n)
	pairTPS := make([]float64, n)
	if err := parallel(n-1, func(k int) error {
		i := k + 1
		f, r, err := bestShare(func(f float64) (*Result, error) {
			fr := make([]float64, n)
			fr[0], fr[i] = 1-f, f
			return eval(fr)
		}, 20, 1e-4)
		pair[i] = f
		if r != nil {
			pairTPS[i] = r.TPS
		}
		return err
	}); err != nil {
		return model.Plan{}, nil, err
	}

	type cand struct {
		fr  []float64
		tps float64
	}
	faces := 1 << (n - 1)
	cands := make([]cand, faces)
	if err := parallel(faces, func(mask int) error {
		if i := bits.TrailingZeros(uint(mask)) + 1; bits.OnesCount(uint(mask)) == 1 {
			fr := make([]float64, n)
			fr[0], fr[i] = 1-pair[i], pair[i]
			cands[mask] = cand{fr, pairTPS[i]}
			return nil
		}
		fr, tps, err := bestFace(eval, n, mask, pair)
		cands[mask] = cand{fr, tps}
		return err
	}); err != nil {
		return model.Plan{}, nil, err
	}
	best := 0
	for k, c := range cands {
		if c.tps > cands[best].tps {
			best = k
		}
	}
	r, err := eval(cands[best].fr)
	if err != nil {
		return model.Plan{}, nil, err
	}
	p.Fracs = append([]float64(nil), cands[best].fr...)
	return p, r, nil
}

// bestFace maximises throughput on one face of the simplex: the main
// engine plus the helpers whose bit (i-1) is set in mask take shares, the
// rest none. It returns the fractions (over all n engines) and the t/s.
func bestFace(eval func([]float64) (*Result, error), n, mask int, pair []float64) ([]float64, float64, error) {
	var on []int // helper engines with a share
	for i := 1; i < n; i++ {
		if mask&(1<<(i-1)) != 0 {
			on = append(on, i)
		}
	}
	fracs := func(z []float64) []float64 {
		fr := make([]float64, n)
		// Softmax with the main engine's logit at 0, shifted by the
		// largest logit so that no exponential overflows.
		m := 0.0
		for _, v := range z {
			m = math.Max(m, v)
		}
		sum := math.Exp(-m)
		fr[0] = sum
		for k, i := range on {
			fr[i] = math.Exp(z[k] - m)
			sum += fr[i]
		}
		rest := 1.0
		for _, i := range on {
			fr[i] /= sum
			rest -= fr[i]
		}
		fr[0] = rest // exact sum of 1
		return fr
	}
	if len(on) == 0 {
		fr := fracs(nil)
		r, err := eval(fr)
		if err != nil {
			return nil, 0, err
		}
		return fr, r.TPS, nil
	}
	logits := func(fr []float64) []float64 {
		z := make([]float64, len(on))
		for k, i := range on {
			z[k] = math.Log(math.Max(fr[i], 1e-6) / math.Max(fr[0], 1e-6))
		}
		return z
	}
	// Starts, as fractions over the face.
	var starts [][]float64
	{
		fr := make([]float64, n)
		sum := 0.0
		for _, i := range on {
			fr[i] = math.Max(pair[i], 0.02)
			sum += fr[i]
		}
		if sum > 0.9 {
			for _, i := range on {
				fr[i] *= 0.9 / sum
			}
			sum = 0.9
		}
		fr[0] = 1 - sum
		starts = append(starts, fr)
	}
	{
		fr := make([]float64, n)
		for _, i := range append([]int{0}, on...) {
			fr[i] = 1 / float64(len(on)+1)
		}
		starts = append(starts, fr)
	}
	{
		fr := make([]float64, n)
		fr[0] = 0.8
		for _, i := range on {
			fr[i] = 0.2 / float64(len(on))
		}
		starts = append(starts, fr)
	}
	var evalErr error
	obj := func(z []float64) float64 {
		r, err := eval(fracs(z))
		if err != nil {
			if evalErr == nil {
				evalErr = err
			}
			return math.Inf(1)
		}
		return -r.TPS
	}
	bestZ, bestF := []float64(nil), math.Inf(1)
	for _, st := range starts {
		z, f := nelderMead(obj, logits(st), 0.4, 1e-7, 150*len(on))
		if evalErr != nil {
			return nil, 0, evalErr
		}
		if f < bestF {
			bestZ, bestF = z, f
		}
	}
	return fracs(bestZ), -bestF, nil
}

// nelderMead minimises f from x0 with gonum's Nelder-Mead simplex method
// (dimension-adaptive coefficients), starting from a simplex of size step.
// It stops when the best value has improved by less than tol over 3·dim
// iterations or after maxEval evaluations, and returns the best point and
// its value. The search is serial and deterministic.
func nelderMead(f func([]float64) float64, x0 []float64, step, tol float64, maxEval int) ([]float64, float64) {
	settings := &optimize.Settings{
		FuncEvaluations: maxEval,
		Converger:       &optimize.FunctionConverge{Absolute: tol, Iterations: 3 * len(x0)},
	}
	res, err := optimize.Minimize(optimize.Problem{Func: f}, x0, settings, &optimize.NelderMead{SimplexSize: step})
	if res == nil || (err != nil && res.X == nil) {
		return x0, f(x0)
	}
	return res.X, res.F
}
