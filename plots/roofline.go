package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// RoofEngine is one engine's roofs.
type RoofEngine struct {
	Name    string
	Threads int
	// Accelerator says Threads counts accelerator cores (kind npu).
	Accelerator bool
	// Class is the kernel class of ComputeGOPS (the workload's dominant
	// one); ComputeGOPS is the engine's matmul rate for it with Threads
	// threads, BandwidthGBs the most DRAM bandwidth it pulls alone.
	Class        string
	ComputeGOPS  float64
	BandwidthGBs float64
}

// RoofOp is one op's partition on one engine.
type RoofOp struct {
	Name   string
	Kind   model.OpKind
	Engine string
	// Intensity is the op's arithmetic intensity: operations per byte of
	// weights (read once) and activations.
	Intensity float64
	// GOPS is the rate the simulation achieved: the partition's operations
	// over the engine's compute and DRAM-stalled time in it.
	GOPS float64
}

// RooflineData is what Roofline draws.
type RooflineData struct {
	Title   string
	Engines []RoofEngine
	Ops     []RoofOp
}

// RooflineOptions are the settings of SimRoofline.
type RooflineOptions struct {
	// Mode and Frac are the split whose second-engine partitions are
	// placed ("" means model.TokenSplit; Frac 0 means 0.12).
	Mode model.Mode
	Frac float64
	// Poll is the pools' spin level, 0..100.
	Poll int
	// BigThreads and LittleThreads default to min(4, the engine's cores) when zero.
	BigThreads, LittleThreads int
	// Plan, when not nil, is the split placed, over any number of
	// engines: its first engine's ops come from a native run, every other
	// engine's partitions from the split. Mode, Frac and the thread counts
	// are then unused.
	Plan *model.Plan
}

// SimRoofline simulates ubatch 0 natively (placing every op on the first
// engine) and split (placing the other engines' partitions of the split
// ops), and returns every engine's roofs.
func SimRoofline(s *model.SoC, w *model.Workload, o RooflineOptions) (RooflineData, error) {
	if o.Plan != nil {
		return rooflineOf(s, w, *o.Plan)
	}
	if len(s.Engines) < 2 {
		return RooflineData{}, fmt.Errorf("plots: %s has one engine; a split needs two", s.Name)
	}
	bt, lt := twoThreads(s, o.BigThreads, o.LittleThreads)
	mode, frac := o.Mode, o.Frac
	if mode == "" {
		mode = model.TokenSplit
	}
	if frac == 0 {
		frac = 0.12
	}
	if !(frac > 0 && frac < 1) {
		return RooflineData{}, fmt.Errorf("plots: fraction %g is outside (0, 1)", frac)
	}
	big, little := s.Engines[0].Name, s.Engines[1].Name
	d, err := rooflineOf(s, w, model.NewSplit(mode, big, little, bt, lt, frac, o.Poll))
	d.Title = fmt.Sprintf("%s on %s: roofline of ubatch 0 (%s native; %s in a %s split at %.3f), poll %d",
		w.Name, s.Name, big, little, mode, frac, o.Poll)
	return d, err
}

// rooflineOf places the ops of ubatch 0 of split p: the first engine's from
// a native run on it, every other engine's partitions of the split ops
// from p itself (a partition's rate counts its share of the op).
func rooflineOf(s *model.SoC, w *model.Workload, p model.Plan) (RooflineData, error) {
	if p.Mode == model.Native || len(p.Engines) < 2 || len(p.Fracs) != len(p.Engines) || len(p.Threads) != len(p.Engines) {
		return RooflineData{}, fmt.Errorf("plots: a roofline places a split over two or more engines, with a share and threads each")
	}
	if err := p.Validate(s); err != nil {
		return RooflineData{}, err
	}
	class := sim.ExpertClass(w)
	d := RooflineData{Title: strings.Replace(PlanTitle(s, w, p), ": ", ": roofline of ubatch 0, ", 1)}
	for i, name := range p.Engines {
		e, _, err := s.Engine(name)
		if err != nil {
			return RooflineData{}, err
		}
		d.Engines = append(d.Engines, RoofEngine{Name: e.Name, Threads: p.Threads[i], Accelerator: e.Kind == model.KindNPU, Class: class,
			ComputeGOPS: e.MatmulGOPS(class, p.Threads[i]), BandwidthGBs: math.Min(e.BandwidthGBs(p.Threads[i]), s.DRAM.SustainedGBs)})
	}
	ops := w.Ops(0)
	routing := w.Routing()
	place := func(plan model.Plan, engines []string, shares []float64, only bool) error {
		r, err := sim.RunWith(s, w, plan, sim.Options{Timeline: true})
		if err != nil {
			return err
		}
		for i, engine := range engines {
			busy := map[string]float64{}
			for _, sp := range r.Timeline {
				if sp.Engine == engine && (sp.State == sim.Compute || sp.State == sim.DRAMWait) {
					busy[sp.Op] += sp.EndS - sp.StartS
				}
			}
			for _, op := range ops {
				if only && op.Kind != model.ExpertMatmul {
					continue
				}
				t := busy[op.Name]
				bytes := op.WeightBytes + op.ActBytes
				if op.Kind == model.ExpertMatmul && op.ExpertBytes > 0 {
					// The experts the op's tokens reach, not all of them:
					// a one-token tail walks its top-k.
					bytes = routing.ExpectedTouched(float64(op.Tokens))*op.ExpertBytes + op.ActBytes
				}
				if t <= 0 || bytes <= 0 || op.Ops <= 0 {
					continue
				}
				d.Ops = append(d.Ops, RoofOp{Name: op.Name, Kind: op.Kind, Engine: engine,
					Intensity: op.Ops / bytes, GOPS: shares[i] * op.Ops / t / 1e9})
			}
		}
		return nil
	}
	if err := place(model.NewNative(p.Engines[0], p.Threads[0], p.Poll), p.Engines[:1], []float64{1}, false); err != nil {
		return RooflineData{}, err
	}
	if err := place(p, p.Engines[1:], p.Fracs[1:], true); err != nil {
		return RooflineData{}, err
	}
	return d, nil
}

