package predict

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// MaxDraws is the most parameter samples an interval may take.
const MaxDraws = 10000

// Request is what to predict.
type Request struct {
	SoC      *model.SoC
	Workload *model.Workload
	// Test is the run to predict (llama-bench's -p, -ub, -d); nil: the
	// workload's own.
	Test *model.Run
	// Engines of the split, main first; nil: the SoC's first two.
	Engines []string
	// Threads per engine, in the order of Engines; nil, or a 0 entry:
	// the engine's default (model.Engine.DefaultThreads).
	Threads []int
	// Modes to predict; nil: every split mode all the engines can take a
	// share of.
	Modes []model.Mode
	// Fracs is the requested split, one share per engine summing to 1;
	// nil: none requested, only the best is found.
	Fracs []float64
	// Poll is the pools' spin level, 0..100 (ggml's --poll).
	Poll int
	// Draws chooses the intervals' method: 0, first-order
	// (sim.FirstOrder); N > 0, Monte Carlo over N parameter draws.
	Draws int
	// Sweep asks, for two CPU engines, for the t/s at second-engine
	// shares from 0 to SweepMaxFrac (0: sim.MaxSecondFrac, 0.5, or 1 when
	// a best share or balance point lies beyond it) in SweepSteps
	// intervals (0: 20).
	Sweep        bool
	SweepSteps   int
	SweepMaxFrac float64
	// Sensitivity asks, with an accelerator among the engines, for the
	// gain as its throughput and submit latency vary.
	Sensitivity bool
	// Busy is how many cores of each engine (by name) run something else
	// at full load, for the pools of a thread sweep (ThreadsBeside). Run
	// refuses it: the split dispatcher's plans run on idle cores.
	Busy map[string]int
	// Traces asks for the timelines of ubatch 0 the timeline and roofline
	// figures draw (Prediction.Traces).
	Traces bool
	// Placement is the OS policy of a thread sweep's unpinned rows
	// (ThreadsRequest.Placement; "": linux).
	Placement model.Placement
	// Progress, when not nil, is called after each step of the
	// prediction with the steps done and their total (Steps), so a long
	// one (many ubatches) can show how far it is.
	Progress measure.Progress
}

func (r *resolved) steps() int {
	per := 2 + 2 // best and dispatcher alone, each with its interval
	if r.Fracs != nil {
		per += 2 // the requested split and its interval
	}
	if r.twoEngine() {
		per++ // balance
	}
	n := 1 + len(r.Modes)*per
	if r.Sweep {
		n++
	}
	if r.Sensitivity {
		n++
	}
	return n
}

// TwoEngine reports whether the request is of a split between two CPU
// engines, the split one share describes, with balance points and a
// sweep. It is false for a request that names engines the SoC lacks.
func (q Request) TwoEngine() bool {
	r, err := q.resolve()
	return err == nil && r.twoEngine()
}

// resolved is a checked request with its defaults filled in.
type resolved struct {
	Request
	engines  []*model.Engine
	defaults []bool // threads[i] was the engine's default
	accel    int    // index of the first accelerator, or -1
	// noToken: the modes were left to the request's engines, and the token
	// split was left out because the test has graphs of one token.
	noToken bool
}

