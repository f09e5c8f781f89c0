package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/blsim/blsim/predict"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ParityData is what Parity draws.
type ParityData struct {
	SoC, Workload string
	Points        []predict.ParityPoint
	// Band is the relative half-width of the shaded band around y = x;
	// zero means 0.05 (±5%).
	Band float64
	// LogAxes draws both axes on a log scale.
	LogAxes bool
	// Unit is the throughput unit; "" means "t/s".
	Unit string
}

func (d *ParityData) check() error {
	if len(d.Points) == 0 {
		return errors.New("plots: parity plot has no points")
	}
	if d.Band < 0 || d.Band >= 1 || math.IsNaN(d.Band) {
		return fmt.Errorf("plots: band %g is outside [0, 1)", d.Band)
	}
	for i, p := range d.Points {
		if !finite(p.Measured) || !finite(p.Predicted) || !finite(p.MeasuredErr) ||
			p.Measured <= 0 || p.Predicted <= 0 || p.MeasuredErr < 0 {
			return fmt.Errorf("plots: parity point %d (%s) is not a positive finite measurement and prediction", i, p.Label)
		}
		if p.InFit < predict.FitUnknown || p.InFit > predict.HeldOut {
			return fmt.Errorf("plots: parity point %d (%s): InFit %d is none of FitUnknown, Fitted, HeldOut", i, p.Label, p.InFit)
		}
	}
	return nil
}

// errXYs is points with horizontal error bars.
type errXYs struct {
	plotter.XYs
	lo, hi []float64
}

func (e errXYs) XError(i int) (float64, float64) { return e.lo[i], e.hi[i] }

// YError makes errXYs vertical error bars too (lo below, hi above).
func (e errXYs) YError(i int) (float64, float64) { return e.lo[i], e.hi[i] }

// clipPolygon clips a polygon to the box [x0,x1]x[y0,y1]
// (Sutherland–Hodgman), so that fills stay inside the data area.
func clipPolygon(pts plotter.XYs, x0, x1, y0, y1 float64) plotter.XYs {
	type edge struct {
		in  func(p plotter.XY) bool
		cut func(a, b plotter.XY) plotter.XY
	}
	atX := func(x float64) func(a, b plotter.XY) plotter.XY {
		return func(a, b plotter.XY) plotter.XY {
			t := (x - a.X) / (b.X - a.X)
			return plotter.XY{X: x, Y: a.Y + t*(b.Y-a.Y)}
		}
	}
	atY := func(y float64) func(a, b plotter.XY) plotter.XY {
		return func(a, b plotter.XY) plotter.XY {
			t := (y - a.Y) / (b.Y - a.Y)
			return plotter.XY{X: a.X + t*(b.X-a.X), Y: y}
		}
	}
	edges := []edge{
		{func(p plotter.XY) bool { return p.X >= x0 }, atX(x0)},
		{func(p plotter.XY) bool { return p.X <= x1 }, atX(x1)},
		{func(p plotter.XY) bool { return p.Y >= y0 }, atY(y0)},
		{func(p plotter.XY) bool { return p.Y <= y1 }, atY(y1)},
	}
	out := pts
	for _, e := range edges {
		in := out
		out = nil
		for i, cur := range in {
			prev := in[(i+len(in)-1)%len(in)]
			switch {
			case e.in(cur) && e.in(prev):
				out = append(out, cur)
			case e.in(cur):
				out = append(out, e.cut(prev, cur), cur)
			case e.in(prev):
				out = append(out, e.cut(prev, cur))
			}
		}
		if len(out) == 0 {
			return nil
		}
	}
	return out
}

// log10Ticks labels an axis whose data are log10 of the values shown:
// decades when the range spans several, otherwise round linear values,
// placed at their logarithms. Plotting log10 values on a linear axis
// avoids plot.LogScale's mis-padding of axis labels and its panics at
// values <= 0.
type log10Ticks struct{}

func (log10Ticks) Ticks(min, max float64) []plot.Tick {
	lo, hi := math.Pow(10, min), math.Pow(10, max)
	var ts []plot.Tick
	if hi/lo > 30 {
		ts = plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	} else {
		ts = plot.DefaultTicks{}.Ticks(lo, hi)
	}
	var out []plot.Tick
	for _, t := range ts {
		if t.Value <= 0 {
			continue
		}
		v := math.Log10(t.Value)
		if v >= min && v <= max {
			out = append(out, plot.Tick{Value: v, Label: t.Label})
		}
	}
	return out
}

