package plots

import (
	"bytes"
	"flag"
	"math"
	"path/filepath"
	"testing"

	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

var writeDocs = flag.Bool("docs", false, "write docs/heatmap.png, docs/parity.png and docs/roofline.png")

// seedPoints are the seed's reported runs predicted on soc by plain
// simulation (predict.ParityPoints, tested in predict).
func seedPoints(t *testing.T, soc string) []predict.ParityPoint {
	t.Helper()
	s, w := load(t, soc)
	ms, warns, _, err := presets.Measurements("", nil)
	if err != nil || len(warns) > 0 {
		t.Fatal(err, warns)
	}
	pts, err := predict.ParityPoints(ms, simPredictor(s, w), nil)
	if err != nil {
		t.Fatal(err)
	}
	return pts
}

// newFigures returns the heatmap (a small grid), parity and roofline
// figures of soc.
func newFigures(t *testing.T, soc string) map[string]*Figure {
	t.Helper()
	s, w := load(t, soc)
	hd, err := predict.WhatIfOf(nil, s, w, predict.WhatIfOptions{Poll: 50, NX: 6, NY: 5, FracSteps: 10})
	if err != nil {
		t.Fatal(err)
	}
	hf, err := Heatmap(hd)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := Parity(ParityData{SoC: soc, Workload: w.Name, Points: seedPoints(t, soc)})
	if err != nil {
		t.Fatal(err)
	}
	pl, err := Parity(ParityData{SoC: soc, Workload: w.Name, Points: seedPoints(t, soc), LogAxes: true})
	if err != nil {
		t.Fatal(err)
	}
	rd, err := simRoofline(s, w, seedPlan(s, 0.12, 50))
	if err != nil {
		t.Fatal(err)
	}
	rf, err := Roofline(rd)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Figure{"heatmap": hf, "parity": pf, "parity-log": pl, "roofline": rf}
}

func TestNewKindsDeterministic(t *testing.T) {
	skipShort(t)
	for _, soc := range []string{"rk3588", "ddr5"} {
		for kind, fig := range newFigures(t, soc) {
			checkRenders(t, soc+" "+kind, fig, 7, 5)
		}
	}
}

func TestNewKindsBadData(t *testing.T) {
	inf := math.Inf(1)
	for name, d := range map[string]predict.WhatIf{
		"inf gain":  {X: []float64{1, 2}, Y: []float64{1, 2}, Gain: [][]float64{{0, inf}, {0, 0}}},
		"short row": {X: []float64{1, 2}, Y: []float64{1, 2}, Gain: [][]float64{{0}, {0, 0}}},
		"one cell":  {X: []float64{1}, Y: []float64{1}, Gain: [][]float64{{0}}},
	} {
		if _, err := Heatmap(d); err == nil {
			t.Errorf("heatmap %s: no error", name)
		}
	}
	// All-zero gains (Min == Max) still draw: the range is at least ±2%.
	flat := predict.WhatIf{X: []float64{1, 2}, Y: []float64{1, 2}, Gain: [][]float64{{0, 0}, {0, 0}}, AtX: 1.5, AtY: 1.5}
	fig, err := Heatmap(flat)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(&bytes.Buffer{}, fig, "png", 4*vg.Inch, 3*vg.Inch); err != nil {
		t.Fatal(err)
	}
	for name, pts := range map[string][]predict.ParityPoint{
		"none":     nil,
		"zero":     {{Measured: 0, Predicted: 1}},
		"nan":      {{Measured: 1, Predicted: math.NaN()}},
		"neg err":  {{Measured: 1, Predicted: 1, MeasuredErr: -1}},
		"inf pred": {{Measured: 1, Predicted: inf}},
	} {
		if _, err := Parity(ParityData{Points: pts}); err == nil {
			t.Errorf("parity %s: no error", name)
		}
	}
	// A measured spread reaching below zero still draws on log axes.
	fig, err = Parity(ParityData{Points: []predict.ParityPoint{{Measured: 1, MeasuredErr: 2, Predicted: 1.1, Label: "a"}, {Measured: 100, Predicted: 90, Label: "b"}}, LogAxes: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(&bytes.Buffer{}, fig, "svg", 4*vg.Inch, 3*vg.Inch); err != nil {
		t.Fatal(err)
	}
	if _, err := Roofline(RooflineData{}); err == nil {
		t.Error("roofline without engines: no error")
	}
	if _, err := Roofline(RooflineData{Engines: []RoofEngine{{Name: "e", ComputeGOPS: 1, BandwidthGBs: 1}},
		Ops: []RoofOp{{Name: "x", Intensity: 0, GOPS: 1}}}); err == nil {
		t.Error("roofline op at intensity 0: no error")
	}
}

func TestClipPolygon(t *testing.T) {
	got := clipPolygon(plotter.XYs{{X: -1, Y: -1}, {X: 2, Y: -1}, {X: 2, Y: 2}, {X: -1, Y: 2}}, 0, 1, 0, 1)
	if len(got) != 4 {
		t.Fatalf("%v", got)
	}
	for _, p := range got {
		if p.X < 0 || p.X > 1 || p.Y < 0 || p.Y > 1 {
			t.Errorf("%v outside the box", p)
		}
	}
	if got := clipPolygon(plotter.XYs{{X: 5, Y: 5}, {X: 6, Y: 5}, {X: 6, Y: 6}}, 0, 1, 0, 1); got != nil {
		t.Errorf("outside polygon clipped to %v", got)
	}
}

// TestWriteDocs writes the docs figures: go test ./plots -run WriteDocs -docs
func TestWriteDocs(t *testing.T) {
	if !*writeDocs {
		t.Skip("run with -docs to write docs/*.png")
	}
	s, w := load(t, "rk3588")
	hd, err := predict.WhatIfOf(nil, s, w, predict.WhatIfOptions{Poll: 50})
	if err != nil {
		t.Fatal(err)
	}
	hf, err := Heatmap(hd)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := Parity(ParityData{SoC: "rk3588", Workload: w.Name, Points: seedPoints(t, "rk3588")})
	if err != nil {
		t.Fatal(err)
	}
	rd, err := simRoofline(s, w, seedPlan(s, 0.12, 50))
	if err != nil {
		t.Fatal(err)
	}
	rf, err := Roofline(rd)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]struct {
		fig  *Figure
		w, h vg.Length
	}{"heatmap": {hf, 8 * vg.Inch, 6 * vg.Inch}, "parity": {pf, 7 * vg.Inch, 6 * vg.Inch}, "roofline": {rf, 8 * vg.Inch, 6 * vg.Inch}} {
		if err := Save(f.fig, filepath.Join("..", "docs", name+".png"), f.w, f.h); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRooflineUnderTheMemoryRoof: no op of the seed's roofline runs above
// its engine's memory roof (intensity x bandwidth): an expert op's bytes
// are the experts its tokens reach, so the prompt's one-token tail, which
// walks 8 of 256 experts, sits under the roof and not 30x above it.
func TestRooflineUnderTheMemoryRoof(t *testing.T) {
	s, _ := presets.SoC("rk3588")
	w, _ := presets.Workload("qwen3.5-35b-a3b")
	rd, err := simRoofline(s, w, seedPlan(s, 0.12, 50))
	if err != nil {
		t.Fatal(err)
	}
	bw := map[string]float64{}
	for _, e := range rd.Engines {
		bw[e.Name] = e.BandwidthGBs
	}
	for _, o := range rd.Ops {
		if roof := o.Intensity * bw[o.Engine]; o.GOPS > 1.01*roof {
			t.Errorf("%s on %s: %.3g GOPS at intensity %.3g, above the memory roof %.3g", o.Name, o.Engine, o.GOPS, o.Intensity, roof)
		}
	}
}
