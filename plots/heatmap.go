package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Heatmap axis parameters with a meaning beyond one SoC parameter path.
const (
	// ParamDRAM is the DRAM system's sustained bandwidth in GB/s. Setting
	// it scales dram.sustained_gb_s, dram.peak_gb_s and every engine's
	// bandwidth_max_gb_s by the same factor: faster memory lets each
	// cluster pull proportionally more, so the clusters' shares of the bus
	// stay as calibrated.
	ParamDRAM = "dram"
	// ParamComputeRatio is the second (little) engine's per-core matmul
	// rate for the workload's dominant kernel class over the first (big)
	// engine's (kernel_ops_per_cycle x clock). Setting it scales all of
	// the second engine's kernel_ops_per_cycle by the same factor; clocks,
	// bandwidth and scalar rates stay.
	ParamComputeRatio = "compute-ratio"
)

// HeatmapOptions are the settings of SweepHeatmap.
type HeatmapOptions struct {
	// XParam and YParam are ParamDRAM, ParamComputeRatio or a SoC
	// parameter path (see model.SoC.Get); "" means ParamDRAM on x and
	// ParamComputeRatio on y.
	XParam, YParam string
	// XValues and YValues are the cell centres, increasing; nil means NX
	// (NY) values evenly from 0.5x to 3x the studied SoC's value.
	XValues, YValues []float64
	// NX and NY default to 12 and 10.
	NX, NY int
	// Mode is the split mode; "" means model.TokenSplit.
	Mode model.Mode
	// Poll is the pools' spin level, 0..100.
	Poll int
	// BigThreads and LittleThreads default to 4 when zero.
	BigThreads, LittleThreads int
	// FracSteps is how many little fractions in (0, sim.MaxSecondFrac]
	// each cell tries (evenly spaced); zero means 20 (steps of 0.025).
	FracSteps int
}

// HeatmapData is the best split's gain over native across two SoC
// parameters.
type HeatmapData struct {
	SoC, Workload string
	Mode          model.Mode
	Poll          int
	XParam        string
	YParam        string
	XLabel        string
	YLabel        string
	// X and Y are the cell centres, increasing.
	X, Y []float64
	// Gain[j][i] is the best split's gain over native in percent at
	// (X[i], Y[j]); BestFrac[j][i] is the little fraction that gives it.
	Gain     [][]float64
	BestFrac [][]float64
	// AtX, AtY locate the studied SoC; AtGain and AtFrac are its best
	// gain (percent) and fraction, from sim.Best.
	AtX, AtY       float64
	AtGain, AtFrac float64
}

// heatParam is one axis of the heatmap: how to read and set it.
type heatParam struct {
	name, label string
	get         func(s *model.SoC) (float64, error)
	set         func(s *model.SoC, v float64) error
}

// dominantClass is the kernel class of the workload's routed-expert ops
// with the most operations (the ops a split divides), or of all matmuls
// when there are none.
func dominantClass(w *model.Workload) string {
	by := map[string]float64{}
	var all = map[string]float64{}
	for _, op := range w.Ops(0) {
		switch op.Kind {
		case model.ExpertMatmul:
			by[op.Class] += op.Ops
			all[op.Class] += op.Ops
		case model.Matmul:
			all[op.Class] += op.Ops
		}
	}
	if len(by) == 0 {
		by = all
	}
	best, bv := "q4", -1.0
	for _, c := range []string{"q4", "q6", "q8", "f16", "f32"} {
		if by[c] > bv {
			best, bv = c, by[c]
		}
	}
	return best
}

func scaleParams(s *model.SoC, k float64, paths []string) error {
	for _, p := range paths {
		v, err := s.Get(p)
		if err != nil {
			return err
		}
		if err := s.Set(p, v*k); err != nil {
			return err
		}
	}
	return nil
}

