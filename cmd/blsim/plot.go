package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/internal/cli"
	"github.com/blsim/blsim/internal/outguard"
	"github.com/blsim/blsim/internal/progress"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/plots"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
	"github.com/spf13/cobra"
)

// plotOptions are the flags of `blsim plot`.
type plotOptions struct {
	cli.RequestFlags
	// warn gets the warnings (bad measurement lines, SoC values that
	// cannot matter): the command's stderr.
	warn   io.Writer
	Kind   string
	Layers int
	Output string
	// parity, split: the measurements and how runs of one configuration
	// merge; heatmap: its axes; parity: log axes.
	Measurements string
	Stat         string
	XParam       string
	YParam       string
	Log          bool
	// Shares is the old name of --frac for N-engine shares.
	Shares string
}

// plotKinds are the kinds `blsim plot` draws.
var plotKinds = []string{"split", "timeline", "parity", "heatmap", "roofline", "threads"}

func newPlotCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &plotOptions{warn: stderr}
	cmd := &cobra.Command{
		Use:   "plot split|timeline|parity|heatmap|roofline|threads -o FILE",
		Short: "Draw the split curve, a timeline, parity, what-if heatmap or roofline as PNG, SVG or PDF",
		Long: `Draw a figure into FILE, in the format its extension names (.png, .svg, .pdf).

Every figure is a view of one prediction, made from the same flags as blsim
predict (--soc, --workload, --engines, --engine-threads, --split, --frac, --poll,
--prompt, --ubatch), so its numbers are the ones blsim predict prints.

` + plots.KindsHelp,
		Example: `  blsim plot split -o split.png
  blsim plot timeline --soc ddr5 --frac 0.15 --layers 2 -o timeline.svg
  blsim plot parity -o parity.png
  blsim plot parity --soc my.yaml --measurements runs.jsonl --log -o parity.pdf
  blsim plot heatmap --soc ddr5 -o heatmap.png
  blsim plot heatmap --soc rk3588-npu --engines big,npu -o heatmap-npu.png
  blsim plot roofline -o roofline.svg
  blsim plot timeline --soc cix-p1 --engines big,mid,little -o timeline-3.png
  blsim plot roofline --soc rk3588-npu --engines big,npu --frac 0.3 -o roofline-npu.svg`,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("plot: want one kind, %s; got %d arguments", strings.Join(plotKinds, ", "), len(args))
			}
			o.Kind = args[0]
			return plotRun(o, stdout)
		},
	}
	f := cmd.Flags()
	o.Register(f)
	o.Command = "plot"
	addGGUFFlag(cmd, &o.Workload)
	f.IntVar(&o.Layers, "layers", 2, "timeline: draw the first N layers of ubatch 0 (0: all of it)")
	f.StringVarP(&o.Output, "output", "o", "", "output file: .png, .svg or .pdf (required)")
	f.StringVar(&o.Measurements, "measurements", "", "parity, split: measurements file (JSONL; default for rk3588: the seed's figures)")
	f.StringVar(&o.XParam, "x-param", "", "heatmap: x axis: dram, compute-ratio or a SoC parameter path (default dram)")
	f.StringVar(&o.YParam, "y-param", "", "heatmap: y axis: dram, compute-ratio or a SoC parameter path (default compute-ratio)")
	f.BoolVar(&o.Log, "log", false, "parity: log axes")
	f.StringVar(&o.Stat, "stat", "median", "parity, split: what the runs of one configuration count as: median or best (see blsim fit --help)")
	f.StringVar(&o.Shares, "shares", "", "the old name of --frac")
	_ = f.MarkDeprecated("shares", "use --frac, which takes the same shares (or auto) in every command")
	return cmd
}

