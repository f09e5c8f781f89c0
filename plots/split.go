package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SplitData is the split curve of one SoC and workload: prompt throughput
// against the little engine's fraction, for token and expert splits.
type SplitData struct {
	SoC, Workload string
	Big, Little   string // engine names
	Poll          int
	// Fracs are the little engine's shares of the expert-op tokens, in
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
	// BigThreads and LittleThreads are the threads the curves were
	// simulated with (SplitPoints matches measurements against them).
	BigThreads, LittleThreads int
	// Measured are measured throughputs drawn over the curves (see
	// SplitPoints); nil draws none.
	Measured []SplitPoint
}

// SplitPoint is a measured throughput placed on the split curve.
type SplitPoint struct {
	// Mode is model.Native (drawn at fraction 0), model.TokenSplit or
	// model.ExpertSplit.
	Mode model.Mode
	// Frac is the little engine's share; TPS the measured throughput and
	// ErrTPS its standard deviation (0 draws no bar).
	Frac, TPS, ErrTPS float64
}

// SplitPoints picks from ms the throughputs measured on the curve's plans:
// of workload w (by name, and by content when the measurement carries its
// workload's YAML), native on its big engine, or a token or expert split
// between its big and little engines, with its threads and poll. Merge runs
// of one configuration first (fit.Merge), or each run is a point of its
// own.
func SplitPoints(ms []measure.Measurement, d SplitData, w *model.Workload) []SplitPoint {
	want, err := model.MarshalWorkload(w)
	if err != nil {
		return nil
	}
	same := map[string]bool{} // workload YAML -> is w
	isW := func(m measure.Measurement) bool {
		if m.Workload != w.Name {
			return false
		}
		if m.WorkloadYAML == "" {
			return true
		}
		if v, ok := same[m.WorkloadYAML]; ok {
			return v
		}
		mw, err := model.ParseWorkload([]byte(m.WorkloadYAML), m.ID)
		var got []byte
		if err == nil {
			got, err = model.MarshalWorkload(mw)
		}
		same[m.WorkloadYAML] = err == nil && string(got) == string(want)
		return same[m.WorkloadYAML]
	}
	var out []SplitPoint
	for _, m := range ms {
		p := m.Plan
		if !IsThroughput(m) || p.Poll != d.Poll || len(p.Engines) != len(p.Threads) || len(p.Engines) == 0 ||
			p.Engines[0] != d.Big || p.Threads[0] != d.BigThreads || !isW(m) {
			continue
		}
		pt := SplitPoint{Mode: model.Mode(p.Mode), TPS: m.Median, ErrTPS: sampleSD(m)}
		switch {
		case pt.Mode == model.Native && len(p.Engines) == 1:
		case (pt.Mode == model.TokenSplit || pt.Mode == model.ExpertSplit) && len(p.Engines) == 2 &&
			p.Engines[1] == d.Little && p.Threads[1] == d.LittleThreads && len(p.Fracs) == 2:
			pt.Frac = p.Fracs[1]
		default:
			continue
		}
		out = append(out, pt)
	}
	return out
}

// SplitOptions are the settings of SweepSplit.
type SplitOptions struct {
	// Poll is the pools' spin level, 0..100 (0 is a level, not a default).
	Poll int
	// BigThreads and LittleThreads default to min(4, the engine's cores) when zero.
	BigThreads, LittleThreads int
	// Steps is the number of intervals over [0, MaxFrac]; zero means 40.
	Steps int
	// MaxFrac is the largest little share swept, in (0, 1]; zero means
	// sim.MaxSecondFrac (0.5).
	MaxFrac float64
}

