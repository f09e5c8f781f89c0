package sim

import (
	"errors"
	"fmt"
	"math"

	"github.com/blsim/blsim/model"
)

// MaxSecondFrac is the second engine's largest share in a split curve's
// default sweep (predict's --sweep, blsim plot split): the shares a
// little cluster takes. The best-share search is not bounded by it; it
// covers every share from 0 to 1.
const MaxSecondFrac = 0.5

// Best finds the shares of split plan p's engines (p.Fracs is ignored)
// that maximise throughput, over the whole simplex whatever the engines'
// order: for two engines every share of the second from 0 (the
// dispatcher alone) to 1 (every routed-expert op on it), a grid of 0.05
// refined by golden section to 1e-4; for more, BestN. Each of also (a
// share per engine, such as a requested split) is a candidate too, so
// the best is never worse than a plan the caller already has.
func (e *Evaluator) Best(p model.Plan, also ...[]float64) (model.Plan, *Result, error) {
	if !p.Mode.IsSplit() {
		return model.Plan{}, nil, fmt.Errorf("best: a %s plan has no fractions to find", p.Mode)
	}
	n := len(p.Engines)
	if n < 2 {
		return model.Plan{}, nil, fmt.Errorf("best: %d engine; a split needs two or more", n)
	}
	var bp model.Plan
	var br *Result
	var err error
	if n == 2 {
		bp, br, err = e.bestTwo(p)
	} else {
		bp, br, err = e.BestN(p)
	}
	if err != nil {
		return model.Plan{}, nil, err
	}
	for _, fr := range also {
		q := p
		q.Fracs = fr
		r, err := e.Run(q)
		if err != nil {
			return model.Plan{}, nil, err
		}
		if r.TPS > br.TPS {
			bp, br = q, r
		}
	}
	return bp, br, nil
}

// balanceGrid is the steps of Best's grid over [0, 1] for two engines,
// whose shares Balance reuses.
const balanceGrid = 20

// bestTwo is Best for two engines.
func (e *Evaluator) bestTwo(p model.Plan) (model.Plan, *Result, error) {
	return e.searchTwo(p, func(run func(float64) (*Result, error)) (float64, *Result, error) {
		return bestShare(run, balanceGrid, 1e-4)
	})
}

// searchTwo runs a share search over a two-engine plan: it checks the plan
// with the second engine given a share (an engine that cannot take one is
// an error, not silently left at 0), then returns the plan at the share
// search finds, with its result.
func (e *Evaluator) searchTwo(p model.Plan, search func(run func(float64) (*Result, error)) (float64, *Result, error)) (model.Plan, *Result, error) {
	at := func(f float64) model.Plan {
		q := p
		q.Fracs = []float64{1 - f, f}
		return q
	}
	if err := e.check(at(0.5)); err != nil {
		return model.Plan{}, nil, err
	}
	f, r, err := search(func(f float64) (*Result, error) { return e.Run(at(f)) })
	if err != nil {
		return model.Plan{}, nil, err
	}
	return at(f), r, nil
}

// BestCoarse is Best for a two-engine plan with a coarser search, for a
// grid of what-if SoCs (a heatmap's cells): a grid of steps intervals over
// [0, 1] refined by golden section to tol.
func (e *Evaluator) BestCoarse(p model.Plan, steps int, tol float64) (model.Plan, *Result, error) {
	if len(p.Engines) != 2 || (!p.Mode.IsSplit()) {
		return model.Plan{}, nil, fmt.Errorf("best: a coarse search is of a two-engine split, not %s over %d engines", p.Mode, len(p.Engines))
	}
	if steps < 1 || !(tol > 0) {
		return model.Plan{}, nil, fmt.Errorf("best: %d grid steps, tolerance %g", steps, tol)
	}
	return e.searchTwo(p, func(run func(float64) (*Result, error)) (float64, *Result, error) {
		return bestShare(run, steps, tol)
	})
}

// BestNear is Best for a two-engine plan searched near given shares, for
// a grid of what-if SoCs (a heatmap's cells) whose best share moves
// little from a cell to the next: starts are the shares a cell's
// neighbours suggest. It runs the dispatcher alone (share 0) and each
// start, then climbs from the fastest in steps of tol/2, or of one whole
// unit where that is more (a split is cut at whole tokens or experts,
// runner.cut: a smaller step runs the same plan and would end the climb
// on a tie), doubling from the third, while the t/s rises, until a share
// runs no faster than the one before; golden section then narrows the
// bracket of the highest t/s to at most tol, or one unit either side of
// its best where that is more, as BestCoarse's is. The answer is the
// faster of share 0 and that bracket's best: within tol (or a unit) of the
// maximum nearest the fastest start, in four runs when it starts at that
// maximum. A higher maximum further off is missed; BestCoarse searches
// the whole range.
func (e *Evaluator) BestNear(p model.Plan, tol float64, starts ...float64) (model.Plan, *Result, error) {
	if len(p.Engines) != 2 || (!p.Mode.IsSplit()) {
		return model.Plan{}, nil, fmt.Errorf("best: a search near a share is of a two-engine split, not %s over %d engines", p.Mode, len(p.Engines))
	}
	if !(tol > 0 && tol <= 0.5) || len(starts) == 0 {
		return model.Plan{}, nil, fmt.Errorf("best: %d starts, tolerance %g (want a start, and a tolerance in (0, 0.5])", len(starts), tol)
	}
	for _, f := range starts {
		if math.IsNaN(f) {
			return model.Plan{}, nil, errors.New("best: a start share is NaN")
		}
	}
	unit := e.splitUnit(p.Mode)
	return e.searchTwo(p, func(run func(float64) (*Result, error)) (float64, *Result, error) {
		return nearShare(run, starts, tol, unit)
	})
}

