package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/sim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// gainGrid adapts predict.WhatIf to plotter.GridXYZ, in plot coordinates
// (log10 of the values on a log axis).
type gainGrid struct{ d *predict.WhatIf }

func (g gainGrid) Dims() (c, r int)   { return len(g.d.X), len(g.d.Y) }
func (g gainGrid) Z(c, r int) float64 { return g.d.Gain[r][c] }
func (g gainGrid) X(c int) float64    { return axisCoord(g.d.X[c], g.d.LogX) }
func (g gainGrid) Y(r int) float64    { return axisCoord(g.d.Y[r], g.d.LogY) }

// axisCoord is where value v sits on an axis: v, or log10 v on a log axis.
// A log axis is drawn in log10 coordinates (so that heatmap cells and
// contours are even in it) and labelled by heatLogTicks with the values.
func axisCoord(v float64, log bool) float64 {
	if log {
		return math.Log10(v)
	}
	return v
}

// heatLogTicks labels a heatmap axis drawn in log10 coordinates with the
// values: 1-2-5 per decade, 1-3 over more than three decades, finer over
// less than about one (log10Ticks labels only decades over wide ranges,
// too few for a heatmap's axis).
type heatLogTicks struct{}

func (heatLogTicks) Ticks(lo, hi float64) []plot.Tick {
	mant := []float64{1, 2, 5}
	switch span := hi - lo; {
	case span > 3:
		mant = []float64{1, 3}
	case span < 1.2:
		mant = []float64{1, 1.5, 2, 3, 5, 7}
	}
	var ticks []plot.Tick
	for k := math.Floor(lo) - 1; k <= math.Ceil(hi); k++ {
		for _, m := range mant {
			v := m * math.Pow(10, k)
			lv := math.Log10(v)
			if lv < lo-1e-9 || lv > hi+1e-9 {
				continue
			}
			// Round away binary noise (0.30000000000000004).
			r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
			ticks = append(ticks, plot.Tick{Value: lv, Label: strconv.FormatFloat(r, 'f', -1, 64)})
		}
	}
	return ticks
}

// filledPalette is p with any nil colour (moreland's diverging map fails
// at its exact midpoint, so the palette's middle entry is nil and a cell
// of gain ~0 would be left blank) replaced by its neighbour's.
func filledPalette(p palette.Palette) palette.Palette {
	cs := append([]color.Color(nil), p.Colors()...)
	for i, c := range cs {
		if c != nil {
			continue
		}
		switch {
		case i+1 < len(cs) && cs[i+1] != nil:
			cs[i] = cs[i+1]
		case i > 0:
			cs[i] = cs[i-1]
		}
	}
	return colors(cs)
}

// colors is a palette.Palette of fixed colours.
type colors []color.Color

func (c colors) Colors() []color.Color { return c }

// shareText lists the shares of the engines after the first: "npu 0.76".
func shareText(engines []string, fracs []float64) string {
	var parts []string
	for i := 1; i < len(engines) && i < len(fracs); i++ {
		parts = append(parts, fmt.Sprintf("%s %.3f", engines[i], math.Round(fracs[i]*1e4)/1e4))
	}
	return strings.Join(parts, ", ")
}

func increasing(v []float64) bool {
	for i, x := range v {
		if !finite(x) || (i > 0 && x <= v[i-1]) {
			return false
		}
	}
	return true
}

func checkWhatIf(d *predict.WhatIf) (maxAbs float64, err error) {
	if len(d.X) < 2 || len(d.Y) < 2 {
		return 0, errors.New("plots: heatmap needs at least 2x2 cells")
	}
	if !increasing(d.X) || !increasing(d.Y) {
		return 0, errors.New("plots: heatmap axes are not finite and increasing")
	}
	if len(d.Gain) != len(d.Y) {
		return 0, fmt.Errorf("plots: heatmap has %d gain rows for %d y values", len(d.Gain), len(d.Y))
	}
	for j, row := range d.Gain {
		if len(row) != len(d.X) {
			return 0, fmt.Errorf("plots: heatmap row %d has %d gains for %d x values", j, len(row), len(d.X))
		}
		for i, g := range row {
			if !finite(g) {
				return 0, fmt.Errorf("plots: heatmap gain at (%d, %d) is %g", i, j, g)
			}
			maxAbs = math.Max(maxAbs, math.Abs(g))
		}
	}
	if !finite(d.AtX) || !finite(d.AtY) || !finite(d.AtGain) {
		return 0, errors.New("plots: heatmap's studied point is not finite")
	}
	if (d.LogX && !(d.X[0] > 0 && d.AtX > 0)) || (d.LogY && !(d.Y[0] > 0 && d.AtY > 0)) {
		return 0, errors.New("plots: heatmap has a log axis with values that are not positive")
	}
	return maxAbs, nil
}

