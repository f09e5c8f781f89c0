package calibrate

import (
	"fmt"
	"strconv"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/calibrate/llamabench"
	"github.com/blsim/blsim/calibrate/runner"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// AdaptGrid fits a benchmark grid's configuration to the prior profile its
// runs will be fitted to. With the default knob mapping (ownMapping
// false), a split run that leaves the little threads unset uses all of the
// little engine's cores (the seed's fork runs its four A55 so); and a
// record whose plan the profile cannot run (more threads than an engine
// has cores, an engine it lacks) is flagged when it arrives
// (runner.Config.PlanCheck), not fitted.
func AdaptGrid(cfg *runner.Config, prior *model.SoC, ownMapping bool) {
	if !ownMapping {
		if e, _, err := prior.Engine(cfg.Mapping.Engines.Little); err == nil {
			defaults := map[string]string{}
			for k, v := range cfg.Mapping.Defaults {
				defaults[k] = v
			}
			for _, n := range cfg.Mapping.LittleThreads {
				if _, set := defaults[n]; set {
					defaults[n] = strconv.Itoa(e.Cores)
				}
			}
			cfg.Mapping.Defaults = defaults
		}
	}
	cfg.PlanCheck = func(mp model.Plan) string {
		p := fit.Plan(&mp)
		if err := p.Validate(prior); err != nil {
			hint := ""
			if cfg.Mapping.NThreads != runner.ThreadsTotal && mp.Mode != model.Native {
				hint = ` (if your fork counts big+little threads in n_threads, say "n_threads: total" in --knobs)`
			}
			return fmt.Sprintf("the profile %s cannot run this record's plan %v: %v%s", prior.Name, p, err, hint)
		}
		return ""
	}
}

// CheckHoldout makes sure, before anything runs, that the holdout patterns
// (fit.HeldOut) split the grid: some tests held out and some left to fit.
// Each point counts once per test it runs (runner.Config.PointRuns: a run
// of llama-bench -p 64 -n 32 is a pp64 and a tg32 record), or once when
// its tests are not known. Points whose plan the knobs alone do not fix
// (it may depend on what the command prints) count as fitted. The error
// quotes a test's label when none matches.
func CheckHoldout(cfg runner.Config, patterns []string) error {
	held, total := 0, 0
	example := ""
	distinct, _ := cfg.Distinct()
	for _, p := range distinct {
		runs := []*measure.Run{nil}
		if rs := cfg.PointRuns(p); len(rs) > 0 {
			runs = runs[:0]
			for i := range rs {
				runs = append(runs, &rs[i])
			}
		}
		plan, err := cfg.Mapping.Plan(p, llamabench.Record{})
		for _, r := range runs {
			total++
			if err != nil {
				continue
			}
			m := measure.Measurement{ID: p.ID, Plan: &plan, Knobs: p.Knobs, Run: r}
			if example == "" {
				example = m.Label()
			}
			if fit.HeldOut(&m, patterns) {
				held++
			}
		}
	}
	switch {
	case held == 0:
		hint := ""
		if example != "" {
			hint = fmt.Sprintf(" (a point's label reads %q)", example)
		}
		return fmt.Errorf("no point of the grid matches%s", hint)
	case held == total:
		return fmt.Errorf("every test of the grid matches: none is left to fit")
	}
	return nil
}

// GridGaps are the warnings of the check before a benchmark grid runs:
// what the grid cannot tell the prior's values apart on (runner.Config's
// Gaps: one ubatch, one split mode), when adapted reports a grid adapted
// to a prior profile, then SpanGaps.
func GridGaps(cfg runner.Config, adapted bool, patterns []string, fitting bool) []string {
	var out []string
	if adapted {
		out = cfg.Gaps()
	}
	return append(out, SpanGaps(cfg, patterns, fitting)...)
}

// SpanGaps says, before anything runs, what the tests of the grid's
// points that will be fitted (those no holdout pattern matches) leave to
// the prior, one line each with the llama-bench arguments that would
// tell it (fit.Gaps: one prompt length, no tg). Points whose tests are
// not known before they run count for nothing. None when fitting is false
// (the runs are only recorded).
func SpanGaps(cfg runner.Config, patterns []string, fitting bool) []string {
	if !fitting {
		return nil
	}
	var runs []model.Run
	for _, p := range cfg.Grid.Points() {
		plan, err := cfg.Mapping.Plan(p, llamabench.Record{})
		for _, r := range cfg.PointRuns(p) {
			m := measure.Measurement{ID: p.ID, Plan: &plan, Knobs: p.Knobs, Run: &r}
			if err == nil && len(patterns) > 0 && fit.HeldOut(&m, patterns) {
				continue
			}
			runs = append(runs, r.Of(model.Run{Ubatch: max(r.Ubatch, 1)}))
		}
	}
	var out []string
	for _, g := range fit.Gaps(model.SpanOf(runs)) {
		out = append(out, g.Line)
	}
	return out
}