// splitUnit is the share of one whole unit of split mode m, the finest
// step that changes a plan (runner.cut): one token of the largest ubatch
// (a prompt's first; one token in a generated token's graph) in a token
// split, one expert in an expert split.
func (e *Evaluator) splitUnit(m model.Mode) float64 {
	units := 1
	if m == model.ExpertSplit {
		units = e.wl.Model.MoE.Experts
	} else if r := e.wl.Run; r.PromptTokens > 0 {
		units = min(r.Ubatch, r.PromptTokens)
	}
	return 1 / float64(max(units, 1))
}

// share is a share and its result.
type share struct {
	f float64
	r *Result
}

// nearShare is BestNear's search over eval (which remembers its runs, so
// a share asked for twice runs once); unit is the share of one whole unit
// of the split (splitUnit), below which a step changes nothing.
func nearShare(eval func(float64) (*Result, error), starts []float64, tol, unit float64) (float64, *Result, error) {
	// A bracket is never narrowed below one unit either side of its best:
	// shares within a unit of it run its plan or its neighbours'.
	tol = math.Max(tol, 2*unit)
	run := func(f float64) (share, error) {
		f = math.Min(1, math.Max(0, f))
		r, err := eval(f)
		return share{f, r}, err
	}
	zero, err := run(0)
	if err != nil {
		return 0, nil, err
	}
	var m share
	for i, f := range starts {
		x, err := run(f)
		if err != nil {
			return 0, nil, err
		}
		if i == 0 || x.r.TPS > m.r.TPS {
			m = x
		}
	}
	// a < m < b (or m at an end of [0, 1]), with m the fastest of the three.
	a, b := m, m
	h := tol / 2 // the first steps: a bracket m ± h is tol wide
	if b, err = run(m.f + h); err != nil {
		return 0, nil, err
	}
	dir := 1.0
	if !(b.r.TPS > m.r.TPS) {
		if a, err = run(m.f - h); err != nil {
			return 0, nil, err
		}
		dir = -1
		if !(a.r.TPS > m.r.TPS) {
			dir = 0
		}
	}
	if dir != 0 {
		// Climb along dir until a share runs no faster than the one
		// before, or an end of [0, 1] is reached still rising.
		prev, cur := m, b
		if dir < 0 {
			cur = a
		}
		for k, step := 0, h; ; k++ {
			if k >= 2 {
				step *= 2
			}
			if cur.f == 0 || cur.f == 1 {
				a, m, b = prev, cur, cur
				break
			}
			next, err := run(cur.f + dir*step)
			if err != nil {
				return 0, nil, err
			}
			if !(next.r.TPS > cur.r.TPS) {
				a, m, b = prev, cur, next
				break
			}
			prev, cur = cur, next
		}
		if dir < 0 {
			a, b = b, a
		}
	}
	const c = 0.3819660112501051 // 2 - the golden ratio
	// (tol's rounding aside: m ± h is a bracket of width tol.)
	for b.f-a.f > tol*(1+1e-9) {
		var x share
		if b.f-m.f >= m.f-a.f {
			x, err = run(m.f + c*(b.f-m.f))
		} else {
			x, err = run(m.f - c*(m.f-a.f))
		}
		if err != nil {
			return 0, nil, err
		}
		switch {
		case x.r.TPS > m.r.TPS && x.f > m.f:
			a, m = m, x
		case x.r.TPS > m.r.TPS:
			b, m = m, x
		case x.f > m.f:
			b = x
		default:
			a = x
		}
	}
	if zero.r.TPS >= m.r.TPS {
		// A tie: m's share cuts no whole unit for the second engine
		// (runner.cut), so it is the dispatcher alone.
		return 0, zero.r, nil
	}
	return m.f, m.r, nil
}

