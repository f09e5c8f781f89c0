package plots

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blsim/blsim/predict"
	"gonum.org/v1/plot/vg"
)

// TestHeatmapNWay draws the what-if grid of a big+npu split on rk3588-npu
// (sim.BestN per cell, over the NPU's effective TOPS and submit latency;
// its values are tested in predict): log axes, a title naming the
// engines, the studied SoC's shares, and byte-identical renders.
func TestHeatmapNWay(t *testing.T) {
	skipShort(t)
	s, w := load(t, "rk3588-npu")
	d, err := predict.WhatIfOf(nil, s, w, predict.WhatIfOptions{Poll: 50, Engines: []string{"big", "npu"}})
	if err != nil {
		t.Fatal(err)
	}
	if !d.NWay || !d.LogX || !d.LogY {
		t.Fatalf("N-way data: nway %v log %v/%v", d.NWay, d.LogX, d.LogY)
	}
	fig, err := Heatmap(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := "best token split over big+npu (BestN) vs native (big 4 + npu 3 threads, poll 50), what-if around rk3588-npu"; !strings.Contains(fig.Title, want) {
		t.Errorf("title %q lacks %q", fig.Title, want)
	}
	var legend []string
	for _, e := range fig.Legend {
		legend = append(legend, e.Label)
	}
	if all := strings.Join(legend, "\n"); !strings.Contains(all, "studied SoC (best gain at its best shares)") {
		t.Errorf("legend %q lacks the studied SoC's shares", legend)
	}
	// The log axes are labelled with values, not their logarithms.
	if _, ok := fig.Panels[0].X.Tick.Marker.(heatLogTicks); !ok {
		t.Errorf("x ticks %T, want heatLogTicks", fig.Panels[0].X.Tick.Marker)
	}
	if _, ok := fig.Panels[0].Y.Tick.Marker.(heatLogTicks); !ok {
		t.Errorf("y ticks %T, want heatLogTicks", fig.Panels[0].Y.Tick.Marker)
	}
	dir := t.TempDir()
	var prev []byte
	for k := 0; k < 2; k++ {
		path := filepath.Join(dir, "npu.png")
		if k == 1 {
			// A second figure of the same data renders the same bytes.
			if fig, err = Heatmap(d); err != nil {
				t.Fatal(err)
			}
		}
		if err := Save(fig, path, 8*vg.Inch, 6*vg.Inch); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if img.Bounds().Dx() < 600 || img.Bounds().Dy() < 400 {
			t.Errorf("%v pixels", img.Bounds())
		}
		if k == 1 && !bytes.Equal(prev, b) {
			t.Error("two renders differ")
		}
		prev = b
	}
}

// A two-engine heatmap around a prediction (predict.WhatIfOf) names its
// mode and poll and marks the studied SoC with the prediction's best gain.
func TestHeatmapOfPrediction(t *testing.T) {
	s, w := load(t, "rk3588")
	p, err := predict.Run(predict.Request{SoC: s, Workload: w, Poll: 50, Draws: 4})
	if err != nil {
		t.Fatal(err)
	}
	d, err := predict.WhatIfOf(p, s, w, predict.WhatIfOptions{NX: 4, NY: 3, FracSteps: 4})
	if err != nil {
		t.Fatal(err)
	}
	fig, err := Heatmap(d)
	if err != nil {
		t.Fatal(err)
	}
	mode := string(p.Best.Plan.Mode)
	if want := "best " + mode + "-split gain over native (big 4 + little 4 threads, poll 50), what-if around rk3588"; !strings.Contains(fig.Title, want) {
		t.Errorf("title %q lacks %q", fig.Title, want)
	}
	var legend []string
	for _, e := range fig.Legend {
		legend = append(legend, e.Label)
	}
	all := strings.Join(legend, "\n")
	for _, want := range []string{"WIN above +1%, LOSS below -1% (the verdict rule, studied interval)", "studied SoC (best gain at its best fraction)"} {
		if !strings.Contains(all, want) {
			t.Errorf("legend %q lacks %q", legend, want)
		}
	}
	checkRenders(t, "heatmap of a prediction", fig, 7, 5)
}

func TestHeatLogTicks(t *testing.T) {
	ts := heatLogTicks{}.Ticks(-2, 0.4)
	var labels []string
	for _, tk := range ts {
		labels = append(labels, tk.Label)
	}
	want := []string{"0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "2"}
	if len(labels) != len(want) {
		t.Fatalf("ticks %v, want %v", labels, want)
	}
	for i := range want {
		if labels[i] != want[i] {
			t.Errorf("ticks %v, want %v", labels, want)
			break
		}
	}
}

// TestHeatmapJudgesAsTheTable: the heatmap's WIN boundary is the table's
// rule. With the NPU's rate far less certain (σ 200 for 80) the table
// judges rk3588-npu's best split PARITY at about +17%; the heatmap once
// drew its boundary at +1% (the gain alone), inside which that very point
// sat as a WIN.
func TestHeatmapJudgesAsTheTable(t *testing.T) {
	s, w := load(t, "rk3588-npu")
	s.Uncertainty["engines.npu.kernel_ops_per_cycle.q4"] = 200
	p, err := predict.Run(predict.Request{SoC: s, Workload: w, Engines: []string{"big", "npu"}, Poll: 50, Draws: 16})
	if err != nil {
		t.Fatal(err)
	}
	if p.Best.Verdict == "WIN" || p.Best.GainPct <= 1 {
		t.Fatalf("the case needs a best split above +1%% that the table does not call a WIN: %s %+.2f%%", p.Best.Verdict, p.Best.GainPct)
	}
	d, err := predict.WhatIfOf(p, s, w, predict.WhatIfOptions{NX: 3, NY: 2})
	if err != nil {
		t.Fatal(err)
	}
	fig, err := Heatmap(d)
	if err != nil {
		t.Fatal(err)
	}
	level := math.NaN()
	for _, e := range fig.Legend {
		if rest, ok := strings.CutPrefix(e.Label, "WIN above "); ok {
			num, _, _ := strings.Cut(rest, "%")
			level, _ = strconv.ParseFloat(num, 64)
		}
	}
	if !(level >= p.Best.GainPct) {
		var legend []string
		for _, e := range fig.Legend {
			legend = append(legend, e.Label)
		}
		t.Errorf("the heatmap's WIN boundary (legend %q) lies below the studied %s split's %+.2f%%, which the table judges %s",
			legend, p.Best.Plan.Mode, p.Best.GainPct, p.Best.Verdict)
	}
}
