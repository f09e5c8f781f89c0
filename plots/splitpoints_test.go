package plots

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

func TestSplitPoints(t *testing.T) {
	d := SplitData{Big: "big", Little: "little", Poll: 50, BigThreads: 4, LittleThreads: 4}
	w, err := presets.Workload("synthetic-moe")
	if err != nil {
		t.Fatal(err)
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
		m("native", []string{"little"}, []float64{1}, []int{4}, 50, 10),
		{Kind: measure.Stream, Unit: "GB/s", Status: "ok", Median: 9}, // not a throughput
	}
	withYAML := func(yaml string, name string) measure.Measurement {
		x := m("token", two, []float64{0.7, 0.3}, []int{4, 4}, 50, 24)
		x.WorkloadYAML, x.Workload = yaml, name
		return x
	}
	ms = append(ms, withYAML(string(same), w.Name), withYAML(string(other), w.Name), withYAML("", "qwen3.5-35b-a3b"))
	got := SplitPoints(ms, d, w)
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

	// Drawn, and refused when not a throughput at a share.
	d.Fracs, d.TokenTPS, d.NativeTPS, d.TokenBalance, d.ExpertBalance = []float64{0, 0.25, 0.5}, []float64{26, 24, 20}, 26, math.NaN(), math.NaN()
	d.Measured = got
	fig, err := SplitCurve(d)
	if err != nil {
		t.Fatal(err)
	}
	var legend []string
	for _, l := range fig.Legend {
		legend = append(legend, l.Label)
	}
	if s := strings.Join(legend, "; "); !strings.Contains(s, "measured native ± 1σ") || !strings.Contains(s, "measured expert split ± 1σ") {
		t.Errorf("legend %q", s)
	}
	for _, bad := range []SplitPoint{{model.TokenSplit, 1.5, 20, 0}, {model.TokenSplit, 0.1, math.NaN(), 0}, {"both", 0.1, 20, 0}, {model.TokenSplit, 0.1, 20, -1}} {
		d.Measured = []SplitPoint{bad}
		if _, err := SplitCurve(d); err == nil {
			t.Errorf("measured %+v: no error", bad)
		}
	}
}

func TestSweepSplitMaxFrac(t *testing.T) {
	s, _ := presets.SoC("rk3588")
	w, _ := presets.Workload("synthetic-moe")
	d, err := SweepSplit(s, w, SplitOptions{Poll: 50, Steps: 8, MaxFrac: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Fracs) != 9 || math.Abs(d.Fracs[8]-0.8) > 1e-12 {
		t.Errorf("fracs %v, want 0..0.8 in 8 steps", d.Fracs)
	}
	if _, err := SweepSplit(s, w, SplitOptions{MaxFrac: 1.5}); err == nil {
		t.Error("a largest share of 1.5: no error")
	}
}
