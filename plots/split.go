package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SplitData is the split curve of one SoC and workload: prompt throughput
// against the second engine's share, for token and expert splits.
type SplitData struct {
	SoC, Workload string
	Engines       []string // the two engines' names, main first
	Poll          int
	// Fracs are the second engine's shares of the expert-op tokens, in
	// increasing order; TokenTPS and ExpertTPS are the throughput at each
	// (either may be nil to leave that curve out, not both).
	Fracs     []float64
	TokenTPS  []float64
	ExpertTPS []float64
	// NativeTPS is the throughput on the big engine alone.
	NativeTPS float64
	// TokenBalance and ExpertBalance are the fractions at which both
	// engines finish the split ops together; NaN when there is none.
	TokenBalance, ExpertBalance float64
	// Threads are the threads of Engines the curves were simulated with
	// (SplitPoints matches measurements against them).
	Threads []int
	// Prompt and Ubatch are the run predicted; Test names it as
	// llama-bench does (pp512, tg128, pp512+tg128; "": pp of Prompt).
	Prompt, Ubatch int
	Test           string
	// Bests are each mode's best split, marked on its curve.
	Bests []SplitBest
	// Measured are measured throughputs drawn over the curves (see
	// predict.SplitPoints); nil draws none.
	Measured []predict.SplitPoint
}

// SplitBest is a mode's best split, marked on the curve.
type SplitBest struct {
	Mode          model.Mode
	Frac, TPS     float64
	GainPct       float64
	Verdict       string
	IntervalLoPct float64
	IntervalHiPct float64
}

