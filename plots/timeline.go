package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TimelineData is the simulated activity of ubatch 0 and the window of it
// to draw.
type TimelineData struct {
	Title   string
	Engines []string // rows of the Gantt chart, top to bottom
	Spans   []sim.Span
	DRAM    []sim.DRAMSample
	// StartS and EndS bound the window drawn; EndS == 0 means up to the
	// last span.
	StartS, EndS float64
}

// TimelineOf is ubatch 0's timeline of plan p from r, p's run with its
// timeline (sim.Options.Timeline; a prediction's Traces), windowed to
// the first layers (0: the whole ubatch). It simulates nothing.
func TimelineOf(s *model.SoC, w *model.Workload, p model.Plan, r *sim.Result, layers int) (TimelineData, error) {
	if layers < 0 {
		return TimelineData{}, fmt.Errorf("plots: %d layers is negative", layers)
	}
	if r == nil || r.Timeline == nil {
		return TimelineData{}, errors.New("plots: a timeline needs its plan's run with a timeline (predict.Request.Traces)")
	}
	engines := p.Engines
	if p.Mode == model.Native {
		engines = engines[:1]
	}
	d := TimelineData{Title: PlanTitle(s, w, p), Engines: append([]string(nil), engines...), Spans: r.Timeline, DRAM: r.DRAM}
	if layers > 0 {
		d.EndS = LayerEnd(r.Timeline, layers)
		d.Title += fmt.Sprintf(", ubatch 0, layers 0-%d", layers-1)
	} else {
		d.Title += ", ubatch 0"
	}
	return d, nil
}

// PlanTitle names a plan in a figure's title: "qwen3 on cix-p1: token
// split big 0.62 / mid 0.30 / little 0.08, poll 50", or "native (big
// only)".
func PlanTitle(s *model.SoC, w *model.Workload, p model.Plan) string {
	if p.Mode == model.Native || len(p.Engines) == 1 {
		return fmt.Sprintf("%s on %s: native (%s only), %d threads, poll %d", w.Name, s.Name, p.Engines[0], p.Threads[0], p.Poll)
	}
	shares := make([]string, len(p.Engines))
	for i, e := range p.Engines {
		f := 0.0
		if i < len(p.Fracs) {
			f = p.Fracs[i]
		}
		shares[i] = fmt.Sprintf("%s %.3g", e, f)
	}
	threads := make([]string, len(p.Threads))
	for i, t := range p.Threads {
		threads[i] = fmt.Sprint(t)
	}
	return fmt.Sprintf("%s on %s: %s split %s, %s threads, poll %d", w.Name, s.Name, p.Mode, strings.Join(shares, " / "), strings.Join(threads, "+"), p.Poll)
}

// LayerEnd returns the time at which layer n (counting from 0) starts: the
// earliest start of a span of an op named "blk.K.*" with K >= n, or the end
// of the last span when there is none.
func LayerEnd(spans []sim.Span, n int) float64 {
	end, last := math.Inf(1), 0.0
	for _, s := range spans {
		last = math.Max(last, s.EndS)
		rest, ok := strings.CutPrefix(s.Op, "blk.")
		if !ok {
			continue
		}
		num, _, _ := strings.Cut(rest, ".")
		if k, err := strconv.Atoi(num); err == nil && k >= n {
			end = math.Min(end, s.StartS)
		}
	}
	if math.IsInf(end, 1) {
		return last
	}
	return end
}

// bar is one drawn rectangle.
type bar struct {
	x0, x1 float64
	st     sim.State
}

var stateColor = map[sim.State]color.Color{
	sim.Compute:  blue,
	sim.DRAMWait: orange,
	sim.Handoff:  vermillion,
}

// bars clips the spans of engine to [t0, t1], drops idle ones and those
// narrower than minW, and merges neighbours of the same state, so that the
// number of rectangles is bounded by the number of state changes.
func bars(spans []sim.Span, engine string, t0, t1, minW float64) []bar {
	var in []bar
	for _, s := range spans {
		if s.Engine != engine || s.State == sim.Idle {
			continue
		}
		x0, x1 := math.Max(s.StartS, t0), math.Min(s.EndS, t1)
		if x1 > x0 {
			in = append(in, bar{x0, x1, s.State})
		}
	}
	sort.SliceStable(in, func(i, j int) bool { return in[i].x0 < in[j].x0 })
	var out []bar
	for _, b := range in {
		if n := len(out); n > 0 && out[n-1].st == b.st && b.x0-out[n-1].x1 <= minW {
			out[n-1].x1 = math.Max(out[n-1].x1, b.x1)
			continue
		}
		out = append(out, b)
	}
	kept := out[:0]
	for _, b := range out {
		if b.x1-b.x0 >= minW {
			kept = append(kept, b)
		}
	}
	return kept
}

// gantt is a plot.Plotter drawing one row of bars per engine.
type gantt struct {
	rows   [][]bar
	t0, t1 float64
}

// Plot implements plot.Plotter.
func (g *gantt) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	n := len(g.rows)
	for i, row := range g.rows {
		y := float64(n - 1 - i)
		ylo, yhi := trY(y-0.38), trY(y+0.38)
		for _, b := range row {
			c.SetColor(stateColor[b.st])
			var path vg.Path
			x0, x1 := trX(b.x0), trX(b.x1)
			path.Move(vg.Point{X: x0, Y: ylo})
			path.Line(vg.Point{X: x1, Y: ylo})
			path.Line(vg.Point{X: x1, Y: yhi})
			path.Line(vg.Point{X: x0, Y: yhi})
			path.Close()
			c.Fill(path)
		}
	}
}