// SweepSplit simulates native, token and expert splits of w on s over
// little fractions 0..o.MaxFrac and finds the balance points. The
// first two engines of s are big and little.
func SweepSplit(s *model.SoC, w *model.Workload, o SplitOptions) (SplitData, error) {
	if len(s.Engines) < 2 {
		return SplitData{}, fmt.Errorf("plots: %s has one engine; a split needs two", s.Name)
	}
	bt, lt := twoThreads(s, o.BigThreads, o.LittleThreads)
	steps := o.Steps
	if steps == 0 {
		steps = 40
	}
	if steps < 1 || steps > 1000 {
		return SplitData{}, fmt.Errorf("plots: %d steps is outside 1..1000", steps)
	}
	maxFrac := o.MaxFrac
	if maxFrac == 0 {
		maxFrac = sim.MaxSecondFrac
	}
	if !(maxFrac > 0 && maxFrac <= 1) {
		return SplitData{}, fmt.Errorf("plots: largest share %g is outside (0, 1]", maxFrac)
	}
	big, little := s.Engines[0].Name, s.Engines[1].Name
	d := SplitData{SoC: s.Name, Workload: w.Name, Big: big, Little: little, Poll: o.Poll,
		TokenBalance: math.NaN(), ExpertBalance: math.NaN(), BigThreads: bt, LittleThreads: lt}
	nr, err := sim.Run(s, w, model.NewNative(big, bt, o.Poll))
	if err != nil {
		return SplitData{}, err
	}
	d.NativeTPS = nr.TPS
	modes := []model.Mode{model.TokenSplit, model.ExpertSplit}
	var cfgs []sim.Config
	for _, m := range modes {
		for i := 0; i <= steps; i++ {
			f := maxFrac * float64(i) / float64(steps)
			cfgs = append(cfgs, sim.Config{SoC: s, Plan: model.NewSplit(m, big, little, bt, lt, f, o.Poll)})
		}
	}
	res, err := sim.Sweep(w, cfgs)
	if err != nil {
		return SplitData{}, err
	}
	for i := 0; i <= steps; i++ {
		d.Fracs = append(d.Fracs, cfgs[i].Plan.Fracs[1])
		d.TokenTPS = append(d.TokenTPS, res[i].TPS)
		d.ExpertTPS = append(d.ExpertTPS, res[steps+1+i].TPS)
	}
	for i, m := range modes {
		b, err := sim.Balance(s, w, model.NewSplit(m, big, little, bt, lt, 0, o.Poll))
		if err != nil {
			return SplitData{}, err
		}
		if i == 0 {
			d.TokenBalance = b
		} else {
			d.ExpertBalance = b
		}
	}
	return d, nil
}

// twoThreads fills in the thread counts of the first two engines of s that
// are zero: min(4, the engine's cores).
func twoThreads(s *model.SoC, big, little int) (int, int) {
	if big == 0 {
		big = min(4, s.Engines[0].Cores)
	}
	if little == 0 {
		little = min(4, s.Engines[1].Cores)
	}
	return big, little
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func (d *SplitData) check() error {
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
		switch m.Mode {
		case model.Native, model.TokenSplit, model.ExpertSplit:
		default:
			return fmt.Errorf("plots: measured point %d has mode %q, not native, token or expert", i, m.Mode)
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
	p.X.Label.Text = fmt.Sprintf("%s cluster's share of expert-op tokens", d.Little)
	p.Y.Label.Text = "prompt throughput (t/s)"
	p.Add(plotter.NewGrid())
	x0, x1 := d.Fracs[0], d.Fracs[len(d.Fracs)-1]
	for _, m := range d.Measured {
		x0, x1 = math.Min(x0, m.Frac), math.Max(x1, m.Frac)
	}
	lo, hi := d.NativeTPS, d.NativeTPS
	fig := &Figure{Title: fmt.Sprintf("%s on %s: prompt throughput by split (poll %d)", d.Workload, d.SoC, d.Poll)}

	native, err := plotter.NewLine(plotter.XYs{{X: x0, Y: d.NativeTPS}, {X: x1, Y: d.NativeTPS}})
	if err != nil {
		return nil, err
	}
	native.Color, native.Width = black, vg.Points(1)
	p.Add(native)
	fig.Legend = append(fig.Legend, LegendEntry{fmt.Sprintf("native (%s only)", d.Big), native})

	type curve struct {
		name    string
		short   string
		tps     []float64
		balance float64
		clr     draw.LineStyle
		dashes  []vg.Length
	}
	curves := []curve{
		{"token split", "token", d.TokenTPS, d.TokenBalance, draw.LineStyle{Color: blue, Width: vg.Points(2)}, nil},
		{"expert split", "expert", d.ExpertTPS, d.ExpertBalance, draw.LineStyle{Color: vermillion, Width: vg.Points(2)}, []vg.Length{vg.Points(6), vg.Points(2)}},
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
	p.X.Min, p.X.Max = x0, x1
	p.Y.Min, p.Y.Max = ymin, ymax
	fig.Panels = []*plot.Plot{p}
	return fig, nil
}
