package plots

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/predict"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// npuHeatmapTitle is the title Heatmap gives the rk3588-npu big+npu
// what-if grid (TestHeatmapNWay checks it), the one once cut off on both
// sides, docs/heatmap-npu.png too.
const npuHeatmapTitle = "qwen3.5-35b-a3b: best token split over big+npu (BestN) vs native (big 4 + npu 3 threads, poll 50), what-if around rk3588-npu"

// assertTextInside draws fig at its kind's size and checks that every
// string it draws (the title's lines first) lies inside the canvas, by
// the drawn font's own widths, and that the title's lines, joined, are
// the whole title.
func assertTextInside(t *testing.T, name string, fig *Figure, k Kind) {
	t.Helper()
	w, h := k.Size()
	rec := &recorder.Canvas{}
	fig.Draw(draw.NewCanvas(rec, w, h))
	var drawn []string
	for _, a := range rec.Actions {
		fs, ok := a.(*recorder.FillString)
		if !ok {
			continue
		}
		face := font.DefaultCache.Lookup(fs.Font, fs.Size)
		width := face.Width(fs.String)
		if fs.Point.X < -0.5 || fs.Point.X+width > w+0.5 {
			t.Errorf("%s: %q is drawn from x=%.1f to %.1f pt, outside the %.1f pt wide figure", name, fs.String, fs.Point.X, fs.Point.X+width, w)
		}
		drawn = append(drawn, fs.String)
	}
	lines := titleLines(fig.Title, w-2*margin)
	if len(drawn) < len(lines) || strings.Join(drawn[:len(lines)], " ") != strings.Join(strings.Fields(fig.Title), " ") {
		t.Errorf("%s: the title's drawn lines %q are not the title %q", name, drawn[:min(len(drawn), len(lines))], fig.Title)
	}
}

// TestTitlesFitTheirFigure: every kind of figure draws its title, and
// every other string, inside its canvas: a title wider than the figure
// is broken into lines, never cut off at both edges.
func TestTitlesFitTheirFigure(t *testing.T) {
	s, w := load(t, "rk3588")
	p, err := predict.Run(predict.Request{SoC: s, Workload: w, Fracs: []float64{0.88, 0.12}, Poll: 50, Draws: 4, Sweep: true, Traces: true})
	if err != nil {
		t.Fatal(err)
	}
	d := ViewData{SoC: s, Workload: w, Parity: seedPoints(t, "rk3588")}
	if d.Threads, err = predict.Threads(predict.ThreadsRequest{SoC: s, Workload: w, Gen: 8, Poll: 50, Draws: 2}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []Kind{KindSplit, KindTimeline, KindParity, KindRoofline, KindThreads} {
		fig, err := View(k, p, d)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		assertTextInside(t, string(k), fig, k)
	}
	// The NPU heatmap's title is wider than its 8 in figure: it breaks.
	hw, _ := KindHeatmap.Size()
	if titleStyle().Width(npuHeatmapTitle) <= hw {
		t.Fatalf("the NPU heatmap's title fits on one line now; the test needs a title wider than %v", hw)
	}
	if lines := titleLines(npuHeatmapTitle, hw-2*margin); len(lines) != 2 {
		t.Errorf("the NPU heatmap's title in %d lines: %q", len(lines), lines)
	}
	assertTextInside(t, "npu heatmap", &Figure{Title: npuHeatmapTitle}, KindHeatmap)
}