// DataRange implements plot.DataRanger.
func (g *gantt) DataRange() (xmin, xmax, ymin, ymax float64) {
	return g.t0, g.t1, -0.5, float64(len(g.rows)) - 0.5
}

// blankTicks keeps another ticker's ticks and drops their labels.
type blankTicks struct{ plot.Ticker }

func (b blankTicks) Ticks(min, max float64) []plot.Tick {
	ts := b.Ticker.Ticks(min, max)
	for i := range ts {
		ts[i].Label = ""
	}
	return ts
}

// window returns the drawn interval of d.
func (d *TimelineData) window() (t0, t1 float64, err error) {
	if len(d.Engines) == 0 {
		return 0, 0, errors.New("plots: timeline has no engines")
	}
	if len(d.Spans) == 0 {
		return 0, 0, errors.New("plots: timeline has no spans (run with sim.Options{Timeline: true})")
	}
	last := 0.0
	for i, s := range d.Spans {
		if !finite(s.StartS) || !finite(s.EndS) || s.EndS < s.StartS {
			return 0, 0, fmt.Errorf("plots: span %d (%s %s) has bad times [%g, %g]", i, s.Engine, s.Op, s.StartS, s.EndS)
		}
		last = math.Max(last, s.EndS)
	}
	for i, s := range d.DRAM {
		if !finite(s.StartS) || !finite(s.EndS) || !finite(s.Mean) || !finite(s.Peak) {
			return 0, 0, fmt.Errorf("plots: DRAM sample %d is not finite", i)
		}
	}
	t0, t1 = d.StartS, d.EndS
	if t1 == 0 {
		t1 = last
	}
	if !finite(t0) || !finite(t1) || t1 <= t0 {
		return 0, 0, fmt.Errorf("plots: window [%g, %g] s is empty", t0, t1)
	}
	return t0, t1, nil
}

// Timeline draws d: a Gantt chart per engine (compute, DRAM-stalled and
// handoff in distinct colours, idle blank) above DRAM utilisation (mean as
// a step line, peak lighter) on the same time axis.
func Timeline(d TimelineData) (*Figure, error) {
	t0, t1, err := d.window()
	if err != nil {
		return nil, err
	}
	minW := (t1 - t0) / 20000
	g := &gantt{t0: t0, t1: t1}
	var ticks []plot.Tick
	for i, e := range d.Engines {
		g.rows = append(g.rows, bars(d.Spans, e, t0, t1, minW))
		ticks = append(ticks, plot.Tick{Value: float64(len(d.Engines) - 1 - i), Label: e})
	}
	top := plot.New()
	top.Add(g)
	top.Y.Tick.Marker = plot.ConstantTicks(ticks)
	top.X.Tick.Marker = blankTicks{plot.DefaultTicks{}}
	top.Y.Label.Text = "engine"

	bottom := plot.New()
	bottom.Add(plotter.NewGrid())
	var mean, peak plotter.XYs
	ymax := 100.0
	for _, s := range d.DRAM {
		x0, x1 := math.Max(s.StartS, t0), math.Min(s.EndS, t1)
		if x1 < x0 {
			continue
		}
		mean = append(mean, plotter.XY{X: x0, Y: 100 * s.Mean}, plotter.XY{X: x1, Y: 100 * s.Mean})
		peak = append(peak, plotter.XY{X: x0, Y: 100 * s.Peak}, plotter.XY{X: x1, Y: 100 * s.Peak})
		ymax = math.Max(ymax, 100*s.Peak)
	}
	fig := &Figure{Title: d.Title, Heights: []float64{2, 3}}
	for _, st := range []struct {
		s    sim.State
		name string
	}{{sim.Compute, "compute"}, {sim.DRAMWait, "DRAM-stalled"}, {sim.Handoff, "handoff"}} {
		fig.Legend = append(fig.Legend, LegendEntry{st.name, swatch{stateColor[st.s]}})
	}
	for _, l := range []struct {
		xys  plotter.XYs
		name string
		sty  draw.LineStyle
	}{
		{peak, "DRAM peak", draw.LineStyle{Color: skyBlue, Width: vg.Points(1)}},
		{mean, "DRAM mean", draw.LineStyle{Color: black, Width: vg.Points(1.5)}},
	} {
		if len(l.xys) == 0 {
			continue
		}
		ln, err := plotter.NewLine(l.xys)
		if err != nil {
			return nil, err
		}
		ln.LineStyle = l.sty
		bottom.Add(ln)
		fig.Legend = append(fig.Legend, LegendEntry{l.name, ln})
	}
	bottom.X.Label.Text = "time in ubatch 0 (s)"
	bottom.Y.Label.Text = "DRAM utilisation (%)"
	for _, p := range []*plot.Plot{top, bottom} {
		p.X.Min, p.X.Max = t0, t1
	}
	bottom.Y.Min, bottom.Y.Max = 0, ymax*1.05
	fig.Panels = []*plot.Plot{top, bottom}
	return fig, nil
}
