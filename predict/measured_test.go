package predict

import (
	"errors"
	"math"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// SplitPoints keeps the throughputs measured on the prediction's plans:
// its workload (by name, and by content when the record carries its
// YAML), native on its first engine or a token or expert split over its
// two engines, at its threads and poll.
func TestSplitPoints(t *testing.T) {
	w, err := presets.Workload("synthetic-moe")
	if err != nil {
		t.Fatal(err)
	}
	s, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	// The prediction's engines, threads and poll are what is matched.
	p, err := Run(Request{SoC: s, Workload: w, Poll: 50, Draws: 2})
	if err != nil {
		t.Fatal(err)
	}
	if p.Engines[0] != "big" || p.Engines[1] != "little" || p.Threads[0] != 4 || p.Threads[1] != 4 {
		t.Fatalf("rk3588 prediction over %v with %v threads, want big and little with 4 each", p.Engines, p.Threads)
	}
	same, _ := model.MarshalWorkload(w)
	bigger := *w
	bigger.Model.Layers *= 10
	other, _ := model.MarshalWorkload(&bigger)
	m := func(mode string, engines []string, fracs []float64, threads []int, poll int, samples ...float64) measure.Measurement {
		x := measure.Measurement{Kind: measure.LlamaBench, Workload: w.Name, Unit: "t/s", Status: "ok", Samples: samples,
			Plan: &model.Plan{Mode: model.Mode(mode), Engines: engines, Fracs: fracs, Threads: threads, Poll: poll}}
		x.Summarize()
		return x
	}
	two := []string{"big", "little"}
	ms := []measure.Measurement{
		m("native", []string{"big"}, []float64{1}, []int{4}, 50, 26, 26.5, 26.2),
		m("token", two, []float64{0.88, 0.12}, []int{4, 4}, 50, 26.2, 26.3),
		m("expert", two, []float64{0.8, 0.2}, []int{4, 4}, 50, 25),
		m("token", two, []float64{0.88, 0.12}, []int{4, 4}, 0, 26),                      // another poll
		m("token", two, []float64{0.88, 0.12}, []int{4, 2}, 50, 26),                     // other threads
		m("token", []string{"little", "big"}, []float64{0.5, 0.5}, []int{4, 4}, 50, 26), // other engines
		m("native", []string{"little"}, []float64{1}, []int{4}, 50, 10),                 // another first engine
		m("native", []string{"big"}, []float64{1}, []int{2}, 50, 20),                    // other first-engine threads
		m("expert", two, []float64{0.8, 0.2}, []int{2, 4}, 50, 21),                      // other first-engine threads
		{Kind: measure.Stream, Unit: "GB/s", Status: "ok", Median: 9},                   // not a throughput
	}
	failed := m("token", two, []float64{0.9, 0.1}, []int{4, 4}, 50, 20)
	failed.Status = measure.StatusFailed
	withYAML := func(yaml string, name string) measure.Measurement {
		x := m("token", two, []float64{0.7, 0.3}, []int{4, 4}, 50, 24)
		x.WorkloadYAML, x.Workload = yaml, name
		return x
	}
	ms = append(ms, failed, withYAML(string(same), w.Name), withYAML(string(other), w.Name), withYAML("", "qwen3.5-35b-a3b"))
	got := SplitPoints(ms, p, w)
	if len(got) != 4 {
		t.Fatalf("%d points, want 4: %+v", len(got), got)
	}
	want := []SplitPoint{{model.Native, 0, 26.2, 0}, {model.TokenSplit, 0.12, 26.25, 0}, {model.ExpertSplit, 0.2, 25, 0}, {model.TokenSplit, 0.3, 24, 0}}
	for i, w := range want {
		if got[i].Mode != w.Mode || got[i].Frac != w.Frac || math.Abs(got[i].TPS-w.TPS) > 1e-9 {
			t.Errorf("point %d = %+v, want %+v", i, got[i], w)
		}
	}
	if sd := got[0].ErrTPS; math.Abs(sd-0.2517) > 1e-3 {
		t.Errorf("native error bar %g, want the samples' sd 0.2517", sd)
	}
	if sd := got[2].ErrTPS; sd != 0 {
		t.Errorf("one sample's error bar %g, want 0 (none known)", sd)
	}

	// Another prediction's threads and poll pick the other records.
	q := &Prediction{Engines: two, Threads: []int{4, 2}, Poll: 50, Prompt: p.Prompt, Ubatch: p.Ubatch}
	if got := SplitPoints(ms, q, w); len(got) != 2 || got[0].Mode != model.Native || got[1].Frac != 0.12 {
		t.Errorf("4+2 threads: %+v, want native and the 4+2 token split", got)
	}
	// Another test is another curve: the runs without a test of their own
	// ran the workload's, so a tg curve, a shorter prompt's or a smaller
	// ubatch's has none of them; a record of its own test is on its curve.
	pp, ub := w.Run.PromptTokens, w.Run.Ubatch
	if pp < 4 || ub < 2 {
		t.Fatalf("workload run %+v: the test needs a prompt of 4 and a ubatch of 2 or more", w.Run)
	}
	for _, run := range []model.Run{{GenTokens: 128, Ubatch: ub}, {PromptTokens: pp / 2, Ubatch: min(ub, pp/2)}, {PromptTokens: pp, Ubatch: ub / 2}} {
		q = &Prediction{Engines: two, Threads: []int{4, 4}, Poll: 50, Prompt: run.PromptTokens, Ubatch: run.Ubatch, Gen: run.GenTokens}
		own := m("native", []string{"big"}, []float64{1}, []int{4}, 50, 7)
		own.Run = &measure.Run{PromptTokens: run.PromptTokens, Ubatch: run.Ubatch, GenTokens: run.GenTokens}
		if got := SplitPoints(append(ms, own), q, w); len(got) != 1 || got[0].TPS != 7 {
			t.Errorf("%+v: %+v, want only the record of that test", run, got)
		}
	}
	q = &Prediction{Engines: two, Threads: []int{4, 4}, Poll: 0, Prompt: p.Prompt, Ubatch: p.Ubatch}
	if got := SplitPoints(ms, q, w); len(got) != 1 || got[0].Mode != model.TokenSplit {
		t.Errorf("poll 0: %+v, want the poll-0 token split", got)
	}
	// A split of more than two engines has no split curve to place them on.
	q = &Prediction{Engines: []string{"big", "little", "npu"}, Threads: []int{4, 4, 3}, Poll: 50, Prompt: p.Prompt, Ubatch: p.Ubatch}
	if got := SplitPoints(ms, q, w); got != nil {
		t.Errorf("three engines: %+v, want none", got)
	}
}

// A sweep runs from share 0 to SweepMaxFrac in SweepSteps intervals per
// mode; a largest share outside (0, 1] is the sweep field's error.
func TestSweepMaxFrac(t *testing.T) {
	s, _ := presets.SoC("rk3588")
	w, _ := presets.Workload("synthetic-moe")
	p, err := Run(Request{SoC: s, Workload: w, Poll: 50, Draws: 2, Sweep: true, SweepSteps: 8, SweepMaxFrac: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	modes := p.Modes()
	if len(modes) != 2 || len(p.Sweep) != 9*len(modes) {
		t.Fatalf("%d sweep points over modes %v, want 9 per mode", len(p.Sweep), modes)
	}
	for k, mode := range modes {
		pts := p.Sweep[9*k : 9*(k+1)]
		for i, pt := range pts {
			if pt.Mode != mode || math.Abs(pt.Frac-0.1*float64(i)) > 1e-12 || !(pt.TPS > 0) {
				t.Errorf("%s point %d: %+v, want share %.1f", mode, i, pt, 0.1*float64(i))
			}
			if g := 100 * (pt.TPS/p.Native.TPS - 1); math.Abs(g-pt.GainPct) > 1e-9 {
				t.Errorf("%s point %d: gain %g, want %g over native", mode, i, pt.GainPct, g)
			}
		}
		if math.Abs(pts[8].Frac-0.8) > 1e-12 {
			t.Errorf("%s: last share %g, want 0.8", mode, pts[8].Frac)
		}
	}
	// The default sweep ends at sim.MaxSecondFrac.
	p, err = Run(Request{SoC: s, Workload: w, Poll: 50, Draws: 2, Sweep: true, SweepSteps: 4})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Sweep); n != 10 || p.Sweep[4].Frac != 0.5 {
		t.Errorf("default sweep %+v, want 0..0.5 in 4 steps per mode", p.Sweep)
	}
	for _, q := range []Request{
		{SoC: s, Workload: w, Sweep: true, SweepMaxFrac: 1.5},
		{SoC: s, Workload: w, Sweep: true, SweepMaxFrac: -0.1},
		{SoC: s, Workload: w, Sweep: true, SweepSteps: 1001},
	} {
		_, err := Run(q)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "sweep" {
			t.Errorf("sweep to %g in %d steps: %v, want a sweep field error", q.SweepMaxFrac, q.SweepSteps, err)
		}
	}
}