// crosses says whether the gain reaches level somewhere and exceeds it
// somewhere else: whether a contour at level is drawn.
func crosses(d *predict.WhatIf, level float64) bool {
	below, above := false, false
	for _, row := range d.Gain {
		for _, g := range row {
			below = below || g <= level
			above = above || g > level
		}
	}
	return below && above
}

// Heatmap draws d: the gain as colour on a diverging scale centred on 0
// (red loses, blue gains, symmetric range), the gain-0 contour and the
// verdict's boundaries (sim.VerdictRule: WIN above, LOSS below, with the
// studied split's interval moved to each cell; WhatIf.VerdictLevels) as
// contours, the cells whose best plan is the dispatcher alone (ALONE)
// marked, the studied SoC as a labelled marker with its verdict, and a
// colour bar.
func Heatmap(d predict.WhatIf) (*Figure, error) {
	maxAbs, err := checkWhatIf(&d)
	if err != nil {
		return nil, err
	}
	// Symmetric range, at least ±2% so the ±1% band is inside it and
	// Min < Max.
	lim := math.Max(2, math.Ceil(maxAbs))
	cm := moreland.SmoothBlueRed()
	cm.SetMin(-lim)
	cm.SetMax(lim)
	rev := palette.Reverse(cm) // blue gains, red loses
	p := plot.New()
	hm := plotter.NewHeatMap(gainGrid{&d}, filledPalette(rev.Palette(255)))
	hm.Min, hm.Max = -lim, lim
	p.Add(hm)
	fig := &Figure{
		Title: fmt.Sprintf("%s: best %s-split gain over native (%s threads, poll %d), what-if around %s", d.Workload, d.Mode, threadText(d.Engines, d.Threads), d.Poll, d.SoC),
	}
	if d.NWay {
		fig.Title = fmt.Sprintf("%s: best %s split over %s (BestN) vs native (%s threads, poll %d), what-if around %s",
			d.Workload, d.Mode, strings.Join(d.Engines, "+"), threadText(d.Engines, d.Threads), d.Poll, d.SoC)
	}
	win, loss := d.VerdictLevels()
	dashed := draw.LineStyle{Color: black, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
	for _, c := range []struct {
		level float64
		name  string
		style draw.LineStyle
	}{
		{0, "gain 0", draw.LineStyle{Color: black, Width: vg.Points(2)}},
		{win, verdictBandText(win, loss), dashed},
		{loss, "", dashed},
	} {
		ct := plotter.NewContour(gainGrid{&d}, []float64{c.level}, nil)
		ct.LineStyles = []draw.LineStyle{c.style}
		ct.Min, ct.Max = -lim, lim
		p.Add(ct)
		if c.name != "" && (crosses(&d, c.level) || (c.level == win && crosses(&d, loss))) {
			// The best split can always give the helpers nothing, so it
			// rarely loses: the legend names only the contours drawn.
			l, err := plotter.NewLine(plotter.XYs{{}, {X: 1}})
			if err != nil {
				return nil, err
			}
			l.LineStyle = c.style
			fig.Legend = append(fig.Legend, LegendEntry{c.name, l})
		}
	}
	if err := markAlone(p, fig, &d); err != nil {
		return nil, err
	}
	// Cell edges: half a cell beyond the first and last centres (in plot
	// coordinates).
	g := gainGrid{&d}
	nx, ny := g.Dims()
	xmin := g.X(0) - (g.X(1)-g.X(0))/2
	xmax := g.X(nx-1) + (g.X(nx-1)-g.X(nx-2))/2
	ymin := g.Y(0) - (g.Y(1)-g.Y(0))/2
	ymax := g.Y(ny-1) + (g.Y(ny-1)-g.Y(ny-2))/2
	atX, atY := axisCoord(d.AtX, d.LogX), axisCoord(d.AtY, d.LogY)
	if atX >= xmin && atX <= xmax && atY >= ymin && atY <= ymax {
		sc, err := plotter.NewScatter(plotter.XYs{{X: atX, Y: atY}})
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: black, Radius: vg.Points(5), Shape: draw.RingGlyph{}}
		in, err := plotter.NewScatter(plotter.XYs{{X: atX, Y: atY}})
		if err != nil {
			return nil, err
		}
		in.GlyphStyle = draw.GlyphStyle{Color: color.White, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(in, sc)
		label, entry := fmt.Sprintf("%s: %+.2f%% at %.3f%s", d.SoC, d.AtGain, math.Round(d.AtFrac*1e4)/1e4, atVerdict(&d)), "studied SoC (best gain at its best fraction)"
		if d.NWay {
			label = fmt.Sprintf("%s: %+.2f%% (%s)%s", d.SoC, d.AtGain, shareText(d.Engines, d.AtFracs), atVerdict(&d))
			entry = "studied SoC (best gain at its best shares)"
		}
		p.Add(&pointLabels{xys: plotter.XYs{{X: atX, Y: atY}},
			labels: []string{label},
			style:  labelText{size: 10, background: true}})
		fig.Legend = append(fig.Legend, LegendEntry{entry, sc})
		fig.Labels = append(fig.Labels, label)
	}
	p.X.Label.Text = d.XLabel
	p.Y.Label.Text = d.YLabel
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xmin, xmax, ymin, ymax
	if d.LogX {
		p.X.Tick.Marker = heatLogTicks{}
	}
	if d.LogY {
		p.Y.Tick.Marker = heatLogTicks{}
	}

	bar := plot.New()
	cb := &plotter.ColorBar{ColorMap: rev}
	bar.Add(cb)
	bar.HideY()
	bar.X.Label.Text = fmt.Sprintf("best %s-split gain over native (%%)", d.Mode)
	if d.NWay {
		bar.X.Label.Text = fmt.Sprintf("best %s-split gain over native, %s (%%)", d.Mode, strings.Join(d.Engines, "+"))
	}
	bar.X.Min, bar.X.Max = -lim, lim
	fig.Panels = []*plot.Plot{p, bar}
	fig.Heights = []float64{8, 1.3}
	return fig, nil
}

// threadText is "big 4 + little 8", or "?" when the threads are unknown.
func threadText(engines []string, threads []int) string {
	if len(threads) != len(engines) {
		return "?"
	}
	parts := make([]string, len(engines))
	for i, e := range engines {
		parts[i] = fmt.Sprintf("%s %d", e, threads[i])
	}
	return strings.Join(parts, " + ")
}

// verdictBandText names the verdict boundaries in the legend: "WIN above
// +1%, LOSS below -1% (verdict rule)".
func verdictBandText(win, loss float64) string {
	return fmt.Sprintf("WIN above %+.3g%%, LOSS below %+.3g%% (the verdict rule, studied interval)", win, loss)
}

// atVerdict is the studied SoC's verdict for its label: " PARITY", or ""
// when the grid has none (a WhatIf built by hand).
func atVerdict(d *predict.WhatIf) string {
	if d.AtVerdict == "" {
		return ""
	}
	return " " + string(d.AtVerdict)
}

// markAlone marks the cells whose verdict is ALONE (their best plan gives
// the helpers nothing and gains as a WIN would), with a legend entry when
// there are any.
func markAlone(p *plot.Plot, fig *Figure, d *predict.WhatIf) error {
	var xys plotter.XYs
	for j, row := range d.Verdict {
		for i, v := range row {
			if v == sim.Alone {
				xys = append(xys, plotter.XY{X: axisCoord(d.X[i], d.LogX), Y: axisCoord(d.Y[j], d.LogY)})
			}
		}
	}
	if len(xys) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: black, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}
	p.Add(sc)
	fig.Legend = append(fig.Legend, LegendEntry{"ALONE: the dispatcher alone, helpers given nothing", sc})
	return nil
}