func (q *Request) resolve() (*resolved, error) {
	if q.SoC == nil || q.Workload == nil {
		return nil, errors.New("predict: a request needs a SoC and a workload")
	}
	s := q.SoC
	r := &resolved{Request: *q, accel: -1}
	if q.Test != nil {
		t := q.Test
		if t.PromptTokens < 0 || t.GenTokens < 0 || t.PromptTokens+t.GenTokens < 1 || t.Ubatch < 1 || t.Depth < 0 {
			return nil, fieldErr("test", -1, "pp%d, tg%d at ubatch %d, depth %d: want a prompt or generated tokens, and a ubatch of at least 1",
				t.PromptTokens, t.GenTokens, t.Ubatch, t.Depth)
		}
		w := *q.Workload
		w.Run = *q.Test
		r.Workload = &w
	}
	if r.Engines == nil {
		if len(s.Engines) < 2 {
			return nil, fieldErr("engines", -1, "soc %s has one engine; a split needs two (a thread sweep, blsim predict --threads-sweep, runs on one)", s.Name)
		}
		r.Engines = []string{s.Engines[0].Name, s.Engines[1].Name}
	}
	r.Engines = append([]string(nil), r.Engines...)
	if len(r.Engines) < 2 {
		return nil, fieldErr("engines", -1, "%s is one engine; a split needs two or more", strings.Join(r.Engines, ","))
	}
	if len(r.Engines) > sim.MaxBestNEngines {
		return nil, fieldErr("engines", -1, "%d engines; at most %d", len(r.Engines), sim.MaxBestNEngines)
	}
	if r.Threads != nil && len(r.Threads) != len(r.Engines) {
		return nil, fieldErr("threads", -1, "%d values for %d engines: want %s (one thread count per engine, main first)", len(r.Threads), len(r.Engines), exampleList("4", len(r.Engines)))
	}
	threads := make([]int, len(r.Engines))
	r.defaults = make([]bool, len(r.Engines))
	seen := map[string]bool{}
	for i, n := range r.Engines {
		e, _, err := s.Engine(n)
		if err != nil {
			return nil, &FieldError{Field: "engines", Index: i, Err: err}
		}
		if seen[n] {
			return nil, fieldErr("engines", i, "engine %q listed twice", n)
		}
		seen[n] = true
		if i == 0 && e.IsAccelerator() {
			return nil, fieldErr("engines", i, "the first engine is the main one, which runs every op that is not split; %q is an accelerator (%s)", n, e.Kind)
		}
		if e.IsAccelerator() && r.accel < 0 {
			r.accel = i
		}
		r.engines = append(r.engines, e)
		if r.Threads != nil && r.Threads[i] != 0 {
			threads[i] = r.Threads[i]
		} else {
			threads[i], r.defaults[i] = e.DefaultThreads(), true
		}
		if threads[i] < 1 || threads[i] > e.Cores {
			return nil, fieldErr("threads", i, "%d threads for engine %q, but it has %d cores", threads[i], n, e.Cores)
		}
	}
	r.Threads = threads
	if err := r.resolveModes(); err != nil {
		return nil, err
	}
	if r.Fracs != nil {
		if len(r.Fracs) != len(r.Engines) {
			return nil, fieldErr("fracs", -1, "%d shares for %d engines", len(r.Fracs), len(r.Engines))
		}
		sum := 0.0
		for i, f := range r.Fracs {
			if !(f >= 0 && f <= 1) {
				return nil, fieldErr("fracs", i, "%s's share %g is outside [0,1]", r.Engines[i], f)
			}
			sum += f
		}
		if math.Abs(sum-1) > 1e-6 {
			return nil, fieldErr("fracs", -1, "the shares sum to %g, not 1", sum)
		}
		r.Fracs = append([]float64(nil), r.Fracs...)
	}
	if r.Poll < 0 || r.Poll > 100 {
		return nil, fieldErr("poll", -1, "%d is outside 0..100", r.Poll)
	}
	if r.Draws < 0 || r.Draws > MaxDraws {
		return nil, fieldErr("draws", -1, "%d is outside 0..%d (0: first-order intervals, N: Monte Carlo over N draws)", r.Draws, MaxDraws)
	}
	if n := r.Workload.Run.Ubatches(); n > model.MaxUbatches {
		return nil, fieldErr("run", -1, "%d ubatches, at most %d per prediction (its cost grows with them): a larger ubatch, or a shorter prompt",
			n, model.MaxUbatches)
	}
	if r.SweepSteps == 0 {
		r.SweepSteps = DefaultSweepSteps
	}
	if r.SweepMaxFrac == 0 {
		r.SweepMaxFrac = sim.MaxSecondFrac
	}
	if r.SweepSteps < 1 || r.SweepSteps > 1000 {
		return nil, fieldErr("sweep", -1, "%d steps is outside 1..1000", r.SweepSteps)
	}
	if !(r.SweepMaxFrac > 0 && r.SweepMaxFrac <= 1) {
		return nil, fieldErr("sweep", -1, "largest share %g is outside (0, 1]", r.SweepMaxFrac)
	}
	if r.Sweep && !r.twoEngine() {
		return nil, fieldErr("sweep", -1, "a sweep of one share needs two CPU engines, not %s", strings.Join(r.Engines, ", "))
	}
	if r.Sensitivity && r.accel < 0 {
		return nil, fieldErr("sensitivity", -1, "needs an accelerator among the engines (%s are CPU clusters)", strings.Join(r.Engines, ", "))
	}
	return r, nil
}

// resolveModes fills in the modes every engine can take a share of, or
// checks the ones asked for.
func (r *resolved) resolveModes() error {
	if r.Modes == nil {
		for _, m := range model.SplitModes() {
			if m == model.TokenSplit && r.oneToken() {
				r.noToken = r.canSplit(m) == "" // one token cannot be divided
				continue
			}
			if r.canSplit(m) == "" {
				r.Modes = append(r.Modes, m)
			}
		}
		if len(r.Modes) == 0 {
			return fieldErr("modes", -1, "no split mode that all of %s can take a share of", strings.Join(r.Engines, ", "))
		}
		return nil
	}
	r.Modes = append([]model.Mode(nil), r.Modes...)
	for _, m := range r.Modes {
		if !m.IsSplit() {
			return fieldErr("modes", -1, "%q is not a split mode (%s)", m, model.ModeList(model.SplitModes()))
		}
		if n := r.canSplit(m); n != "" {
			return fieldErr("modes", -1, "engine %q cannot take a share of the %s split", n, m)
		}
		if m == model.TokenSplit && r.oneToken() {
			return fieldErr("modes", -1, "%s has graphs of one token, which a token split cannot divide between engines; use an expert split", testName(r.Workload.Run))
		}
	}
	return nil
}