// Parity draws predicted against measured throughput: the y = x line, a
// shaded ±Band band, each point with its measured spread as a horizontal
// error bar and its label; the MAPE and over which points (predict.ParityScore:
// fitted, in-sample, or held out) are in the title, and fitted points are
// drawn apart from held-out ones, each named in the legend.
func Parity(d ParityData) (*Figure, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	band := d.Band
	if band == 0 {
		band = 0.05
	}
	unit := d.Unit
	if unit == "" {
		unit = "t/s"
	}
	// On log axes the data are log10 values on linear axes (see
	// log10Ticks); tr maps a value to its plotted coordinate.
	tr := func(v float64) float64 { return v }
	if d.LogAxes {
		tr = math.Log10
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	var xys plotter.XYs
	var ebs errXYs
	var labels []string
	var bars []hbar
	for _, p := range d.Points {
		x, y := tr(p.Measured), tr(p.Predicted)
		xys = append(xys, plotter.XY{X: x, Y: y})
		labels = append(labels, p.Label)
		left := p.Measured - p.MeasuredErr
		if d.LogAxes && left <= 0 {
			left = p.Measured / 10
		}
		lo = math.Min(lo, math.Min(p.Predicted, left))
		hi = math.Max(hi, math.Max(p.Predicted, p.Measured+p.MeasuredErr))
		if p.MeasuredErr > 0 {
			ebs.XYs = append(ebs.XYs, plotter.XY{X: x, Y: y})
			ebs.lo = append(ebs.lo, x-tr(left))
			ebs.hi = append(ebs.hi, tr(p.Measured+p.MeasuredErr)-x)
			bars = append(bars, hbar{tr(left), tr(p.Measured + p.MeasuredErr), y})
		}
	}
	if d.LogAxes {
		// At least a factor 1.25 (about ±11%) so the band is visible, and
		// some room on either side.
		f := math.Max(math.Sqrt(1.25/(hi/lo)), 1) * math.Pow(hi/lo, 0.08)
		lo, hi = lo/f, hi*f
	} else {
		c, h := (lo+hi)/2, (hi-lo)/2
		h = math.Max(h*1.15, 0.09*c)
		lo, hi = math.Max(c-h, 0), c+h
	}
	// The band's edges y = x(1±band) are straight lines on both scales;
	// sample them at the range's ends.
	edge := func(x, k float64) plotter.XY { return plotter.XY{X: tr(x), Y: tr(x * k)} }
	poly0 := plotter.XYs{edge(lo, 1-band), edge(hi, 1-band), edge(hi, 1+band), edge(lo, 1+band)}
	lo, hi = tr(lo), tr(hi)
	p := plot.New()
	p.Add(plotter.NewGrid())
	// The band, clipped to the data area (plots do not clip).
	poly := clipPolygon(poly0, lo, hi, lo, hi)
	fig := &Figure{}
	if len(poly) >= 3 {
		pg, err := plotter.NewPolygon(poly)
		if err != nil {
			return nil, err
		}
		pg.Color = color.RGBA{0xd8, 0xd8, 0xd8, 0xff}
		pg.LineStyle.Width = 0
		p.Add(pg)
		fig.Legend = append(fig.Legend, LegendEntry{fmt.Sprintf("±%g%% of measured", 100*band), swatch{pg.Color}})
	}
	diag, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return nil, err
	}
	diag.Color, diag.Width = black, vg.Points(1)
	p.Add(diag)
	fig.Legend = append([]LegendEntry{{"predicted = measured", diag}}, fig.Legend...)
	if len(ebs.XYs) > 0 {
		eb, err := plotter.NewXErrorBars(ebs)
		if err != nil {
			return nil, err
		}
		eb.Color, eb.Width = blue, vg.Points(1.2)
		eb.CapWidth = vg.Points(6)
		p.Add(eb)
	}
	// One scatter per InFit: held-out points blue discs, fitted ones
	// orange squares, each named in the legend when told.
	score := predict.ScoreParity(d.Points)
	for _, g := range []struct {
		in    predict.InFit
		n     int
		color color.Color
		shape draw.GlyphDrawer
		what  string
	}{
		{predict.FitUnknown, score.Unknown, blue, draw.CircleGlyph{}, ""},
		{predict.HeldOut, score.HeldOut, blue, draw.CircleGlyph{}, "held-out points: "},
		{predict.Fitted, score.Fitted, orange, draw.BoxGlyph{}, "fitted points (in-sample): "},
	} {
		if g.n == 0 {
			continue
		}
		var gxys plotter.XYs
		for i, pt := range d.Points {
			if pt.InFit == g.in {
				gxys = append(gxys, xys[i])
			}
		}
		sc, err := plotter.NewScatter(gxys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: g.color, Radius: vg.Points(3.5), Shape: g.shape}
		p.Add(sc)
		fig.Legend = append(fig.Legend, LegendEntry{g.what + "measured median ± 1σ vs predicted", sc})
	}
	p.Add(&pointLabels{xys: xys, labels: labels, hbars: bars, style: labelText{size: 9, background: true}})
	fig.Labels = append(fig.Labels, labels...)
	p.X.Label.Text = fmt.Sprintf("measured prompt throughput (%s)", unit)
	p.Y.Label.Text = fmt.Sprintf("predicted prompt throughput (%s)", unit)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	if d.LogAxes {
		p.X.Tick.Marker, p.Y.Tick.Marker = log10Ticks{}, log10Ticks{}
		p.X.Label.Text += ", log scale"
		p.Y.Label.Text += ", log scale"
	}
	var what []string
	if d.Workload != "" {
		what = append(what, d.Workload)
	}
	if d.SoC != "" {
		what = append(what, "on "+d.SoC)
	}
	title := "Parity"
	if len(what) > 0 {
		title += ": " + strings.Join(what, " ")
	}
	fig.Title = fmt.Sprintf("%s — %s", title, score)
	fig.Panels = []*plot.Plot{p}
	return fig, nil
}
