package calibrate

import (
	"time"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/calibrate/llamabench"
	"github.com/blsim/blsim/calibrate/runner"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// LoadSeconds is what EstimateGrid counts for a benchmark to start and
// load its model, per run: a guess, the same on every host.
const LoadSeconds = 2.0

// EstimateGrid sets cfg.Estimate to prior's prediction of a point's run:
// each test the point asks for (runner.Config.PointRuns), its prompt and
// generated tokens at the rate prior predicts for the point's plan, as
// many times as llama-bench runs it (runner.Config.Repetitions, and one
// warm-up run), and LoadSeconds. A point whose plan or tests the knobs do
// not fix, or that prior cannot run, cannot be told. cfg.Workload and
// cfg.WorkloadYAML name the model the runs execute. A nil prior tells
// nothing: cfg is left as it is.
func EstimateGrid(cfg *runner.Config, prior *model.SoC) {
	if prior == nil {
		return
	}
	pred := fit.NewPredictor()
	c := *cfg
	cfg.Estimate = func(p runner.Point) (time.Duration, bool) {
		plan, err := c.Mapping.Plan(p, llamabench.Record{})
		runs := c.PointRuns(p)
		if err != nil || len(runs) == 0 {
			return 0, false
		}
		secs := LoadSeconds
		reps := float64(c.Repetitions(p) + 1)
		for i := range runs {
			m := measure.Measurement{Kind: measure.LlamaBench, Workload: c.Workload, WorkloadYAML: c.WorkloadYAML, Plan: &plan, Run: &runs[i], Unit: "t/s"}
			tps, err := pred.Predict(prior, &m)
			if err != nil || !(tps > 0) {
				return 0, false
			}
			secs += reps * float64(runs[i].PromptTokens+runs[i].GenTokens) / tps
		}
		return time.Duration(secs * float64(time.Second)), true
	}
}
