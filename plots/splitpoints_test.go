package plots

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
)

// Measured points (predict.SplitPoints, tested in predict) are drawn over
// the split curve with their error bars, each mode named in the legend,
// and refused when they are not a throughput at a share.
func TestSplitCurveMeasured(t *testing.T) {
	s, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	w, err := presets.Workload("synthetic-moe")
	if err != nil {
		t.Fatal(err)
	}
	m := func(mode string, engines []string, fracs []float64, threads []int, samples ...float64) measure.Measurement {
		x := measure.Measurement{Kind: measure.LlamaBench, Workload: w.Name, Unit: "t/s", Status: "ok", Samples: samples,
			Plan: &model.Plan{Mode: model.Mode(mode), Engines: engines, Fracs: fracs, Threads: threads, Poll: 50}}
		x.Summarize()
		return x
	}
	two := []string{"big", "little"}
	ms := []measure.Measurement{
		m("native", []string{"big"}, []float64{1}, []int{4}, 26, 26.5, 26.2),
		m("token", two, []float64{0.88, 0.12}, []int{4, 4}, 26.2, 26.3),
		m("expert", two, []float64{0.8, 0.2}, []int{4, 4}, 25),
		m("token", two, []float64{0.88, 0.12}, []int{4, 2}, 26), // other threads: not on this curve
	}
	p, err := predict.Run(predict.Request{SoC: s, Workload: w, Poll: 50, Draws: 4, Sweep: true, SweepSteps: 10})
	if err != nil {
		t.Fatal(err)
	}
	pts := predict.SplitPoints(ms, p, w)
	if len(pts) != 3 {
		t.Fatalf("%d measured points on the curve, want 3: %+v", len(pts), pts)
	}
	d, err := SplitOf(p, pts)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Measured) != 3 {
		t.Fatalf("split data has %d measured points, want 3", len(d.Measured))
	}
	fig, err := SplitCurve(d)
	if err != nil {
		t.Fatal(err)
	}
	var legend []string
	for _, l := range fig.Legend {
		legend = append(legend, l.Label)
	}
	all := strings.Join(legend, "; ")
	for _, want := range []string{"measured native ± 1σ", "measured token split ± 1σ", "measured expert split ± 1σ"} {
		if !strings.Contains(all, want) {
			t.Errorf("legend %q lacks %q", all, want)
		}
	}
	checkRenders(t, "split with measured points", fig, 6, 4)
	// Without them, no measured entries.
	d.Measured = nil
	if fig, err = SplitCurve(d); err != nil {
		t.Fatal(err)
	}
	for _, l := range fig.Legend {
		if strings.Contains(l.Label, "measured") {
			t.Errorf("no measured points, but legend entry %q", l.Label)
		}
	}
	for _, bad := range []predict.SplitPoint{
		{Mode: model.TokenSplit, Frac: 1.5, TPS: 20},
		{Mode: model.TokenSplit, Frac: 0.1, TPS: math.NaN()},
		{Mode: "both", Frac: 0.1, TPS: 20},
		{Mode: model.TokenSplit, Frac: 0.1, TPS: 20, ErrTPS: -1},
	} {
		d.Measured = []predict.SplitPoint{bad}
		if _, err := SplitCurve(d); err == nil {
			t.Errorf("measured %+v: no error", bad)
		}
	}
}
