package plots

import (
	"bytes"
	"flag"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

var writeDocs = flag.Bool("docs", false, "write docs/heatmap.png, docs/parity.png and docs/roofline.png")

func seedPoints(t *testing.T, soc string) []ParityPoint {
	t.Helper()
	s, w := load(t, soc)
	ms, errs := measure.Read(bytes.NewReader(presets.SeedMeasurements()), "seed")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	pts, err := ParityPoints(ms, SimPredictor(s, w))
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
	hd, err := SweepHeatmap(s, w, HeatmapOptions{Poll: 50, NX: 6, NY: 5, FracSteps: 10})
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
	rd, err := SimRoofline(s, w, RooflineOptions{Poll: 50})
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
	for _, soc := range []string{"rk3588", "ddr5"} {
		for kind, fig := range newFigures(t, soc) {
			checkRenders(t, soc+" "+kind, fig, 7, 5)
		}
	}
}

func TestHeatmapData(t *testing.T) {
	s, w := load(t, "rk3588")
	d, err := SweepHeatmap(s, w, HeatmapOptions{Poll: 50, NX: 4, NY: 3, FracSteps: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.X) != 4 || len(d.Y) != 3 || len(d.Gain) != 3 || len(d.Gain[0]) != 4 {
		t.Fatalf("grid %dx%d, gains %d rows", len(d.X), len(d.Y), len(d.Gain))
	}
	if d.AtX != 21 || math.Abs(d.AtY-9*1.8/(28*2.3)) > 1e-9 {
		t.Errorf("studied point (%g, %g)", d.AtX, d.AtY)
	}
	if !(d.X[0] < d.AtX && d.AtX < d.X[3] && d.Y[0] < d.AtY && d.AtY < d.Y[2]) {
		t.Errorf("studied point outside the grid: %v %v", d.X, d.Y)
	}
	// More DRAM bandwidth (caps scaled with it) makes the split pay more.
	for j := range d.Y {
		if d.Gain[j][3] <= d.Gain[j][0] {
			t.Errorf("row %d: gain %v does not grow with bandwidth", j, d.Gain[j])
		}
	}
	if math.Abs(d.AtGain) > 1 {
		t.Errorf("rk3588 best gain %g%%, want parity", d.AtGain)
	}
	// The original SoC is untouched by the what-if edits.
	if s.DRAM.SustainedGBs != 21 || s.Engines[1].KernelOpsPerCycle["q4"] != 9 {
		t.Error("SweepHeatmap changed its SoC")
	}
	// A parameter path works as an axis.
	if _, err := SweepHeatmap(s, w, HeatmapOptions{XParam: "engines.big.clock_ghz", NX: 2, NY: 2, FracSteps: 2}); err != nil {
		t.Error(err)
	}
	for name, o := range map[string]HeatmapOptions{
		"unknown param": {XParam: "dram.nosuch"},
		"same axes":     {XParam: "dram", YParam: "dram"},
		"one value":     {XValues: []float64{20}},
		"decreasing":    {XValues: []float64{20, 10}},
		"native":        {Mode: "native"},
	} {
		if _, err := SweepHeatmap(s, w, o); err == nil {
			t.Errorf("%s: no error", name)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", name, err)
		}
	}
}

func TestNewKindsBadData(t *testing.T) {
	inf := math.Inf(1)
	for name, d := range map[string]HeatmapData{
		"inf gain":  {X: []float64{1, 2}, Y: []float64{1, 2}, Gain: [][]float64{{0, inf}, {0, 0}}},
		"short row": {X: []float64{1, 2}, Y: []float64{1, 2}, Gain: [][]float64{{0}, {0, 0}}},
		"one cell":  {X: []float64{1}, Y: []float64{1}, Gain: [][]float64{{0}}},
	} {
		if _, err := Heatmap(d); err == nil {
			t.Errorf("heatmap %s: no error", name)
		}
	}
	// All-zero gains (Min == Max) still draw: the range is at least ±2%.
	flat := HeatmapData{X: []float64{1, 2}, Y: []float64{1, 2}, Gain: [][]float64{{0, 0}, {0, 0}}, AtX: 1.5, AtY: 1.5}
	fig, err := Heatmap(flat)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(&bytes.Buffer{}, fig, "png", 4*vg.Inch, 3*vg.Inch); err != nil {
		t.Fatal(err)
	}
	for name, pts := range map[string][]ParityPoint{
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
	fig, err = Parity(ParityData{Points: []ParityPoint{{Measured: 1, MeasuredErr: 2, Predicted: 1.1, Label: "a"}, {Measured: 100, Predicted: 90, Label: "b"}}, LogAxes: true})
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

func TestParityPoints(t *testing.T) {
	pts := seedPoints(t, "rk3588")
	if len(pts) != 2 {
		t.Fatalf("%d points", len(pts))
	}
	for _, p := range pts {
		if math.Abs(p.Predicted/p.Measured-1) > 0.01 {
			t.Errorf("%s: predicted %g, measured %g: not within 1%%", p.Label, p.Predicted, p.Measured)
		}
	}
	if m := MAPE(pts); !(m >= 0 && m < 1) {
		t.Errorf("MAPE %g%%", m)
	}
	// Microbenchmarks and failed runs are skipped; none left is an error.
	ms := []measure.Measurement{{ID: "k", Kind: measure.Kernel, Median: 3, Status: "ok"},
		{ID: "f", Kind: measure.Reported, Plan: &model.Plan{Mode: "native", Engines: []string{"big"}, Threads: []int{4}}, Status: "failed"}}
	s, w := load(t, "rk3588")
	if _, err := ParityPoints(ms, SimPredictor(s, w)); err == nil {
		t.Error("no usable measurement: no error")
	}
	bad := measure.Measurement{ID: "b", Kind: measure.Reported, Median: 1, Status: "ok",
		Plan: &model.Plan{Mode: "token", Engines: []string{"big", "nosuch"}, Fracs: []float64{0.9, 0.1}, Threads: []int{4, 4}}}
	if _, err := ParityPoints([]measure.Measurement{bad}, SimPredictor(s, w)); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("unknown engine: %v", err)
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
	hd, err := SweepHeatmap(s, w, HeatmapOptions{Poll: 50})
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
	rd, err := SimRoofline(s, w, RooflineOptions{Poll: 50})
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