func heatParamFor(name string, s *model.SoC, w *model.Workload) (heatParam, error) {
	switch name {
	case ParamDRAM:
		get := func(s *model.SoC) (float64, error) { return s.DRAM.SustainedGBs, nil }
		return heatParam{name: name, label: "DRAM sustained bandwidth (GB/s; cluster caps scaled with it)", get: get,
			set: func(s *model.SoC, v float64) error {
				if !(v > 0) || s.DRAM.SustainedGBs <= 0 {
					return fmt.Errorf("plots: DRAM bandwidth %g GB/s is not positive", v)
				}
				paths := []string{"dram.sustained_gb_s", "dram.peak_gb_s"}
				for _, e := range s.Engines {
					paths = append(paths, "engines."+e.Name+".bandwidth_max_gb_s")
				}
				return scaleParams(s, v/s.DRAM.SustainedGBs, paths)
			}}, nil
	case ParamComputeRatio:
		if len(s.Engines) < 2 {
			return heatParam{}, fmt.Errorf("plots: %s has one engine; a compute ratio needs two", s.Name)
		}
		class := dominantClass(w)
		get := func(s *model.SoC) (float64, error) {
			big, little := &s.Engines[0], &s.Engines[1]
			b := big.KernelOpsPerCycle[class] * big.ClockGHz
			if !(b > 0) {
				return 0, fmt.Errorf("plots: engine %s has no %s rate", big.Name, class)
			}
			return little.KernelOpsPerCycle[class] * little.ClockGHz / b, nil
		}
		return heatParam{name: name,
			label: fmt.Sprintf("%s/%s per-core matmul rate (%s, ops/cycle x GHz)", s.Engines[1].Name, s.Engines[0].Name, class),
			get:   get,
			set: func(s *model.SoC, v float64) error {
				r0, err := get(s)
				if err != nil {
					return err
				}
				if !(v > 0) || !(r0 > 0) {
					return fmt.Errorf("plots: compute ratio %g is not positive", v)
				}
				e := &s.Engines[1]
				for k, x := range e.KernelOpsPerCycle {
					e.KernelOpsPerCycle[k] = x * v / r0
				}
				return nil
			}}, nil
	}
	if _, err := s.Get(name); err != nil {
		return heatParam{}, fmt.Errorf("plots: %w (or use %s or %s)", err, ParamDRAM, ParamComputeRatio)
	}
	return heatParam{name: name, label: name,
		get: func(s *model.SoC) (float64, error) { return s.Get(name) },
		set: func(s *model.SoC, v float64) error { return s.Set(name, v) }}, nil
}

func axisValues(given []float64, n int, base float64, name string) ([]float64, error) {
	if given != nil {
		if len(given) < 2 {
			return nil, fmt.Errorf("plots: %s needs at least two values", name)
		}
		for i, v := range given {
			if !finite(v) || (i > 0 && v <= given[i-1]) {
				return nil, fmt.Errorf("plots: %s values are not finite and increasing at %d", name, i)
			}
		}
		return append([]float64(nil), given...), nil
	}
	if n < 2 || n > 200 {
		return nil, fmt.Errorf("plots: %d %s cells is outside 2..200", n, name)
	}
	if !(base > 0) || !finite(base) {
		return nil, fmt.Errorf("plots: %s is %g at the studied SoC; give its values explicitly", name, base)
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = base * (0.5 + 2.5*float64(i)/float64(n-1))
	}
	return out, nil
}