// SplitOf is the split curve of prediction p, which must be of two CPU
// engines with a sweep (predict.Request.Sweep): its curves, native, the
// balance points and each mode's best split, with the measured points
// given (predict.SplitPoints; nil draws none).
func SplitOf(p *predict.Prediction, measured []predict.SplitPoint) (SplitData, error) {
	if !p.TwoEngine() {
		return SplitData{}, fmt.Errorf("plots: a split curve is of two CPU engines, not %s", strings.Join(p.Engines, ", "))
	}
	if len(p.Sweep) == 0 {
		return SplitData{}, errors.New("plots: the prediction has no sweep to draw (predict.Request.Sweep)")
	}
	d := SplitData{SoC: p.SoC, Workload: p.Workload, Engines: p.Engines, Poll: p.Poll,
		NativeTPS: p.Native.TPS, TokenBalance: math.NaN(), ExpertBalance: math.NaN(),
		Threads: p.Threads, Prompt: p.Prompt, Ubatch: p.Ubatch, Test: p.Test, Measured: measured}
	first := p.Sweep[0].Mode
	for _, pt := range p.Sweep {
		if pt.Mode == first {
			d.Fracs = append(d.Fracs, pt.Frac)
		}
		switch pt.Mode {
		case model.TokenSplit:
			d.TokenTPS = append(d.TokenTPS, pt.TPS)
		case model.ExpertSplit:
			d.ExpertTPS = append(d.ExpertTPS, pt.TPS)
		}
	}
	if b, ok := p.Balance(model.TokenSplit); ok {
		d.TokenBalance = b
	}
	if b, ok := p.Balance(model.ExpertSplit); ok {
		d.ExpertBalance = b
	}
	for _, m := range p.Modes() {
		if b, ok := p.Plan(m, predict.Best); ok {
			d.Bests = append(d.Bests, SplitBest{Mode: m, Frac: b.Frac(), TPS: b.TPS, GainPct: b.GainPct, Verdict: string(b.Verdict),
				IntervalLoPct: b.Interval.LoPct, IntervalHiPct: b.Interval.HiPct})
		}
	}
	return d, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func (d *SplitData) check() error {
	if len(d.Engines) != 2 || len(d.Threads) != 2 {
		return fmt.Errorf("plots: a split curve is of two engines with their threads, not %d engines and %d thread counts", len(d.Engines), len(d.Threads))
	}
	if len(d.Fracs) < 2 {
		return errors.New("plots: split curve needs at least two fractions")
	}
	if d.TokenTPS == nil && d.ExpertTPS == nil {
		return errors.New("plots: split curve has neither token nor expert throughput")
	}
	for _, c := range []struct {
		name string
		v    []float64
	}{{"TokenTPS", d.TokenTPS}, {"ExpertTPS", d.ExpertTPS}} {
		if c.v != nil && len(c.v) != len(d.Fracs) {
			return fmt.Errorf("plots: %s has %d values for %d fractions", c.name, len(c.v), len(d.Fracs))
		}
		for i, v := range c.v {
			if !finite(v) || v < 0 {
				return fmt.Errorf("plots: %s[%d] = %g is not a finite throughput", c.name, i, v)
			}
		}
	}
	for i, f := range d.Fracs {
		if !finite(f) || (i > 0 && f <= d.Fracs[i-1]) {
			return fmt.Errorf("plots: Fracs[%d] = %g is not finite and increasing", i, f)
		}
	}
	if !finite(d.NativeTPS) || d.NativeTPS < 0 {
		return fmt.Errorf("plots: NativeTPS = %g is not a finite throughput", d.NativeTPS)
	}
	for i, m := range d.Measured {
		if !finite(m.Frac) || m.Frac < 0 || m.Frac > 1 || !finite(m.TPS) || m.TPS < 0 || !finite(m.ErrTPS) || m.ErrTPS < 0 {
			return fmt.Errorf("plots: measured point %d (%s f=%g, %g ± %g t/s) is not a finite throughput at a share in [0,1]", i, m.Mode, m.Frac, m.TPS, m.ErrTPS)
		}
		if m.Mode != model.Native && !m.Mode.IsSplit() {
			return fmt.Errorf("plots: measured point %d has mode %q, not %s", i, m.Mode, model.ModeList(append([]model.Mode{model.Native}, model.SplitModes()...)))
		}
	}
	return nil
}

// SplitCurve draws d: a line per split mode, native as a horizontal line,
// each balance point as a dashed vertical line labelled with its fraction,
// and the measured points with their error bars.
func SplitCurve(d SplitData) (*Figure, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	p := plot.New()
	p.X.Label.Text = fmt.Sprintf("%s cluster's share of expert-op tokens", d.Engines[1])
	test := d.Test
	if test == "" {
		test = fmt.Sprintf("pp%d", d.Prompt)
	}
	switch {
	case strings.HasPrefix(test, "tg"):
		p.Y.Label.Text = "generation throughput (t/s)"
	case strings.Contains(test, "+tg"):
		p.Y.Label.Text = "prompt and generation throughput (t/s)"
	default:
		p.Y.Label.Text = "prompt throughput (t/s)"
	}
	p.Add(plotter.NewGrid())
	x0, x1 := d.Fracs[0], d.Fracs[len(d.Fracs)-1]
	for _, m := range d.Measured {
		x0, x1 = math.Min(x0, m.Frac), math.Max(x1, m.Frac)
	}
	lo, hi := d.NativeTPS, d.NativeTPS
	fig := &Figure{Title: fmt.Sprintf("%s on %s: %s by split (%s %d + %s %d threads, poll %d)",
		d.Workload, d.SoC, test, d.Engines[0], d.Threads[0], d.Engines[1], d.Threads[1], d.Poll)}

	native, err := plotter.NewLine(plotter.XYs{{X: x0, Y: d.NativeTPS}, {X: x1, Y: d.NativeTPS}})
	if err != nil {
		return nil, err
	}
	native.Color, native.Width = black, vg.Points(1)
	p.Add(native)
	fig.Legend = append(fig.Legend, LegendEntry{fmt.Sprintf("native (%s only)", d.Engines[0]), native})

	type curve struct {
		name    string
		short   string
		tps     []float64
		balance float64
		clr     draw.LineStyle
		dashes  []vg.Length
	}
	curves := []curve{
		{"token split", string(model.TokenSplit), d.TokenTPS, d.TokenBalance, draw.LineStyle{Color: blue, Width: vg.Points(2)}, nil},
		{"expert split", string(model.ExpertSplit), d.ExpertTPS, d.ExpertBalance, draw.LineStyle{Color: vermillion, Width: vg.Points(2)}, []vg.Length{vg.Points(6), vg.Points(2)}},
	}
	for _, c := range curves {
		if c.tps == nil {
			continue
		}
		xys := make(plotter.XYs, len(d.Fracs))
		for i := range d.Fracs {
			xys[i] = plotter.XY{X: d.Fracs[i], Y: c.tps[i]}
			lo, hi = math.Min(lo, c.tps[i]), math.Max(hi, c.tps[i])
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.LineStyle = c.clr
		l.Dashes = c.dashes
		p.Add(l)
		fig.Legend = append(fig.Legend, LegendEntry{c.name, l})
	}
	for _, m := range d.Measured {
		lo, hi = math.Min(lo, m.TPS-m.ErrTPS), math.Max(hi, m.TPS+m.ErrTPS)
	}
	// Headroom above the curves for the balance labels.
	span := hi - lo
	if span <= 0 {
		span = math.Max(1, hi*0.1)
	}
	ymin, ymax := lo-0.05*span, hi+0.25*span
	k := 0
	for _, c := range curves {
		if c.tps == nil || !finite(c.balance) || c.balance < x0 || c.balance > x1 {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: c.balance, Y: ymin}, {X: c.balance, Y: ymax}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = c.clr.Color, vg.Points(1)
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		// Stacked in the headroom, right of the line in the left part of
		// the axis and left of it beyond.
		lb, err := plotter.NewLabels(plotter.XYLabels{
			XYs:    plotter.XYs{{X: c.balance, Y: ymax - (0.05+0.11*float64(k))*span}},
			Labels: []string{fmt.Sprintf("%s balance %.3f", c.short, c.balance)},
		})
		if err != nil {
			return nil, err
		}
		ts := textStyle(9)
		ts.Color, ts.YAlign = c.clr.Color, draw.YCenter
		lb.Offset = vg.Point{X: vg.Points(3)}
		if c.balance > x0+0.7*(x1-x0) {
			ts.XAlign = draw.XRight
			lb.Offset.X = -lb.Offset.X
		}
		lb.TextStyle[0] = ts
		p.Add(lb)
		fig.Labels = append(fig.Labels, lb.Labels...)
		k++
	}
	for _, g := range []struct {
		mode  model.Mode
		name  string
		color color.Color
		shape draw.GlyphDrawer
	}{
		{model.Native, "measured native", black, draw.BoxGlyph{}},
		{model.TokenSplit, "measured token split", blue, draw.CircleGlyph{}},
		{model.ExpertSplit, "measured expert split", vermillion, draw.TriangleGlyph{}},
	} {
		var pts errXYs
		for _, m := range d.Measured {
			if m.Mode == g.mode {
				pts.XYs = append(pts.XYs, plotter.XY{X: m.Frac, Y: m.TPS})
				pts.lo, pts.hi = append(pts.lo, m.ErrTPS), append(pts.hi, m.ErrTPS)
			}
		}
		if len(pts.XYs) == 0 {
			continue
		}
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		eb.Color, eb.Width, eb.CapWidth = g.color, vg.Points(1), vg.Points(5)
		p.Add(eb)
		sc, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: g.color, Radius: vg.Points(3.5), Shape: g.shape}
		p.Add(sc)
		fig.Legend = append(fig.Legend, LegendEntry{g.name + " ± 1σ", sc})
	}
	for _, b := range d.Bests {
		clr := blue
		if b.Mode == model.ExpertSplit {
			clr = vermillion
		}
		sc, err := plotter.NewScatter(plotter.XYs{{X: b.Frac, Y: b.TPS}})
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: clr, Radius: vg.Points(5), Shape: draw.PyramidGlyph{}}
		p.Add(sc)
		fig.Legend = append(fig.Legend, LegendEntry{BestLabel(b), sc})
	}
	p.X.Min, p.X.Max = x0, x1
	p.Y.Min, p.Y.Max = ymin, ymax
	fig.Panels = []*plot.Plot{p}
	return fig, nil
}

// BestLabel is the legend of a mode's best split: its share, gain,
// interval and verdict, as the prediction's table prints them.
func BestLabel(b SplitBest) string {
	return fmt.Sprintf("best %s split %.3f: %+.2f%% [%+.1f, %+.1f]%% %s", b.Mode, math.Round(b.Frac*1e4)/1e4, b.GainPct, b.IntervalLoPct, b.IntervalHiPct, b.Verdict)
}
