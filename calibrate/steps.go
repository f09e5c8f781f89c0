package calibrate

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/calibrate/measure"
	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/internal/shuffle"
	"github.com/blsim/blsim/model"
)

// Step is one measurement to take.
type Step struct {
	ID    string
	Label string
	run   func() (measure.Measurement, error)
}

// Settings say what to measure; the zero value of each field is a default.
type Settings struct {
	// Engines to calibrate, the first the main (big) one; at least two.
	Engines []Engine
	// Quick shortens every budget and the dispatcher grid (under a
	// minute in all on two cores).
	Quick bool
	// Grid is "fit" (the default), "heldout" (a different set of plans,
	// for measuring held-out error with blsim validate), or "fit+heldout"
	// (both, in the same rounds; each measurement's knob "set" says which).
	Grid string
	// Shuffle runs each round's plans in an order of its own (drawn from
	// the round's number, the same on every run).
	Shuffle bool
	// NoMicro skips the microbenchmarks (they only set the fit's priors).
	NoMicro bool
	// Workload is the dispatcher's workload; nil means the synthetic MoE
	// sized to twice the last-level cache.
	Workload *model.Workload
	// Repeats of each dispatcher run; 0 means 2.
	Repeats int
	// Rounds runs the whole dispatcher grid this many times, one plan
	// after another, so that a slow spell of a shared machine hits one run
	// of several plans instead of every run of one (the fit merges the
	// rounds); 0 means 5 (1 when Quick).
	Rounds int
	// Host is recorded in every measurement.
	Host *measure.Host
	// MicroBudget, when set, replaces each microbenchmark's time budget
	// (tests use a few milliseconds).
	MicroBudget time.Duration
}

func (s *Settings) probeSettings() *probe.Settings {
	ps := &probe.Settings{MinRuns: 5, MaxRuns: 100, Budget: 2 * time.Second, MaxWorkingSetBytes: 1 << 30}
	if s.Quick {
		ps = &probe.Settings{MinRuns: 3, MaxRuns: 20, Budget: 300 * time.Millisecond, MaxWorkingSetBytes: 512 << 20}
	}
	if s.MicroBudget > 0 {
		ps.Budget, ps.MinRuns, ps.MaxWorkingSetBytes = s.MicroBudget, 2, 64<<20
	}
	return ps
}

func stamp(m *measure.Measurement, host *measure.Host) {
	m.Schema = measure.Schema
	m.Host = host
	m.Time = time.Now().UTC().Format(time.RFC3339)
	if m.Status == "" {
		m.Status = "ok"
	}
}

func fromStats(id, kind, param, engine, unit string, st probe.Stats, scale float64) measure.Measurement {
	m := measure.Measurement{ID: id, Kind: kind, Param: param, Engine: engine, Unit: unit}
	for _, v := range st.Samples {
		m.Samples = append(m.Samples, v*scale)
	}
	m.Median = st.Median * scale
	m.CV = st.CV
	return m
}

