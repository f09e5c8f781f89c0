package plots

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/sim"
)

// The figures simulate nothing (a prediction's Traces feed them); these
// helpers run the plans a test draws.

// seedPlan is the seed's kind of split: a token split of s's first two
// engines at share frac, each at its default threads.
func seedPlan(s *model.SoC, frac float64, poll int) model.Plan {
	a, b := s.Engines[0], s.Engines[1]
	return model.Plan{Mode: model.TokenSplit, Engines: []string{a.Name, b.Name}, Fracs: []float64{1 - frac, frac},
		Threads: []int{a.DefaultThreads(), b.DefaultThreads()}, Poll: poll}
}

// seedTitles are the titles the golden figures were drawn with.
func seedTimelineTitle(s *model.SoC, w *model.Workload, frac float64, poll int) string {
	return fmt.Sprintf("%s on %s: %s split, %s share %.3f, poll %d", w.Name, s.Name, model.TokenSplit, s.Engines[1].Name, frac, poll)
}

func seedRooflineTitle(s *model.SoC, w *model.Workload, frac float64, poll int) string {
	return fmt.Sprintf("%s on %s: roofline of ubatch 0 (%s native; %s in a %s split at %.3f), poll %d",
		w.Name, s.Name, s.Engines[0].Name, s.Engines[1].Name, model.TokenSplit, frac, poll)
}

func traced(s *model.SoC, w *model.Workload, p model.Plan) (*sim.Result, error) {
	return sim.RunWith(s, w, p, sim.Options{Timeline: true})
}

// simTimeline is p's timeline, simulated here.
func simTimeline(t testing.TB, s *model.SoC, w *model.Workload, p model.Plan, layers int) TimelineData {
	t.Helper()
	r, err := traced(s, w, p)
	if err != nil {
		t.Fatal(err)
	}
	d, err := TimelineOf(s, w, p, r, layers)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// simRoofline is p's roofline, p and native simulated here.
func simRoofline(s *model.SoC, w *model.Workload, p model.Plan) (RooflineData, error) {
	r, err := traced(s, w, p)
	if err != nil {
		return RooflineData{}, err
	}
	n, err := traced(s, w, model.NewNative(p.Engines[0], p.Threads[0], p.Poll))
	if err != nil {
		return RooflineData{}, err
	}
	return RooflineOf(s, w, p, n, r)
}

// TestViewsDrawTheirPrediction: a timeline and a roofline render the
// prediction's traces, the drawn plan's own runs, and simulate nothing
// (they ran their own simulations before, issue 29); without traces they
// say how to get them.
func TestViewsDrawTheirPrediction(t *testing.T) {
	s, w := load(t, "rk3588")
	q := predict.Request{SoC: s, Workload: w, Fracs: []float64{0.88, 0.12}, Poll: 50, Draws: 4}
	p, err := predict.Run(q)
	if err != nil {
		t.Fatal(err)
	}
	d := ViewData{SoC: s, Workload: w, Layers: 1}
	for _, k := range []Kind{KindTimeline, KindRoofline} {
		if _, err := View(k, p, d); err == nil || !strings.Contains(err.Error(), "Request.Traces") {
			t.Errorf("%s without traces: %v", k, err)
		}
	}
	q.Traces = true
	if p, err = predict.Run(q); err != nil {
		t.Fatal(err)
	}
	if p.Traces == nil || p.Traces.Plan.String() != p.Drawn().Plan.String() {
		t.Fatalf("traces %+v, want the drawn plan %s", p.Traces, p.Drawn().Plan)
	}
	n0 := sim.Simulations()
	for _, k := range []Kind{KindTimeline, KindRoofline} {
		fig, err := View(k, p, d)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(fig.Texts(), "\n"), "4+4 threads") {
			t.Errorf("%s does not name the drawn plan's threads: %q", k, fig.Texts())
		}
	}
	if n := sim.Simulations() - n0; n != 0 {
		t.Errorf("drawing the timeline and roofline simulated %d runs, want 0", n)
	}
}
