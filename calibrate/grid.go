package calibrate

import (
	"fmt"
	"strings"

	"github.com/blsim/blsim/model"
)

// The grids of Settings.Grid, and the values of a dispatcher measurement's
// "set" knob.
const (
	FitGrid     = "fit"
	HeldOutGrid = "heldout"
	BothGrids   = "fit+heldout"
)

// Point is one configuration of the dispatcher grid: a plan, the prompt
// shape it runs (nil: the workload's own) and the grid it belongs to (the
// value of its measurement's "set" knob).
type Point struct {
	Plan model.Plan
	Run  *model.Run
	Set  string
	// NoWarmup: the point's prompt is long (the prefill-like shape, a
	// second or more) and its weights are in DRAM anyway, so the untimed
	// run before the timed ones would only cost time.
	NoWarmup bool
	// Alone: a native run on an engine other than the first, which the
	// point's name then says.
	Alone bool
	// Stream: the point runs StreamWorkload, the workload with its
	// expert weights in f32, not the workload itself.
	Stream bool
}

// String is the plan, and the shape when it is not the workload's own. A
// native run on an engine other than the first names its engine.
func (p Point) String() string {
	s := p.Plan.String()
	if p.Plan.Mode == model.Native && p.Alone {
		s = fmt.Sprintf("native %s%s", p.Plan.Engines[0], strings.TrimPrefix(s, string(model.Native)))
	}
	if p.Run != nil {
		s = fmt.Sprintf("%s pp%d ub=%d", s, p.Run.PromptTokens, p.Run.Ubatch)
	}
	if p.Stream {
		s += " f32 weights"
	}
	return s
}

// Shapes are the prompt shapes the dispatcher grid runs besides the
// workload's own, chosen by the tokens each routed expert gets per ubatch
// (ubatch × top-k / experts), which sets the arithmetic intensity of the
// expert ops: about 1/16 of a token (decode-like: each touched expert is
// walked for one token, a gemv, as in token generation), a quarter of a
// token (most touched experts still see one), and 16 tokens (prefill-like,
// compute-bound). The first two prompts are long enough to stream the
// expert weights several times. All are nil for a workload without
// experts.
func Shapes(w *model.Workload) (gemv, low, high *model.Run) {
	if w == nil || w.Model.MoE.Experts == 0 || w.Model.MoE.TopK == 0 {
		return nil, nil, nil
	}
	e, k := w.Model.MoE.Experts, w.Model.MoE.TopK
	ubGemv := max(1, e/(16*k))
	ubLow := max(ubGemv+1, e/(4*k))
	ubHigh := max(ubLow+1, 16*e/k)
	return &model.Run{PromptTokens: 32 * ubGemv, Ubatch: ubGemv},
		&model.Run{PromptTokens: 16 * ubLow, Ubatch: ubLow},
		&model.Run{PromptTokens: ubHigh, Ubatch: ubHigh}
}

// TokenShape is the prompt of one-token ubatches the dispatcher grid runs
// natively: each ubatch a graph of one token, as a generated token's, so
// the fit sees the one-token overlap (model.Engine.GemvOverlap). 64 tokens
// keep a run long enough to time. Nil for a workload without experts, as
// Shapes, and where Shapes' decode-like ubatch is already one token.
func TokenShape(w *model.Workload) *model.Run {
	if gemv, _, _ := Shapes(w); gemv == nil || gemv.Ubatch == 1 {
		return nil
	}
	return &model.Run{PromptTokens: 64, Ubatch: 1}
}