// bestShare maximises the t/s of eval over shares in [0, 1]: a grid of
// steps intervals finds the best bracket, golden-section search refines
// it to tol, and the grid point is kept when the split curve's kinks
// (where another op's partition turns critical) left golden section
// lower, or no higher.
func bestShare(eval func(float64) (*Result, error), steps int, tol float64) (float64, *Result, error) {
	bestI := 0
	var bestR *Result
	for i := 0; i <= steps; i++ {
		r, err := eval(float64(i) / float64(steps))
		if err != nil {
			return 0, nil, err
		}
		if bestR == nil || r.TPS > bestR.TPS {
			bestI, bestR = i, r
		}
	}
	a := math.Max(0, float64(bestI-1)/float64(steps))
	b := math.Min(1, float64(bestI+1)/float64(steps))
	phi := (math.Sqrt(5) - 1) / 2
	c, d := b-phi*(b-a), a+phi*(b-a)
	rc, err := eval(c)
	if err != nil {
		return 0, nil, err
	}
	rd, err := eval(d)
	if err != nil {
		return 0, nil, err
	}
	for b-a > tol {
		if rc.TPS >= rd.TPS {
			b, d, rd = d, c, rc
			c = b - phi*(b-a)
			if rc, err = eval(c); err != nil {
				return 0, nil, err
			}
		} else {
			a, c, rc = c, d, rd
			d = a + phi*(b-a)
			if rd, err = eval(d); err != nil {
				return 0, nil, err
			}
		}
	}
	f, r := c, rc
	if rd.TPS > r.TPS {
		f, r = d, rd
	}
	if bestR.TPS >= r.TPS {
		// On a tie (splits are cut at whole units, runner.cut, so
		// near shares can run the same plan) the grid's round share.
		f, r = float64(bestI)/float64(steps), bestR
	}
	return f, r, nil
}

// BalancePoint is where a two-engine split has both engines finish the
// split ops together: the second engine's share Frac; or, when there is
// none, None says why.
type BalancePoint struct {
	Frac float64 `json:"frac"`
	None string  `json:"none,omitempty"`
}

// ErrNoBalance is what Balance returns (wrapped, with the reason) when
// the engines never finish together.
var ErrNoBalance = errors.New("no balance point")

// Balance finds the second engine's share at which both engines of a
// two-engine split spend the same time in the split ops (they finish
// together), by bisection over [0.001, 0.999] to 1e-4, whichever engine
// is the faster. When the second engine takes longer even at the smallest
// share, or less even at the largest, there is none and None says so.
func (e *Evaluator) Balance(p model.Plan) (BalancePoint, error) {
	if !p.Mode.IsSplit() {
		return BalancePoint{}, fmt.Errorf("balance: a %s plan has no split ops to balance", p.Mode)
	}
	if len(p.Engines) != 2 {
		return BalancePoint{}, fmt.Errorf("balance: %d engines; a balance point is of two", len(p.Engines))
	}
	diff := func(f float64) (float64, error) {
		q := p
		q.Fracs = []float64{1 - f, f}
		r, err := e.Run(q)
		if err != nil {
			return 0, err
		}
		return r.Split.EngineS[0] - r.Split.EngineS[1], nil
	}
	// Bracket the share to one step of Best's grid (balanceGrid) by
	// bisection over the grid's shares, which a prediction's best-share
	// search has already run (remembered, so free): i is the first grid
	// share where the second engine takes as long or longer, or the last
	// one. The ends, 0.001 and 0.999, are run only when the balance lies
	// beyond the grid's first or last inner share (the time difference
	// falls with the share, as the bisection assumes).
	i, j := 1, balanceGrid-1
	for j > i {
		m := (i + j) / 2
		d, err := diff(float64(m) / balanceGrid)
		if err != nil {
			return BalancePoint{}, err
		}
		if d > 0 {
			i = m + 1
		} else {
			j = m
		}
	}
	lo, hi := float64(i-1)/balanceGrid, float64(i)/balanceGrid
	d, err := diff(hi)
	if err != nil {
		return BalancePoint{}, err
	}
	if d > 0 {
		lo, hi = hi, 0.999
		dhi, err := diff(hi)
		if err != nil {
			return BalancePoint{}, err
		}
		if dhi > 0 {
			return BalancePoint{None: fmt.Sprintf("%s takes longer over the split ops than %s even with a share of %g", p.Engines[0], p.Engines[1], 1-hi)}, nil
		}
	} else if i == 1 {
		lo = 1e-3
		dlo, err := diff(lo)
		if err != nil {
			return BalancePoint{}, err
		}
		if dlo < 0 {
			return BalancePoint{None: fmt.Sprintf("%s takes longer over the split ops than %s even with a share of %g", p.Engines[1], p.Engines[0], lo)}, nil
		}
	}
	for hi-lo > 1e-4 {
		mid := (lo + hi) / 2
		d, err := diff(mid)
		if err != nil {
			return BalancePoint{}, err
		}
		if d > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return BalancePoint{Frac: (lo + hi) / 2}, nil
}