// MicroSteps lists the microbenchmarks: per engine its streaming bandwidth
// with all its threads and its kernel rates on one thread; all engines
// streaming at once; futex wake across engines (at once and after 10 ms
// idle), spin handoff, the spin time of one poll unit, and the barrier.
func MicroSteps(s *Settings) []Step {
	ps := s.probeSettings()
	ws := probe.DefaultWorkingSet(ps.MaxWorkingSetBytes)
	var steps []Step
	tag := func(cpus []int) string { return topology.FormatCPUList(cpus) }
	for _, en := range s.Engines {
		c := en.Cluster
		p := "engines." + c.Name + "."
		ghz := en.ClockGHz
		steps = append(steps,
			Step{ID: "stream/" + c.Name + "/" + tag(c.CPUs), Label: "stream read, " + c.Name, run: func() (measure.Measurement, error) {
				st, err := probe.StreamRead(c.CPUs, len(c.CPUs), ws, ps)
				return fromStats("stream/"+c.Name+"/"+tag(c.CPUs), measure.Stream, p+"bandwidth_max_gb_s", c.Name, "GB/s", st, 1), err
			}},
		)
		if len(c.CPUs) > 1 {
			// What one thread pulls, for plans that run fewer threads than
			// the cluster has cores.
			steps = append(steps, Step{ID: "stream1/" + c.Name + "/" + tag(c.CPUs[:1]), Label: "stream read, " + c.Name + ", 1 thread", run: func() (measure.Measurement, error) {
				st, err := probe.StreamRead(c.CPUs[:1], 1, ws, ps)
				return fromStats("stream1/"+c.Name+"/"+tag(c.CPUs[:1]), measure.Stream, p+"bandwidth_per_thread_gb_s", c.Name, "GB/s", st, 1), err
			}})
		}
		steps = append(steps,
			Step{ID: "kernel/q4/" + c.Name + "/" + tag(c.CPUs[:1]), Label: "q4 kernel, " + c.Name, run: func() (measure.Measurement, error) {
				st, err := probe.KernelThroughput(c.CPUs[:1], 1, probe.KernelQ4Q8, ps)
				return fromStats("kernel/q4/"+c.Name+"/"+tag(c.CPUs[:1]), measure.Kernel, p+"kernel_ops_per_cycle.q4", c.Name, "ops/cycle", st, 1/ghz), err
			}},
			Step{ID: "kernel/f32/" + c.Name + "/" + tag(c.CPUs[:1]), Label: "f32 kernel, " + c.Name, run: func() (measure.Measurement, error) {
				st, err := probe.KernelThroughput(c.CPUs[:1], 1, probe.KernelF32, ps)
				return fromStats("kernel/f32/"+c.Name+"/"+tag(c.CPUs[:1]), measure.Kernel, p+"kernel_ops_per_cycle.f32", c.Name, "ops/cycle", st, 1/ghz), err
			}},
		)
	}
	a := s.Engines[0].Cluster
	if len(s.Engines) == 1 {
		// One cluster (a host llama.cpp runs as one pool): the handoffs are
		// between its own CPUs, and its stream is all the DRAM there is.
		if len(a.CPUs) < 2 {
			return steps
		}
		b := a
		b.CPUs = a.CPUs[1:]
		return append(steps, handoffSteps(a.CPUs[0], b.CPUs[0], tag(a.CPUs), ps, "CPUs")...)
	}
	b := s.Engines[1].Cluster
	pair := tag(a.CPUs) + "+" + tag(b.CPUs)
	steps = append(steps,
		Step{ID: "stream_contended/" + pair, Label: "stream read, all engines at once", run: func() (measure.Measurement, error) {
			c, err := probe.StreamReadContended(a.CPUs, b.CPUs, ws, ps)
			m := fromStats("stream_contended/"+pair, measure.StreamContended, "dram.sustained_gb_s", "", "GB/s", c.A, 1)
			m.Samples = nil
			m.Median = c.A.Median + c.B.Median
			m.CV = math.Max(c.A.CV, c.B.CV)
			return m, err
		}})
	return append(steps, handoffSteps(a.CPUs[0], b.CPUs[0], pair, ps, "engines")...)
}