// Points is the dispatcher grid. "fit" covers native, token and expert
// splits at both poll levels on the workload's own prompt, fewer plans on
// the decode-like and prefill-like shapes (Shapes), among them splits of
// the decode-like shape with both engines streaming at once, and the
// second engine alone on every shape; "heldout" uses other fractions and
// polls on each; "fit+heldout" is the one then the other.
func Points(s *Settings) ([]Point, error) {
	grid := s.Grid
	if grid == "" {
		grid = FitGrid
	}
	grids := []string{grid}
	if grid == BothGrids {
		grids = []string{FitGrid, HeldOutGrid}
	}
	var out []Point
	for _, g := range grids {
		ps, err := grid1(s, g)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	return Distinct(out), nil
}

// Distinct drops the points that run what an earlier point runs: the same
// plan on the same shape, where knobs that cannot change a run are not
// compared. A pool of one thread never waits at a barrier, so its poll
// level changes nothing: a native plan of one thread at poll 0 and at poll
// 50 is one run. The first of them is kept.
func Distinct(ps []Point) []Point {
	seen := map[string]bool{}
	var out []Point
	for _, p := range ps {
		pl := p.Plan
		poll := pl.Poll
		if pl.Mode == model.Native && len(pl.Threads) == 1 && pl.Threads[0] == 1 {
			poll = -1
		}
		k := fmt.Sprintf("%s|%v|%v|%v|%d|%v|%v", pl.Mode, pl.Engines, pl.Fracs, pl.Threads, poll, p.Alone, p.Stream)
		if p.Run != nil {
			k += fmt.Sprintf("|%d/%d/%d", p.Run.PromptTokens, p.Run.Ubatch, p.Run.Depth)
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, p)
	}
	return out
}

// grid1 is the points of one grid, fit or heldout.
func grid1(s *Settings, grid string) ([]Point, error) {
	if grid != FitGrid && grid != HeldOutGrid {
		return nil, fmt.Errorf("grid %q is not fit, heldout or fit+heldout", s.Grid)
	}
	if len(s.Engines) == 1 {
		return nativeGrid(s, grid), nil
	}
	big, little := s.Engines[0].Cluster, s.Engines[1].Cluster
	tb, tl := len(big.CPUs), len(little.CPUs)
	gemv, low, high := Shapes(s.Workload)
	var out []Point
	add := func(run *model.Run, mode model.Mode, fracs []float64, polls ...int) {
		for _, poll := range polls {
			if mode == model.Native {
				out = append(out, Point{Plan: model.NewNative(big.Name, tb, poll), Run: run, Set: grid, NoWarmup: run != nil && run == high})
				continue
			}
			for _, f := range fracs {
				out = append(out, Point{Plan: model.NewPlan(mode, []string{big.Name, little.Name}, []int{tb, tl}, model.SharesOf(f), poll), Run: run, Set: grid,
					NoWarmup: run != nil && run == high})
			}
		}
	}
	// alone runs the second engine by itself, as a pool pinned to its
	// cores: its own regime, decode-like to prefill-like, without the
	// first engine's time in the same run.
	alone := func(run *model.Run, polls ...int) {
		for _, poll := range polls {
			out = append(out, Point{Plan: model.NewNative(little.Name, tl, poll), Run: run, Set: grid, NoWarmup: run != nil && run == high, Alone: true})
		}
	}
	shaped := func(run *model.Run, f func(run *model.Run)) {
		if run != nil {
			f(run)
		}
	}
	switch {
	case grid == FitGrid && s.Quick:
		add(nil, model.Native, nil, 50)
		add(nil, model.TokenSplit, []float64{0.2, 0.5}, 50)
		add(nil, model.ExpertSplit, []float64{0.5}, 0)
		shaped(gemv, func(r *model.Run) { add(r, model.Native, nil, 0) })
		shaped(low, func(r *model.Run) {
			add(r, model.Native, nil, 50)
			add(r, model.TokenSplit, []float64{0.5}, 0)
		})
		shaped(high, func(r *model.Run) { add(r, model.Native, nil, 50) })
		// Graphs of one token, which the held-out grid runs too.
		shaped(TokenShape(s.Workload), func(r *model.Run) { add(r, model.Native, nil, 50) })
	case grid == FitGrid:
		add(nil, model.Native, nil, 0, 50)
		add(nil, model.TokenSplit, []float64{0.1, 0.5}, 0)
		add(nil, model.TokenSplit, []float64{0.3, 0.7}, 50)
		add(nil, model.ExpertSplit, []float64{0.25, 0.5}, 0, 50)
		// The decode-like shape, where the board's verdict is decided:
		// each engine alone, and both streaming their tokens' experts at
		// once (which is what tells sustained DRAM from the engines'
		// caps).
		shaped(gemv, func(r *model.Run) {
			add(r, model.Native, nil, 0, 50)
			if r.Ubatch > 1 { // a token cannot be split
				add(r, model.TokenSplit, []float64{0.5}, 50)
				add(r, model.TokenSplit, []float64{0.3}, 0)
			}
		})
		shaped(low, func(r *model.Run) {
			add(r, model.Native, nil, 0, 50)
			add(r, model.TokenSplit, []float64{0.3}, 0)
			add(r, model.TokenSplit, []float64{0.5}, 50)
			add(r, model.ExpertSplit, []float64{0.5}, 0)
		})
		shaped(high, func(r *model.Run) {
			add(r, model.Native, nil, 50)
			add(r, model.TokenSplit, []float64{0.5}, 0)
			add(r, model.ExpertSplit, []float64{0.5}, 50)
		})
		// The second engine alone over the regimes, and both engines
		// streaming decode-like experts at once (an expert split hands
		// off once per MoE op, not per small op as a token split does).
		alone(nil, 50)
		shaped(gemv, func(r *model.Run) {
			alone(r, 0, 50)
			add(r, model.ExpertSplit, []float64{0.5}, 50)
		})
		shaped(low, func(r *model.Run) { alone(r, 50) })
		shaped(high, func(r *model.Run) { alone(r, 50) })
		// Graphs of one token, as decode runs them.
		shaped(TokenShape(s.Workload), func(r *model.Run) { add(r, model.Native, nil, 50) })
		// Each engine alone streaming f32 experts at the decode-like
		// shape: the engine's cap, measured apart from the overlap.
		if gemv != nil && StreamWorkload(s.Workload, StreamMaxBytes) != nil {
			out = append(out, Point{Plan: model.NewNative(big.Name, tb, 50), Run: gemv, Set: grid, Stream: true},
				Point{Plan: model.NewNative(little.Name, tl, 50), Run: gemv, Set: grid, Alone: true, Stream: true})
		}
	default:
		add(nil, model.TokenSplit, []float64{0.15, 0.6}, 0)
		add(nil, model.TokenSplit, []float64{0.4, 0.9}, 50)
		add(nil, model.ExpertSplit, []float64{0.1}, 0)
		add(nil, model.ExpertSplit, []float64{0.4}, 50)
		alone(nil, 0)
		shaped(gemv, func(r *model.Run) {
			if r.Ubatch > 1 {
				add(r, model.TokenSplit, []float64{0.4}, 0)
			}
			add(r, model.ExpertSplit, []float64{0.25}, 50)
		})
		shaped(low, func(r *model.Run) {
			add(r, model.TokenSplit, []float64{0.4}, 50)
			add(r, model.ExpertSplit, []float64{0.25}, 0)
			alone(r, 0)
		})
		shaped(high, func(r *model.Run) { add(r, model.TokenSplit, []float64{0.4}, 0) })
		shaped(TokenShape(s.Workload), func(r *model.Run) { alone(r, 50) })
	}
	return out, nil
}

// nativeGrid is the grid of a one-cluster host: native runs (the plans
// stock llama.cpp has) over thread counts and poll levels, on the
// workload's own prompt and its decode-like and prefill-like shapes; the
// held-out grid takes the thread counts between, and poll 25.
func nativeGrid(s *Settings, grid string) []Point {
	c := s.Engines[0].Cluster
	n := len(c.CPUs)
	threads := []int{n}
	if n > 1 {
		threads = []int{1, n}
	}
	gemv, low, high := Shapes(s.Workload)
	var out []Point
	add := func(run *model.Run, poll int, ts ...int) {
		for _, t := range ts {
			out = append(out, Point{Plan: model.NewNative(c.Name, t, poll), Run: run, Set: grid, NoWarmup: run != nil && run == high})
		}
	}
	switch {
	case grid == FitGrid && s.Quick:
		add(nil, 50, threads...)
		add(nil, 0, n)
	case grid == FitGrid:
		add(nil, 0, threads...)
		add(nil, 50, threads...)
	default:
		for t := 2; t < n; t++ {
			add(nil, 50, t)
		}
		add(nil, 25, n)
	}
	for _, r := range []*model.Run{gemv, low, high} {
		if r == nil {
			continue
		}
		switch grid {
		case FitGrid:
			add(r, 50, threads...)
		default:
			add(r, 25, n)
		}
	}
	if r := TokenShape(s.Workload); r != nil {
		if grid == FitGrid {
			add(r, 50, n)
		} else {
			add(r, 25, n)
		}
	}
	if grid == FitGrid && !s.Quick && gemv != nil && StreamWorkload(s.Workload, StreamMaxBytes) != nil {
		for _, t := range threads {
			out = append(out, Point{Plan: model.NewNative(c.Name, t, 50), Run: gemv, Set: grid, Stream: true})
		}
	}
	return out
}
