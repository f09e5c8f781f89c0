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
	Class        model.KernelClass
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

// RooflineOf places the ops of ubatch 0 of split p: the first engine's
// from native, its run alone, every other engine's partitions of the split
// ops from run, p's own (a partition's rate counts its share of the op);
// both runs with their timelines (a prediction's Traces). It simulates
// nothing.
func RooflineOf(s *model.SoC, w *model.Workload, p model.Plan, native, run *sim.Result) (RooflineData, error) {
	if p.Mode == model.Native || len(p.Engines) < 2 || len(p.Fracs) != len(p.Engines) || len(p.Threads) != len(p.Engines) {
		return RooflineData{}, fmt.Errorf("plots: a roofline places a split over two or more engines, with a share and threads each")
	}
	if err := p.Validate(s); err != nil {
		return RooflineData{}, err
	}
	if native == nil || run == nil || native.Timeline == nil || run.Timeline == nil {
		return RooflineData{}, errors.New("plots: a roofline needs its plan's and native's runs with their timelines (predict.Request.Traces)")
	}
	class := sim.ExpertClass(w)
	d := RooflineData{Title: strings.Replace(PlanTitle(s, w, p), ": ", ": roofline of ubatch 0, ", 1)}
	for i, name := range p.Engines {
		e, _, err := s.Engine(name)
		if err != nil {
			return RooflineData{}, err
		}
		d.Engines = append(d.Engines, RoofEngine{Name: e.Name, Threads: p.Threads[i], Accelerator: e.Kind == model.KindNPU, Class: class,
			ComputeGOPS: e.MatmulGOPS(string(class), p.Threads[i]), BandwidthGBs: math.Min(e.BandwidthGBs(p.Threads[i]), s.DRAM.SustainedGBs)})
	}
	ops := w.Ops(0)
	routing := w.Routing()
	place := func(r *sim.Result, engines []string, shares []float64, only bool) {
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
	}
	place(native, p.Engines[:1], []float64{1}, false)
	place(run, p.Engines[1:], p.Fracs[1:], true)
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