// SweepHeatmap computes, on a grid of what-if variants of s, the best
// split's gain over native: at each cell a native run and FracSteps split
// runs, all in one sim.Sweep.
func SweepHeatmap(s *model.SoC, w *model.Workload, o HeatmapOptions) (HeatmapData, error) {
	if len(s.Engines) < 2 {
		return HeatmapData{}, fmt.Errorf("plots: %s has one engine; a split needs two", s.Name)
	}
	bt, lt, nx, ny, fs := o.BigThreads, o.LittleThreads, o.NX, o.NY, o.FracSteps
	if bt == 0 {
		bt = 4
	}
	if lt == 0 {
		lt = 4
	}
	if nx == 0 {
		nx = 12
	}
	if ny == 0 {
		ny = 10
	}
	if fs == 0 {
		fs = 20
	}
	if fs < 1 || fs > 200 {
		return HeatmapData{}, fmt.Errorf("plots: %d fraction steps is outside 1..200", fs)
	}
	mode := o.Mode
	if mode == "" {
		mode = model.TokenSplit
	}
	if mode == model.Native {
		return HeatmapData{}, errors.New("plots: a heatmap of gain over native needs a split mode")
	}
	xn, yn := o.XParam, o.YParam
	if xn == "" {
		xn = ParamDRAM
	}
	if yn == "" {
		yn = ParamComputeRatio
	}
	if xn == yn {
		return HeatmapData{}, fmt.Errorf("plots: x and y are both %s", xn)
	}
	xp, err := heatParamFor(xn, s, w)
	if err != nil {
		return HeatmapData{}, err
	}
	yp, err := heatParamFor(yn, s, w)
	if err != nil {
		return HeatmapData{}, err
	}
	x0, err := xp.get(s)
	if err != nil {
		return HeatmapData{}, err
	}
	y0, err := yp.get(s)
	if err != nil {
		return HeatmapData{}, err
	}
	xs, err := axisValues(o.XValues, nx, x0, "x ("+xn+")")
	if err != nil {
		return HeatmapData{}, err
	}
	ys, err := axisValues(o.YValues, ny, y0, "y ("+yn+")")
	if err != nil {
		return HeatmapData{}, err
	}
	big, little := s.Engines[0].Name, s.Engines[1].Name
	native := model.NewNative(big, bt, o.Poll)
	per := fs + 1
	cfgs := make([]sim.Config, 0, len(xs)*len(ys)*per)
	for _, y := range ys {
		for _, x := range xs {
			v := s.Clone()
			if err := xp.set(v, x); err != nil {
				return HeatmapData{}, err
			}
			if err := yp.set(v, y); err != nil {
				return HeatmapData{}, err
			}
			if err := v.Validate(); err != nil {
				return HeatmapData{}, fmt.Errorf("plots: what-if %s=%g, %s=%g: %w", xn, x, yn, y, err)
			}
			cfgs = append(cfgs, sim.Config{SoC: v, Plan: native})
			for k := 1; k <= fs; k++ {
				f := sim.MaxSecondFrac * float64(k) / float64(fs)
				cfgs = append(cfgs, sim.Config{SoC: v, Plan: model.NewSplit(mode, big, little, bt, lt, f, o.Poll)})
			}
		}
	}
	res, err := sim.Sweep(w, cfgs)
	if err != nil {
		return HeatmapData{}, err
	}
	d := HeatmapData{SoC: s.Name, Workload: w.Name, Mode: mode, Poll: o.Poll, XParam: xn, YParam: yn,
		XLabel: xp.label, YLabel: yp.label, X: xs, Y: ys, AtX: x0, AtY: y0}
	c := 0
	for range ys {
		grow := make([]float64, len(xs))
		frow := make([]float64, len(xs))
		for i := range xs {
			nat := res[c].TPS
			best, bf := math.Inf(-1), 0.0
			for k := 1; k <= fs; k++ {
				if t := res[c+k].TPS; t > best {
					best, bf = t, cfgs[c+k].Plan.Fracs[1]
				}
			}
			grow[i], frow[i] = sim.GainPct(best, nat), bf
			c += per
		}
		d.Gain = append(d.Gain, grow)
		d.BestFrac = append(d.BestFrac, frow)
	}
	nr, err := sim.Run(s, w, native)
	if err != nil {
		return HeatmapData{}, err
	}
	bf, br, err := sim.Best(s, w, model.NewSplit(mode, big, little, bt, lt, 0, o.Poll))
	if err != nil {
		return HeatmapData{}, err
	}
	d.AtGain, d.AtFrac = sim.GainPct(br.TPS, nr.TPS), bf
	return d, nil
}

// gainGrid adapts HeatmapData to plotter.GridXYZ.
type gainGrid struct{ d *HeatmapData }