// handoffSteps measure the wake, spin and barrier costs between CPUs from
// and to (of two engines, or of one); pair tags the barrier's ID.
func handoffSteps(from, to int, pair string, ps *probe.Settings, across string) []Step {
	return []Step{
		{ID: fmt.Sprintf("futex_wake/%d-%d", from, to), Label: "futex wake across " + across, run: func() (measure.Measurement, error) {
			st, err := probe.FutexWake(from, to, 0, ps)
			return fromStats(fmt.Sprintf("futex_wake/%d-%d", from, to), measure.FutexWake, "handoff.futex_wake_us", "", "us", st, 1), err
		}},
		{ID: fmt.Sprintf("futex_wake_idle/%d-%d", from, to), Label: "futex wake after 10 ms idle", run: func() (measure.Measurement, error) {
			idle, err := probe.FutexWake(from, to, 10*time.Millisecond, ps)
			if err != nil {
				return measure.Measurement{}, err
			}
			now, err := probe.FutexWake(from, to, 0, ps)
			m := fromStats(fmt.Sprintf("futex_wake_idle/%d-%d", from, to), measure.FutexWake, "handoff.sleep_exit_us", "", "us", idle, 1)
			m.Samples = nil
			m.Median = math.Max(0.1, idle.Median-now.Median) // what sleeping longer adds
			m.Knobs = map[string]string{"idle_ms": "10", "wake_idle_us": fmt.Sprintf("%.2f", idle.Median), "wake_now_us": fmt.Sprintf("%.2f", now.Median)}
			return m, err
		}},
		{ID: fmt.Sprintf("spin_wake/%d-%d", from, to), Label: "spin handoff", run: func() (measure.Measurement, error) {
			st, err := probe.SpinHandoff(from, to, ps)
			return fromStats(fmt.Sprintf("spin_wake/%d-%d", from, to), measure.SpinWake, "handoff.spin_wake_us", "", "us", st, 1), err
		}},
		{ID: fmt.Sprintf("spin_unit/%d", to), Label: "spin window per poll unit", run: func() (measure.Measurement, error) {
			st, err := probe.SpinUnit(to, ps)
			return fromStats(fmt.Sprintf("spin_unit/%d", to), measure.SpinWake, "handoff.spin_window_us_per_poll", "", "us", st, 1), err
		}},
		{ID: "barrier/" + pair, Label: "barrier across " + across, run: func() (measure.Measurement, error) {
			st, err := probe.Barrier([]int{from, to}, ps)
			return fromStats("barrier/"+pair, measure.Barrier, "handoff.join_us", "", "us", st, 1), err
		}},
	}
}

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
}

// String is the plan, and the shape when it is not the workload's own.
func (p Point) String() string {
	if p.Run == nil {
		return p.Plan.String()
	}
	return fmt.Sprintf("%s pp%d ub=%d", p.Plan, p.Run.PromptTokens, p.Run.Ubatch)
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

// Points is the dispatcher grid. "fit" covers native, token and expert
// splits at both poll levels on the workload's own prompt, and fewer plans
// on the decode-like and prefill-like shapes (Shapes); "heldout" uses other
// fractions on each; "fit+heldout" is the one then the other.
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
	return out, nil
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
				out = append(out, Point{Plan: model.NewSplit(mode, big.Name, little.Name, tb, tl, f, poll), Run: run, Set: grid,
					NoWarmup: run != nil && run == high})
			}
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
	case grid == FitGrid:
		add(nil, model.Native, nil, 0, 50)
		add(nil, model.TokenSplit, []float64{0.1, 0.3, 0.5, 0.7}, 0, 50)
		add(nil, model.ExpertSplit, []float64{0.25, 0.5}, 0, 50)
		// Native only: a split of a gemv-like prompt hands off for each
		// of its many small ops, and what that costs is not what this
		// shape is for (the model misses such runs by 15-45% on a 2-vCPU
		// VM).
		shaped(gemv, func(r *model.Run) { add(r, model.Native, nil, 0, 50) })
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
	default:
		add(nil, model.TokenSplit, []float64{0.15, 0.4, 0.6, 0.9}, 0, 50)
		add(nil, model.ExpertSplit, []float64{0.1, 0.4}, 0, 50)
		shaped(low, func(r *model.Run) {
			add(r, model.TokenSplit, []float64{0.4}, 50)
			add(r, model.ExpertSplit, []float64{0.25}, 0)
		})
		shaped(high, func(r *model.Run) { add(r, model.TokenSplit, []float64{0.4}, 0) })
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
	return out
}

// DispatcherSteps times the built-in dispatcher over the grid, on weights
// allocated once (lazily, at the first step that runs).
func DispatcherSteps(s *Settings, workloadYAML string) ([]Step, error) {
	plans, err := Points(s)
	if err != nil {
		return nil, err
	}
	cpus := map[string][]int{}
	for _, en := range s.Engines {
		cpus[en.Cluster.Name] = en.Cluster.CPUs
	}
	repeats := s.Repeats
	if repeats == 0 {
		repeats = 2
	}
	rounds := s.Rounds
	if rounds == 0 {
		rounds = 5
		if s.Quick {
			rounds = 1
		}
	}
	var m *dispatch.Model
	var steps []Step
	for round := 1; round <= rounds; round++ {
		these := append([]Point(nil), plans...)
		if s.Shuffle {
			shuffle.Round(these, round)
		}
		for _, sp := range these {
			steps = append(steps, dispatcherStep(s, sp, round, rounds, repeats, cpus, workloadYAML, &m))
		}
	}
	return steps, nil
}