// canSplit is the first engine that cannot take a share of mode m, or "".
func (r *resolved) canSplit(m model.Mode) string {
	for _, e := range r.engines {
		if !e.CanSplit(m) {
			return e.Name
		}
	}
	return ""
}

// oneToken reports whether the test has a graph of one token, which a
// token split cannot divide: generated tokens, or a prompt at ubatch 1.
func (r *resolved) oneToken() bool {
	run := r.Workload.Run
	return run.GenTokens > 0 || run.Ubatch == 1 || run.PromptTokens == 1
}

func (r *resolved) twoEngine() bool { return len(r.Engines) == 2 && r.accel < 0 }

func (r *resolved) plan(mode model.Mode, fracs []float64) model.Plan {
	return model.Plan{Mode: mode, Engines: r.Engines, Fracs: fracs, Threads: r.Threads, Poll: r.Poll}
}

// Run predicts the request: native on the first engine; per mode the
// requested split, the best and the dispatcher alone, each with its gain,
// interval and verdict (sim.JudgePlan); the headline's plan (sim.Headline
// over every mode's best and dispatcher-alone plans); and what was asked
// for besides. One sim.Evaluator makes every simulation of it: the best
// shares over the whole simplex (Evaluator.Best), balance points for two
// CPU engines, and intervals that share native's perturbed SoCs (its runs
// at ±σ, or its Monte Carlo draws).
func Run(q Request) (*Prediction, error) {
	if len(q.Busy) > 0 {
		return nil, fieldErr("busy", -1, "busy cores are for a thread sweep's pools; the split dispatcher's plans run on idle cores")
	}
	if q.Placement != "" {
		return nil, fieldErr("placement", -1, "a placement policy is for a thread sweep's unpinned pools; the split dispatcher pins its threads")
	}
	r, err := q.resolve()
	if err != nil {
		return nil, err
	}
	s, wl := r.SoC, r.Workload
	ev := sim.NewEvaluator(s, wl, r.Draws)
	done, total := 0, r.steps()
	step := func() {
		done++
		if r.Progress != nil {
			r.Progress(done, total, "", nil)
		}
	}
	native := model.NewNative(r.Engines[0], r.Threads[0], r.Poll)
	nr, err := ev.Run(native)
	if err != nil {
		return nil, err
	}
	step()
	p := &Prediction{Schema: Schema, SoC: s.Name, Workload: wl.Name, Prompt: wl.Run.PromptTokens, Ubatch: wl.Run.Ubatch,
		Gen: wl.Run.GenTokens, Depth: wl.Run.Depth, Test: testName(wl.Run),
		Engines: r.Engines, Threads: r.Threads, Poll: r.Poll, Method: ev.Method(), Draws: ev.Variants(), Native: outcomeOf(nr),
		from: &origin{ev: ev, soc: s, wl: q.Workload, run: wl.Run, draws: r.Draws}}
	for _, e := range r.engines {
		p.Kinds = append(p.Kinds, e.Kind)
	}
	if p.Span, err = spanCheck(ev, s, wl, r.Draws, native); err != nil {
		return nil, err
	}
	add := func(k Kind, plan model.Plan, res *sim.Result) (PlanPrediction, error) {
		if res == nil {
			if res, err = ev.Run(plan); err != nil {
				return PlanPrediction{}, err
			}
		}
		step()
		iv, err := ev.Interval(native, plan)
		if err != nil {
			return PlanPrediction{}, err
		}
		step()
		g := sim.GainPct(res.TPS, nr.TPS)
		pp := PlanPrediction{Kind: k, Plan: plan, Outcome: outcomeOf(res), GainPct: g, Interval: iv, Verdict: sim.JudgePlan(plan, g, iv)}
		p.Plans = append(p.Plans, pp)
		return pp, nil
	}
	for _, mode := range r.Modes {
		if r.Fracs != nil {
			req, err := add(Requested, r.plan(mode, r.Fracs), nil)
			if err != nil {
				return nil, err
			}
			if mode == r.Modes[0] && r.twoEngine() && len(req.EngineS) == 2 && req.EngineS[1] > 0 && req.EngineS[0] > 0 {
				p.MarginalRatio = (r.Fracs[1] / req.EngineS[1]) / (r.Fracs[0] / req.EngineS[0])
			}
		}
		var also [][]float64
		if r.Fracs != nil {
			also = append(also, r.Fracs)
		}
		bp, br, err := ev.Best(r.plan(mode, nil), also...)
		if err != nil {
			return nil, err
		}
		if _, err := add(Best, bp, br); err != nil { // the search counts as its run's step
			return nil, err
		}
		only := make([]float64, len(r.Engines))
		only[0] = 1
		if _, err := add(DispatcherOnly, r.plan(mode, only), nil); err != nil {
			return nil, err
		}
		if r.twoEngine() {
			b, err := ev.Balance(r.plan(mode, nil))
			if err != nil {
				return nil, err
			}
			p.Balances = append(p.Balances, Balance{Mode: mode, Frac: b.Frac, None: b.None})
			step()
		}
	}
	p.Best = p.headline()
	if only, ok := p.Plan(p.Best.Plan.Mode, DispatcherOnly); ok {
		p.Why = Why{DispatcherOnlyGainPct: only.GainPct, WorkGainPct: p.Best.GainPct - only.GainPct}
	}
	if r.Sweep {
		if q.SweepMaxFrac == 0 && r.beyond(p) {
			r.SweepMaxFrac = 1 // the curve reaches the best share and the balance points
		}
		if p.Sweep, err = sweep(ev, r, nr); err != nil {
			return nil, err
		}
		step()
	}
	if r.Sensitivity {
		at, _ := p.Plan(p.Best.Plan.Mode, Best)
		g, err := ev.Sensitivity(at.Plan, r.Engines[r.accel], nil, nil)
		if err != nil {
			return nil, err
		}
		p.Sensitivity = g
		p.BoundaryBest, p.BoundaryFixed = g.WinBoundary(true), g.WinBoundary(false)
		step()
	}
	if q.Traces {
		if p.Traces, err = traces(ev, p, native); err != nil {
			return nil, err
		}
	}
	p.Warnings = warnings(r)
	return p, nil
}