func (d *RooflineData) check() error {
	if len(d.Engines) == 0 {
		return errors.New("plots: roofline has no engines")
	}
	for _, e := range d.Engines {
		if !finite(e.ComputeGOPS) || !finite(e.BandwidthGBs) || e.ComputeGOPS <= 0 || e.BandwidthGBs <= 0 {
			return fmt.Errorf("plots: engine %s has roofs %g GOPS, %g GB/s; want positive finite", e.Name, e.ComputeGOPS, e.BandwidthGBs)
		}
	}
	for i, o := range d.Ops {
		if !finite(o.Intensity) || !finite(o.GOPS) || o.Intensity <= 0 || o.GOPS <= 0 {
			return fmt.Errorf("plots: op %d (%s) has intensity %g, rate %g; want positive finite (log axes)", i, o.Name, o.Intensity, o.GOPS)
		}
	}
	return nil
}

var kindColor = map[model.OpKind]color.Color{
	model.Matmul:          blue,
	model.ExpertMatmul:    vermillion,
	model.AttentionScores: orange,
	model.Scalar:          skyBlue,
}

// Roofline draws each engine's roof (min of its compute rate and its
// bandwidth times intensity) on log-log axes, with the ops placed by
// arithmetic intensity and achieved rate: colour by op kind, shape by
// engine.
func Roofline(d RooflineData) (*Figure, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	xlo, xhi := math.Inf(1), math.Inf(-1)
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, e := range d.Engines {
		knee := e.ComputeGOPS / e.BandwidthGBs
		xlo, xhi = math.Min(xlo, knee), math.Max(xhi, knee)
		yhi = math.Max(yhi, e.ComputeGOPS)
		ylo = math.Min(ylo, e.ComputeGOPS)
	}
	for _, o := range d.Ops {
		xlo, xhi = math.Min(xlo, o.Intensity), math.Max(xhi, o.Intensity)
		ylo, yhi = math.Min(ylo, o.GOPS), math.Max(yhi, o.GOPS)
	}
	// Both axes are log scale: the data are plotted as log10 values (see
	// log10Ticks).
	lg := math.Log10
	xlo, xhi = xlo/3, xhi*3
	ylo, yhi = ylo/2, yhi*1.6
	p := plot.New()
	p.Add(plotter.NewGrid())
	fig := &Figure{Title: d.Title}
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}
	dashes := [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}}
	for i, e := range d.Engines {
		knee := e.ComputeGOPS / e.BandwidthGBs
		// Start the sloped roof where it enters the plot.
		x0 := math.Max(xlo, ylo/e.BandwidthGBs)
		pts := plotter.XYs{{X: lg(x0), Y: lg(e.BandwidthGBs * x0)}, {X: lg(knee), Y: lg(e.ComputeGOPS)}, {X: lg(xhi), Y: lg(e.ComputeGOPS)}}
		if knee <= x0 {
			pts = plotter.XYs{{X: lg(xlo), Y: lg(e.ComputeGOPS)}, {X: lg(xhi), Y: lg(e.ComputeGOPS)}}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width, l.Dashes = black, vg.Points(1.5), dashes[i%len(dashes)]
		p.Add(l)
		units := "threads"
		if e.Accelerator {
			units = "cores"
		}
		fig.Legend = append(fig.Legend, LegendEntry{fmt.Sprintf("%s roof: %.0f GOPS (%s, %d %s), %.1f GB/s", e.Name, e.ComputeGOPS, e.Class, e.Threads, units, e.BandwidthGBs), l})
	}
	kinds := []model.OpKind{model.Matmul, model.ExpertMatmul, model.AttentionScores, model.Scalar}
	for i, e := range d.Engines {
		for _, k := range kinds {
			var xys plotter.XYs
			for _, o := range d.Ops {
				if o.Engine == e.Name && o.Kind == k {
					xys = append(xys, plotter.XY{X: lg(o.Intensity), Y: lg(o.GOPS)})
				}
			}
			if len(xys) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: kindColor[k], Radius: vg.Points(3), Shape: shapes[i%len(shapes)]}
			p.Add(sc)
			fig.Legend = append(fig.Legend, LegendEntry{fmt.Sprintf("%s: %s", e.Name, k), sc})
		}
	}
	p.X.Label.Text = "arithmetic intensity (operations per byte of weights and activations)"
	p.Y.Label.Text = "achieved rate (GOPS)"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lg(xlo), lg(xhi), lg(ylo), lg(yhi)
	p.X.Tick.Marker, p.Y.Tick.Marker = log10Ticks{}, log10Ticks{}
	fig.Panels = []*plot.Plot{p}
	return fig, nil
}
