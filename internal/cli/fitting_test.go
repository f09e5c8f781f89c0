package cli

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// On noisy runs the noise line suggests the fastest samples; for a file
// blsim calibrate wrote (its records name their clusters), with the one
// command that refits the same runs so, from calibrate's own prior.
func TestFitNoiseSuggestion(t *testing.T) {
	run := func(frac float64, host *measure.Host, samples ...float64) measure.Measurement {
		m := measure.Measurement{Schema: measure.Schema, Kind: measure.Dispatcher, Workload: "w", Unit: "t/s", Status: "ok", Host: host,
			Plan: &model.Plan{Mode: "token", Engines: []string{"big", "little"}, Fracs: []float64{1 - frac, frac}, Threads: []int{1, 1}}, Samples: samples}
		m.Summarize()
		return m
	}
	calib := &measure.Host{Clusters: []measure.Cluster{{Name: "big", CPUs: []int{1}}, {Name: "little", CPUs: []int{0}}}}
	noisy := func(h *measure.Host) []measure.Measurement {
		return []measure.Measurement{run(0.1, h, 200, 205, 300), run(0.2, h, 60, 90, 61), run(0.3, h, 50, 80, 52)}
	}
	for _, c := range []struct {
		name string
		out  FitOutput
		job  fit.Job
		want string // the line's end; "" for no suggestion
	}{
		{"calibrate's file", FitOutput{Path: "runs.jsonl"}, fit.Job{Measurements: noisy(calib), Holdout: []string{"set=heldout"}},
			"; on a shared host, try --stat best (`blsim fit --measurements runs.jsonl --holdout set=heldout --stat best -o best.yaml` compares the two on these runs)"},
		{"a path to quote, no holdout", FitOutput{Path: "my runs/it's.jsonl"}, fit.Job{Measurements: noisy(calib)},
			"(`blsim fit --measurements 'my runs/it'\\''s.jsonl' --stat best -o best.yaml` compares the two on these runs)"},
		{"a file without clusters", FitOutput{Path: "bench.jsonl"}, fit.Job{Measurements: noisy(nil), Holdout: []string{"t=2 pp256"}},
			"; on a shared host, try --stat best (validate --holdout compares the two)"},
		{"fitting the fastest already", FitOutput{Path: "runs.jsonl"}, fit.Job{Measurements: noisy(calib), Options: fit.Options{Stat: fit.Best}}, ""},
	} {
		got := c.out.noise(c.job)
		if !strings.HasPrefix(got, "noise: ") || c.want != "" && !strings.HasSuffix(got, c.want) || c.want == "" && strings.Contains(got, "try --stat best") {
			t.Errorf("%s: %q, want it to end %q", c.name, got, c.want)
		}
	}
}
