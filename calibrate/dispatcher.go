package calibrate

import (
	"fmt"
	"strings"
	"time"

	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/internal/shuffle"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// DispatcherSteps times the built-in dispatcher over the grid, on weights
// built at the first step that runs them, of one workload at a time: each
// round runs its f32 points (Point.Stream) together (groupStream), on f32
// weights built in place of the workload's own and dropped after
// (resident). Each run takes
// Settings.Repeats timed repeats, and more while its repeats' spread leaves
// its mean unsure (Repeats).
func DispatcherSteps(s *Settings, workloadYAML string) ([]Step, error) {
	steps, _, err := dispatcherSteps(s, workloadYAML)
	return steps, err
}

// dispatcherSteps is DispatcherSteps, and what holds the weights its
// steps build (resident.drop releases them).
func dispatcherSteps(s *Settings, workloadYAML string) ([]Step, *resident, error) {
	plans, err := Points(s)
	if err != nil {
		return nil, nil, err
	}
	cpus := map[string][]int{}
	for _, en := range s.Engines {
		cpus[en.Cluster.Name] = en.Cluster.CPUs
	}
	// A quick calibration's rounds are shuffled however many there are
	// (--rounds 20, say, which its held-out spread line suggests): a slow
	// spell of a shared host then falls on one round of a configuration.
	rounds, shuffled, skipLoaded := s.Rounds, s.Shuffle || s.Quick, false
	if rounds == 0 {
		rounds = 5
		if s.Quick {
			rounds, skipLoaded = QuickRounds, true
		}
	}
	reps := NewRepeats(s)
	pred := fit.NewPredictor()
	var m *dispatch.Model
	// The points on f32 experts (Point.Stream) run a workload of their
	// own, on weights of their own, built at each round's first such step
	// in place of the workload's own (resident).
	var sm *dispatch.Model
	res := &resident{slots: []**dispatch.Model{&m, &sm}}
	main := workloadOf{w: s.Workload, yaml: workloadYAML, m: &m, res: res}
	stream := workloadOf{m: &sm, res: res}
	for _, p := range plans {
		if p.Stream {
			if stream.w = StreamWorkload(s.Workload, StreamMaxBytes); stream.w == nil {
				return nil, nil, fmt.Errorf("calibrate: point %s: workload %s has no f32 variant", p, s.Workload.Name)
			}
			y, err := model.MarshalWorkload(stream.w)
			if err != nil {
				return nil, nil, err
			}
			stream.yaml = string(y)
			break
		}
	}
	var steps []Step
	if !s.NoMicro {
		// What the engines share at once: for the fit's prior, as the
		// microbenchmarks, but on the dispatcher's weights.
		steps = atOnceSteps(s, &m)
	}
	for round := 1; round <= rounds; round++ {
		these := append([]Point(nil), plans...)
		if shuffled {
			shuffle.Round(these, round)
		}
		groupStream(these)
		for _, sp := range these {
			wl := main
			if sp.Stream {
				wl = stream
			}
			st := dispatcherStep(s, sp, round, rounds, reps, cpus, wl)
			st.predict = predictStep(pred, wl.w, sp, reps.Min, wl.yaml)
			if skipLoaded && round > 1 {
				st.skip = loadedFirstRound
			}
			steps = append(steps, st)
		}
	}
	return steps, res, nil
}

// QuickRounds is how many passes over its dispatcher grid a quick
// calibration makes (Settings.Rounds 0), each in an order of its own: a
// configuration's value is the median of its rounds' medians, so that a
// spell of the machine (on the 2-vCPU build VM the two-thread pool ran a
// quarter slower for tens of seconds within one quiet window) falls on
// one round of each configuration, not on all of one configuration's
// repeats. Three rounds against one: ten quiet tries side by side. Five
// against three: ten quiet tries of five rounds, refitted on all five and
// on their first three (TestRecordedQuickFiveRounds): held out at most 5%
// in 7 tries against 4, median 4.37% against 5.57%; the spread a perfect
// model would score (each held-out run predicted as its fitted twin at
// another poll) at most 4.17% against 5.10%. The grid's runs end at 28-47
// s instead of 25-31 s (docs/busy-machine.md).
const QuickRounds = 5

// loadedFirstRound is the skip of a quick calibration's later rounds
// (Step.skip): why they are not run when more than a quarter of the first
// round's dispatcher configurations stayed disturbed (fit.PoorDownweightedFrac,
// the share past which the fit refuses for load), "" otherwise. Under a
// load that does not pause the later rounds would only add time (a
// two-cluster quick calibration under one busy loop took 74 s with them)
// to a calibration the load has already decided.
func loadedFirstRound(taken []measure.Measurement) string {
	n := 0
	var by []measure.Source // who disturbed each configuration that stayed disturbed
	for i := range taken {
		m := &taken[i]
		if m.Kind != measure.Dispatcher || m.Knobs["round"] != "1" {
			continue
		}
		n++
		if m.Interference != nil && m.Interference.Disturbed {
			by = append(by, m.Interference.WorstSource())
		}
	}
	if n == 0 || float64(len(by)) <= fit.PoorDownweightedFrac*float64(n) {
		return ""
	}
	return fmt.Sprintf("%d of the first round's %d configurations stayed disturbed by %s, so the other rounds are not run (--rounds runs them)", len(by), n, measure.Who(by))
}

// workloadOf is a workload the dispatcher grid runs: its YAML, as its
// measurements record it, and its weights, built by res at a step that
// runs it when they are not resident.
type workloadOf struct {
	w    *model.Workload
	yaml string
	m    **dispatch.Model
	res  *resident
}

func dispatcherStep(s *Settings, sp Point, round, rounds int, reps *Repeats, cpus map[string][]int, wl workloadOf) Step {
	pl := sp.Plan
	var where []string
	for _, en := range s.Engines {
		where = append(where, en.Cluster.Name+"="+topology.FormatCPUList(en.Cluster.CPUs))
	}
	id := fmt.Sprintf("dispatcher/%s/%s/%s/round=%d", wl.w.Name, sp, strings.Join(where, ","), round)
	label := "dispatcher " + sp.String()
	if rounds > 1 {
		label += fmt.Sprintf(" (round %d/%d)", round, rounds)
	}
	// A plan may use fewer threads than its engine has CPUs: the first ones.
	use := map[string][]int{}
	var pinned []int
	for i, name := range pl.Engines {
		use[name] = cpus[name][:min(pl.Threads[i], len(cpus[name]))]
		pinned = append(pinned, use[name]...)
	}
	return Step{ID: id, Label: label, cpus: pinned, run: func() (measure.Measurement, error) {
		m, err := wl.res.get(wl.m, wl.w)
		if err != nil {
			return measure.Measurement{}, err
		}
		warmup := 1
		if sp.NoWarmup {
			warmup = 0
		}
		cfg := dispatch.Config{Plan: pl, CPUs: use, Repeats: reps.Min, Warmup: warmup, Seed: 1, Run: sp.Run}
		r, err := reps.Run(m, cfg)
		out := measure.Measurement{ID: id, Kind: measure.Dispatcher, Workload: wl.w.Name,
			WorkloadYAML: wl.yaml, Plan: measure.PlanOf(pl), Unit: "t/s", Samples: r.TPS,
			Knobs: map[string]string{"repeats": fmt.Sprint(len(r.TPS)), "round": fmt.Sprint(round), "weight_bytes": fmt.Sprint(r.WeightBytes), "set": sp.Set}}
		if sp.Alone {
			out.Engine = pl.Engines[0]
		}
		if sp.Run != nil {
			out.Run = &measure.Run{PromptTokens: sp.Run.PromptTokens, Ubatch: sp.Run.Ubatch, Depth: sp.Run.Depth}
		}
		out.Summarize()
		return out, err
	}}
}

// predictStep is how long a dispatcher run of sp takes on a profile: its
// warm-up and its first repeats of the prompt at the rate the profile
// predicts.
func predictStep(pred *fit.Predictor, w *model.Workload, sp Point, repeats int, workloadYAML string) func(*model.SoC) (time.Duration, bool) {
	return func(soc *model.SoC) (time.Duration, bool) {
		m := measure.Measurement{Kind: measure.Dispatcher, Workload: w.Name, WorkloadYAML: workloadYAML, Plan: measure.PlanOf(sp.Plan), Unit: "t/s"}
		tokens := w.Run.PromptTokens
		if sp.Alone {
			m.Engine = sp.Plan.Engines[0]
		}
		if r := sp.Run; r != nil {
			m.Run = &measure.Run{PromptTokens: r.PromptTokens, Ubatch: r.Ubatch, Depth: r.Depth}
			tokens = r.PromptTokens
		}
		tps, err := pred.Predict(soc, &m)
		if err != nil || !(tps > 0) {
			return 0, false
		}
		runs := float64(repeats)
		if !sp.NoWarmup {
			runs++
		}
		return time.Duration(runs * float64(tokens) / tps * float64(time.Second)), true
	}
}