func (g gainGrid) Dims() (c, r int)   { return len(g.d.X), len(g.d.Y) }
func (g gainGrid) Z(c, r int) float64 { return g.d.Gain[r][c] }
func (g gainGrid) X(c int) float64    { return g.d.X[c] }
func (g gainGrid) Y(r int) float64    { return g.d.Y[r] }

func increasing(v []float64) bool {
	for i, x := range v {
		if !finite(x) || (i > 0 && x <= v[i-1]) {
			return false
		}
	}
	return true
}

func (d *HeatmapData) check() (maxAbs float64, err error) {
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
	return maxAbs, nil
}

// Heatmap draws d: the gain as colour on a diverging scale centred on 0
// (red loses, blue gains, symmetric range), the parity contour (gain 0)
// and the ±1% parity band as contours, the studied SoC as a labelled
// marker, and a colour bar.
func Heatmap(d HeatmapData) (*Figure, error) {
	maxAbs, err := d.check()
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
	hm := plotter.NewHeatMap(gainGrid{&d}, rev.Palette(255))
	hm.Min, hm.Max = -lim, lim
	p.Add(hm)
	fig := &Figure{
		Title: fmt.Sprintf("%s: best %s-split gain over native (poll %d), what-if around %s", d.Workload, d.Mode, d.Poll, d.SoC),
	}
	for _, c := range []struct {
		level float64
		name  string
		style draw.LineStyle
	}{
		{0, "gain 0 (parity)", draw.LineStyle{Color: black, Width: vg.Points(2)}},
		{1, "±1% (parity band)", draw.LineStyle{Color: black, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}},
		{-1, "", draw.LineStyle{Color: black, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}},
	} {
		ct := plotter.NewContour(gainGrid{&d}, []float64{c.level}, nil)
		ct.LineStyles = []draw.LineStyle{c.style}
		ct.Min, ct.Max = -lim, lim
		p.Add(ct)
		if c.name != "" {
			l, err := plotter.NewLine(plotter.XYs{{}, {X: 1}})
			if err != nil {
				return nil, err
			}
			l.LineStyle = c.style
			fig.Legend = append(fig.Legend, LegendEntry{c.name, l})
		}
	}
	// Cell edges: half a cell beyond the first and last centres.
	xmin := d.X[0] - (d.X[1]-d.X[0])/2
	xmax := d.X[len(d.X)-1] + (d.X[len(d.X)-1]-d.X[len(d.X)-2])/2
	ymin := d.Y[0] - (d.Y[1]-d.Y[0])/2
	ymax := d.Y[len(d.Y)-1] + (d.Y[len(d.Y)-1]-d.Y[len(d.Y)-2])/2
	if d.AtX >= xmin && d.AtX <= xmax && d.AtY >= ymin && d.AtY <= ymax {
		sc, err := plotter.NewScatter(plotter.XYs{{X: d.AtX, Y: d.AtY}})
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: black, Radius: vg.Points(5), Shape: draw.RingGlyph{}}
		in, err := plotter.NewScatter(plotter.XYs{{X: d.AtX, Y: d.AtY}})
		if err != nil {
			return nil, err
		}
		in.GlyphStyle = draw.GlyphStyle{Color: color.White, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(in, sc)
		p.Add(&pointLabels{xys: plotter.XYs{{X: d.AtX, Y: d.AtY}},
			labels: []string{fmt.Sprintf("%s: %+.1f%% at %.3f", d.SoC, d.AtGain, d.AtFrac)},
			style:  labelText{size: 10, background: true}})
		fig.Legend = append(fig.Legend, LegendEntry{"studied SoC (best gain at its best fraction)", sc})
	}
	p.X.Label.Text = d.XLabel
	p.Y.Label.Text = d.YLabel
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xmin, xmax, ymin, ymax

	bar := plot.New()
	cb := &plotter.ColorBar{ColorMap: rev}
	bar.Add(cb)
	bar.HideY()
	bar.X.Label.Text = fmt.Sprintf("best %s-split gain over native (%%)", d.Mode)
	bar.X.Min, bar.X.Max = -lim, lim
	fig.Panels = []*plot.Plot{p, bar}
	fig.Heights = []float64{8, 1.3}
	return fig, nil
}
