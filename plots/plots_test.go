package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/sim"
	"gonum.org/v1/plot/vg"
)

func load(t *testing.T, soc string) (*model.SoC, *model.Workload) {
	t.Helper()
	s, err := presets.LoadSoC(soc)
	if err != nil {
		t.Fatal(err)
	}
	w, err := presets.LoadWorkload("qwen3.5-35b-a3b")
	if err != nil {
		t.Fatal(err)
	}
	return s, w
}

// simPredictor is a plain (uncalibrated) predictor that needs no
// calibrate/fit: it simulates the measurement's own plan of w on s (a
// native plan recorded without shares runs everything on its engine).
func simPredictor(s *model.SoC, w *model.Workload) predict.Predictor {
	return func(m *measure.Measurement) (float64, error) {
		if m.Plan == nil {
			return 0, errors.New("measurement " + m.ID + " has no plan")
		}
		p := *m.Plan
		if p.Mode == model.Native && len(p.Fracs) == 0 {
			p.Fracs = []float64{1}
		}
		r, err := sim.Run(s, w, p)
		if err != nil {
			return 0, err
		}
		return r.TPS, nil
	}
}

// splitOf is the split curve of w on s's first two engines at poll 50,
// as blsim plot draws it: a prediction with a sweep of steps intervals.
func splitOf(t *testing.T, s *model.SoC, w *model.Workload, steps int, measured []predict.SplitPoint) (*predict.Prediction, SplitData) {
	t.Helper()
	p, err := predict.Run(predict.Request{SoC: s, Workload: w, Poll: 50, Draws: 8, Sweep: true, SweepSteps: steps})
	if err != nil {
		t.Fatal(err)
	}
	d, err := SplitOf(p, measured)
	if err != nil {
		t.Fatal(err)
	}
	return p, d
}

// figures returns the split and a two-layer timeline figure of soc.
func figures(t *testing.T, soc string) map[string]*Figure {
	t.Helper()
	s, w := load(t, soc)
	_, sd := splitOf(t, s, w, 20, nil)
	sf, err := SplitCurve(sd)
	if err != nil {
		t.Fatal(err)
	}
	td := simTimeline(t, s, w, seedPlan(s, 0.12, 50), 2)
	tf, err := Timeline(td)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Figure{"split": sf, "timeline": tf}
}

var pdfDates = regexp.MustCompile(`/(CreationDate|ModDate) \((D:\d{14})\)`)

func TestRenderDeterministic(t *testing.T) {
	skipShort(t)
	for _, soc := range []string{"rk3588", "ddr5"} {
		for kind, fig := range figures(t, soc) {
			checkRenders(t, soc+" "+kind, fig, 6, 4)
		}
	}
}

// checkRenders saves fig twice in each format, wIn by hIn inches, and
// checks each pair: byte-identical (a PDF dated PDFDate, not the time it
// was drawn, which fpdf would stamp), the right size, fonts
// embedded, no temporaries left, at most 2 MiB.
func checkRenders(t *testing.T, what string, fig *Figure, wIn, hIn int) {
	t.Helper()
	for _, ext := range []string{"png", "svg", "pdf"} {
		dir := t.TempDir()
		var got [2][]byte
		for i := range got {
			path := filepath.Join(dir, string(rune('a'+i))+"."+ext)
			if err := Save(fig, path, vg.Length(wIn)*vg.Inch, vg.Length(hIn)*vg.Inch); err != nil {
				t.Fatalf("%s %s: %v", what, ext, err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got[i] = b
		}
		name := what + " " + ext
		switch ext {
		case "png":
			img, err := png.Decode(bytes.NewReader(got[0]))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if b := img.Bounds(); b.Dx() != wIn*PNGDPI || b.Dy() != hIn*PNGDPI {
				t.Errorf("%s: %dx%d pixels, want %dx%d", name, b.Dx(), b.Dy(), wIn*PNGDPI, hIn*PNGDPI)
			}
		case "svg":
			if !bytes.Contains(got[0], []byte("@font-face")) {
				t.Errorf("%s: fonts are not embedded", name)
			}
		case "pdf":
			if !bytes.HasPrefix(got[0], []byte("%PDF-")) {
				t.Errorf("%s: not a PDF", name)
			}
			want := "D:" + PDFDate.Format("20060102150405")
			dates := pdfDates.FindAllSubmatch(got[0], -1)
			if len(dates) != 2 {
				t.Errorf("%s: %d dates, want CreationDate and ModDate", name, len(dates))
			}
			for _, d := range dates {
				if string(d[2]) != want {
					t.Errorf("%s: %s %s, want %s (PDFDate)", name, d[1], d[2], want)
				}
			}
		}
		if !bytes.Equal(got[0], got[1]) {
			t.Errorf("%s: two renders differ", name)
		}
		if len(got[0]) > 2<<20 {
			t.Errorf("%s: %d bytes", name, len(got[0]))
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 2 {
			t.Errorf("%s: %d files in the directory, want 2 (no temporaries)", name, len(ents))
		}
	}
}

func TestSaveErrorsLeaveNoFile(t *testing.T) {
	fig := figures(t, "rk3588")["split"]
	dir := t.TempDir()
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "x.bmp"), `".bmp"`},
		{filepath.Join(dir, "x"), "no extension"},
		{filepath.Join(dir, "missing", "x.png"), "missing"},
	} {
		err := Save(fig, tc.path, 4*vg.Inch, 3*vg.Inch)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Save(%s) = %v, want an error naming %s", tc.path, err, tc.want)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("Save(%s): error is not one line: %q", tc.path, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files left behind", len(ents))
	}
	// A failed overwrite leaves the old file alone.
	old := filepath.Join(dir, "keep.png")
	if err := os.WriteFile(old, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Save(fig, old, -1, 3*vg.Inch); err == nil {
		t.Error("negative width: no error")
	}
	if b, _ := os.ReadFile(old); string(b) != "old" {
		t.Errorf("failed save changed the file: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files, want 1", len(ents))
	}
}