func plotRun(o *plotOptions, stdout io.Writer) error {
	if !slices.Contains(plotKinds, o.Kind) {
		return fmt.Errorf("plot: unknown kind %q; want %s", o.Kind, strings.Join(plotKinds, ", "))
	}
	if o.Output == "" {
		return fmt.Errorf("plot: -o FILE is required")
	}
	if _, err := plots.Format(o.Output); err != nil {
		return err
	}
	if err := outguard.Check(o.Flags, nil, "output"); err != nil {
		return err
	}
	if o.Shares != "" {
		if o.Given("frac") {
			return fmt.Errorf("--shares: give --frac or --shares (its old name), not both")
		}
		o.Frac = o.Shares
		_ = o.Flags.Set("frac", o.Shares)
	}
	if o.Layers < 0 {
		return fmt.Errorf("--layers: %d is negative", o.Layers)
	}
	o.Progress = o.warn
	// Measurements first: the request predicts their workload.
	var m *cli.Measured
	if o.Kind == "parity" || (o.Kind == "split" && (o.Measurements != "" || presets.SoCPreset(o.SoC) == seedSoC)) {
		var err error
		if m, err = o.ReadMeasurements(o.Measurements, o.Stat, o.warn); err != nil {
			return err
		}
	}
	q, err := o.Request()
	if err != nil {
		return err
	}
	if err := o.honoured(q); err != nil {
		return err
	}
	s, wl := q.SoC, q.Workload
	kind := plots.Kind(o.Kind)
	vd := plots.ViewData{SoC: s, Workload: wl, Layers: o.Layers, LogAxes: o.Log}
	var p *predict.Prediction
	switch kind {
	case plots.KindParity:
		ms, err := o.Merge(m, q)
		if err != nil {
			return err
		}
		predicted, fitted := fit.Parity(s, wl.WithRun(o.OwnRun), m.Raw)
		if vd.Parity, err = predict.ParityPoints(ms, predicted, fitted); err != nil {
			return fmt.Errorf("parity: %s: %w", m.Src, err)
		}
	case plots.KindSplit:
		if p, err = o.splitCurve(q, m, &vd); err != nil {
			return err
		}
	case plots.KindThreads:
		if vd.Threads, err = predict.ThreadsBeside(q, o.OwnRun, nil); err != nil {
			return o.FlagError(err, q)
		}
	default:
		q.Traces = kind == plots.KindTimeline || kind == plots.KindRoofline
		if p, err = o.predict(q); err != nil {
			return err
		}
		if kind == plots.KindHeatmap {
			cells, finish := progress.Lazy(o.warn, "what-if cells")
			heat, err := predict.WhatIfOf(p, s, wl, predict.WhatIfOptions{XParam: o.XParam, YParam: o.YParam, Progress: cells})
			finish()
			if err != nil {
				return err
			}
			vd.WhatIf = &heat
		}
	}
	fig, err := plots.View(kind, p, vd)
	if err != nil {
		return err
	}
	w, h := kind.Size()
	if err := plots.Save(fig, o.Output, w, h); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", o.Output)
	return nil
}

// honoured refuses the flags a kind of figure would not honour.
func (o *plotOptions) honoured(q predict.Request) error {
	if o.Kind == "split" && !q.TwoEngine() {
		return fmt.Errorf("--engines: plot split draws one share between two CPU engines, not %s (heatmap, timeline and roofline take more)", strings.Join(q.Engines, ","))
	}
	return plots.CheckFlags(o.Kind, func(f string) bool { return o.Given(f) || (f == "frac" && o.Shares != "") })
}

// splitCurve predicts the split curve, with the measurements m (nil:
// none) on its plans, far enough to the right for every measured share.
func (o *plotOptions) splitCurve(q predict.Request, m *cli.Measured, vd *plots.ViewData) (*predict.Prediction, error) {
	var ms []measure.Measurement
	if m != nil {
		var err error
		if ms, err = o.Merge(m, q); err != nil {
			return nil, err
		}
	}
	q.Sweep, q.SweepSteps, q.SweepMaxFrac = true, 40, predict.MeasuredMaxFrac(ms)
	p, err := o.predict(q)
	if err != nil {
		return nil, err
	}
	if ms != nil {
		if vd.Measured = predict.SplitPoints(ms, p, q.Workload.WithRun(o.OwnRun)); len(vd.Measured) == 0 && o.Measurements != "" {
			return nil, fmt.Errorf("--measurements: nothing in %s was measured on the curve's plans (workload %s, %s+%s, %d+%d threads, poll %d)",
				m.Src, q.Workload.Name, p.Engines[0], p.Engines[1], p.Threads[0], p.Threads[1], p.Poll)
		}
	}
	return p, nil
}

// predict runs the request and prints its warnings.
func (o *plotOptions) predict(q predict.Request) (*predict.Prediction, error) {
	p, err := o.Run(q)
	if err != nil {
		return nil, err
	}
	cli.Warn(o.warn, p, o.SoC)
	return p, nil
}

// seedSoC is the preset whose measurements default to the seed's figures.
const seedSoC = presets.SeedSoC