// headline is the plan the headline judges: among every mode's best and
// dispatcher-alone plans, sim.Headline's pick.
func (p *Prediction) headline() PlanPrediction {
	var cands []PlanPrediction
	var judged []sim.Judged
	for _, pp := range p.Plans {
		if pp.Kind == Best || pp.Kind == DispatcherOnly {
			cands = append(cands, pp)
			judged = append(judged, sim.Judged{Plan: pp.Plan, GainPct: pp.GainPct, Interval: pp.Interval, Verdict: pp.Verdict})
		}
	}
	if i := sim.Headline(judged); i >= 0 {
		return cands[i]
	}
	return PlanPrediction{}
}

// beyond reports whether a best share or balance point of p lies beyond
// the sweep's default end (sim.MaxSecondFrac).
func (r *resolved) beyond(p *Prediction) bool {
	for _, pp := range p.Plans {
		if pp.Frac() > r.SweepMaxFrac {
			return true
		}
	}
	for _, b := range p.Balances {
		if b.None == "" && b.Frac > r.SweepMaxFrac {
			return true
		}
	}
	return false
}

// DefaultSweepSteps is the intervals of a sweep unless told.
const DefaultSweepSteps = 20

func sweep(ev *sim.Evaluator, r *resolved, nr *sim.Result) ([]SweepPoint, error) {
	var plans []model.Plan
	n, to := r.SweepSteps, r.SweepMaxFrac
	for _, mode := range r.Modes {
		for i := 0; i <= n; i++ {
			f := to * float64(i) / float64(n)
			plans = append(plans, r.plan(mode, []float64{1 - f, f}))
		}
	}
	res, err := ev.Sweep(plans)
	if err != nil {
		return nil, err
	}
	out := make([]SweepPoint, len(res))
	for i, x := range res {
		out[i] = SweepPoint{Mode: plans[i].Mode, Frac: math.Round(plans[i].Fracs[1]*1e4) / 1e4, TPS: x.TPS, GainPct: sim.GainPct(x.TPS, nr.TPS)}
	}
	return out, nil
}

// testName names a run as llama-bench does: pp512, tg128, pp512+tg128,
// with "@ d4096" for a depth.
func testName(r model.Run) string {
	var s string
	switch {
	case r.GenTokens == 0:
		s = fmt.Sprintf("pp%d", r.PromptTokens)
	case r.PromptTokens == 0:
		s = fmt.Sprintf("tg%d", r.GenTokens)
	default:
		s = fmt.Sprintf("pp%d+tg%d", r.PromptTokens, r.GenTokens)
	}
	if r.Depth > 0 {
		s += fmt.Sprintf(" @ d%d", r.Depth)
	}
	return s
}