func TestBadData(t *testing.T) {
	two, th := []string{"big", "little"}, []int{4, 4}
	good := SplitData{Engines: two, Threads: th, Fracs: []float64{0, 0.5}, TokenTPS: []float64{1, 2}, NativeTPS: 1,
		TokenBalance: math.NaN(), ExpertBalance: math.NaN()}
	if _, err := SplitCurve(good); err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]SplitData{
		"inf":        {Engines: two, Threads: th, Fracs: []float64{0, 0.5}, TokenTPS: []float64{1, math.Inf(1)}, NativeTPS: 1},
		"nan frac":   {Engines: two, Threads: th, Fracs: []float64{0, math.NaN()}, TokenTPS: []float64{1, 2}, NativeTPS: 1},
		"short":      {Engines: two, Threads: th, Fracs: []float64{0, 0.5}, ExpertTPS: []float64{1}, NativeTPS: 1},
		"no curve":   {Engines: two, Threads: th, Fracs: []float64{0, 0.5}, NativeTPS: 1},
		"no engines": {Fracs: []float64{0, 0.5}, TokenTPS: []float64{1, 2}, NativeTPS: 1},
		"no threads": {Engines: two, Fracs: []float64{0, 0.5}, TokenTPS: []float64{1, 2}, NativeTPS: 1},
	} {
		if _, err := SplitCurve(d); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Timeline(TimelineData{Engines: []string{"big"}}); err == nil {
		t.Error("empty timeline: no error")
	}
}

func TestBarsBounded(t *testing.T) {
	s, w := load(t, "rk3588")
	d := simTimeline(t, s, w, seedPlan(s, 0.12, 50), 0)
	t0, t1, err := d.window()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range d.Engines {
		bs := bars(d.Spans, e, t0, t1, (t1-t0)/20000)
		for i := 1; i < len(bs); i++ {
			if bs[i].x0 < bs[i-1].x1-1e-12 {
				t.Fatalf("%s: bars %d and %d overlap", e, i-1, i)
			}
		}
		n += len(bs)
	}
	if n == 0 || n >= len(d.Spans) {
		t.Errorf("%d bars from %d spans: merging did not reduce them", n, len(d.Spans))
	}
	if end := LayerEnd(d.Spans, 2); !(end > 0 && end < t1) {
		t.Errorf("LayerEnd(2) = %g, want inside (0, %g)", end, t1)
	}
}