func dispatcherStep(s *Settings, sp Point, round, rounds, repeats int, cpus map[string][]int, workloadYAML string, mp **dispatch.Model) Step {
	pl := sp.Plan
	var where []string
	for _, en := range s.Engines {
		where = append(where, en.Cluster.Name+"="+topology.FormatCPUList(en.Cluster.CPUs))
	}
	id := fmt.Sprintf("dispatcher/%s/%s/%s/round=%d", s.Workload.Name, sp, strings.Join(where, ","), round)
	label := "dispatcher " + sp.String()
	if rounds > 1 {
		label += fmt.Sprintf(" (round %d/%d)", round, rounds)
	}
	return Step{ID: id, Label: label, run: func() (measure.Measurement, error) {
		m := *mp
		if m == nil {
			var err error
			if m, err = dispatch.NewModel(s.Workload, 1); err != nil {
				return measure.Measurement{}, err
			}
			*mp = m
		}
		// A plan may use fewer threads than its engine has CPUs: the first ones.
		use := map[string][]int{}
		for i, name := range pl.Engines {
			use[name] = cpus[name][:min(pl.Threads[i], len(cpus[name]))]
		}
		warmup := 1
		if sp.NoWarmup {
			warmup = 0
		}
		r, err := m.Run(dispatch.Config{Plan: pl, CPUs: use, Repeats: repeats, Warmup: warmup, Seed: 1, Run: sp.Run})
		out := measure.Measurement{ID: id, Kind: measure.Dispatcher, Workload: s.Workload.Name,
			WorkloadYAML: workloadYAML, Plan: fit.PlanOf(pl), Unit: "t/s", Samples: r.TPS,
			Knobs: map[string]string{"repeats": fmt.Sprint(repeats), "round": fmt.Sprint(round), "weight_bytes": fmt.Sprint(r.WeightBytes), "set": sp.Set}}
		if sp.Run != nil {
			out.Run = &measure.Run{PromptTokens: sp.Run.PromptTokens, Ubatch: sp.Run.Ubatch, Depth: sp.Run.Depth}
		}
		out.Summarize()
		return out, err
	}}
}

// Progress reports a finished step: its index (from 1), the total, and the
// measurement (Status failed when it did not finish).
type Progress func(done, total int, st Step, m *measure.Measurement)

// Measure runs the steps not already in done, appending each measurement
// to w as soon as it finishes. A failed step is recorded with its error and
// the rest go on; a cancelled ctx stops before the next step. It returns
// the measurements it took.
func Measure(ctx context.Context, steps []Step, done map[string]bool, w *measure.Writer, host *measure.Host, progress Progress) ([]measure.Measurement, error) {
	var out []measure.Measurement
	for i, st := range steps {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if done[st.ID] {
			if progress != nil {
				progress(i+1, len(steps), st, nil)
			}
			continue
		}
		m, err := st.run()
		if m.ID == "" {
			m.ID = st.ID
		}
		if err != nil {
			m.Status, m.Error = "failed", err.Error()
			m.Median, m.CV, m.Samples = 0, 0, nil
		}
		if m.Kind == "" {
			m.Kind = "unknown"
		}
		if math.IsNaN(m.CV) || math.IsInf(m.CV, 0) {
			m.CV = 0
		}
		stamp(&m, host)
		if werr := w.Write(m); werr != nil {
			return out, werr
		}
		out = append(out, m)
		if progress != nil {
			progress(i+1, len(steps), st, &m)
		}
		if err == probe.ErrNeedLinux {
			return out, err
		}
	}
	return out, nil
}