// SplitOf is a view of a prediction with a sweep: its curves, native, the
// balance points, its threads and each mode's best split, marked and named
// in the legend as the prediction's table prints it.
func TestSplitOf(t *testing.T) {
	s, w := load(t, "rk3588")
	p, d := splitOf(t, s, w, 10, nil)
	if d.SoC != "rk3588" || d.Workload != w.Name || !slices.Equal(d.Engines, []string{"big", "little"}) || d.Poll != 50 ||
		!slices.Equal(d.Threads, p.Threads) || d.Prompt != p.Prompt || d.Ubatch != p.Ubatch {
		t.Errorf("split data %+v", d)
	}
	if len(d.Fracs) != 11 || d.Fracs[0] != 0 || d.Fracs[10] != sim.MaxSecondFrac {
		t.Fatalf("fractions %v, want 0..%g in 10 steps", d.Fracs, sim.MaxSecondFrac)
	}
	if len(d.TokenTPS) != 11 || len(d.ExpertTPS) != 11 || d.NativeTPS != p.Native.TPS {
		t.Fatalf("%d token and %d expert points, native %g; want 11, 11 and %g", len(d.TokenTPS), len(d.ExpertTPS), d.NativeTPS, p.Native.TPS)
	}
	for _, pt := range p.Sweep {
		i := int(math.Round(pt.Frac * 20))
		var got float64
		switch pt.Mode {
		case model.TokenSplit:
			got = d.TokenTPS[i]
		case model.ExpertSplit:
			got = d.ExpertTPS[i]
		}
		if got != pt.TPS {
			t.Errorf("%s at %g: %g t/s drawn, %g predicted", pt.Mode, pt.Frac, got, pt.TPS)
		}
	}
	// At share 0 a split is the dispatcher alone: near native.
	if math.Abs(d.TokenTPS[0]/d.NativeTPS-1) > 0.05 {
		t.Errorf("token split at share 0: %g t/s, native %g", d.TokenTPS[0], d.NativeTPS)
	}
	for _, c := range []struct {
		mode model.Mode
		got  float64
	}{{model.TokenSplit, d.TokenBalance}, {model.ExpertSplit, d.ExpertBalance}} {
		if b, ok := p.Balance(c.mode); ok != !math.IsNaN(c.got) || (ok && b != c.got) {
			t.Errorf("%s balance %g, prediction's %g (%v)", c.mode, c.got, b, ok)
		}
	}
	if len(d.Bests) != len(p.Modes()) {
		t.Fatalf("%d bests for modes %v", len(d.Bests), p.Modes())
	}
	fig, err := SplitCurve(d)
	if err != nil {
		t.Fatal(err)
	}
	var legend []string
	for _, e := range fig.Legend {
		legend = append(legend, e.Label)
	}
	for _, b := range d.Bests {
		pp, _ := p.Plan(b.Mode, predict.Best)
		if b.TPS != pp.TPS || b.GainPct != pp.GainPct || b.Verdict != string(pp.Verdict) ||
			b.IntervalLoPct != pp.Interval.LoPct || b.IntervalHiPct != pp.Interval.HiPct || math.Abs(b.Frac-pp.Frac()) > 1e-12 {
			t.Errorf("%s best %+v, prediction's %+v", b.Mode, b, pp)
		}
		if !strings.Contains(strings.Join(legend, "\n"), BestLabel(b)) {
			t.Errorf("legend %q lacks %q", legend, BestLabel(b))
		}
	}
	if want := "pp512 by split (big 4 + little 4 threads, poll 50)"; !strings.Contains(fig.Title, want) {
		t.Errorf("title %q lacks %q", fig.Title, want)
	}
	// No sweep, or more than two CPU engines: no split curve.
	q, err := predict.Run(predict.Request{SoC: s, Workload: w, Poll: 50, Draws: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SplitOf(q, nil); err == nil || !strings.Contains(err.Error(), "sweep") {
		t.Errorf("a prediction without a sweep: %v", err)
	}
	npu, _ := load(t, "rk3588-npu")
	q, err = predict.Run(predict.Request{SoC: npu, Workload: w, Engines: []string{"big", "npu"}, Poll: 50, Draws: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SplitOf(q, nil); err == nil || !strings.Contains(err.Error(), "big, npu") {
		t.Errorf("a big+npu prediction: %v", err)
	}
}

// TestSplitCurveNamesTest: the split curve's title and axis name the test
// predicted: a tg test's curve is generation throughput, not pp0.
func TestSplitCurveNamesTest(t *testing.T) {
	s, w := load(t, "rk3588")
	for _, tc := range []struct {
		run          model.Run
		title, yAxis string
	}{
		{w.Run, fmt.Sprintf("pp%d by split", w.Run.PromptTokens), "prompt throughput (t/s)"},
		{model.Run{Ubatch: w.Run.Ubatch, GenTokens: 128}, "tg128 by split", "generation throughput (t/s)"},
		{model.Run{PromptTokens: 64, Ubatch: 64, GenTokens: 16}, "pp64+tg16 by split", "prompt and generation throughput (t/s)"},
	} {
		_, d := splitOf(t, s, w.WithRun(tc.run), 4, nil)
		fig, err := SplitCurve(d)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(fig.Title, tc.title) || fig.Panels[0].Y.Label.Text != tc.yAxis {
			t.Errorf("%+v: title %q, y axis %q; want %q and %q", tc.run, fig.Title, fig.Panels[0].Y.Label.Text, tc.title, tc.yAxis)
		}
	}
}
