package main

import (
	"fmt"
	"io"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/plots"
	"github.com/blsim/blsim/presets"
	"github.com/spf13/cobra"
	"gonum.org/v1/plot/vg"
)

// plotOptions are the flags of `blsim plot`.
type plotOptions struct {
	Kind     string
	SoC      string
	Workload string
	Poll     int
	Frac     float64
	Split    string
	Layers   int
	Output   string
}

func newPlotCmd(stdout io.Writer) *cobra.Command {
	o := &plotOptions{}
	cmd := &cobra.Command{
		Use:   "plot split|timeline -o FILE",
		Short: "Draw the split curve or a ubatch timeline as PNG, SVG or PDF",
		Long: `Draw a figure into FILE, in the format its extension names (.png, .svg, .pdf).

split:    prompt throughput against the little engine's share, 0 to 0.5, for
          token and expert splits, with native and the balance points.
timeline: ubatch 0 of one split plan (--split, --frac) as a Gantt chart per
          engine over DRAM utilisation; --layers limits it to the first layers.`,
		Example: `  blsim plot split -o split.png
  blsim plot timeline --soc ddr5 --frac 0.15 --layers 2 -o timeline.svg`,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("plot: want one kind, split or timeline; got %d arguments", len(args))
			}
			o.Kind = args[0]
			return plotRun(o, stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.SoC, "soc", "rk3588", "SoC profile: a preset name or a YAML file")
	f.StringVar(&o.Workload, "workload", "qwen3.5-35b-a3b", "workload: a preset name or a YAML file")
	f.IntVar(&o.Poll, "poll", 50, "spin level of the pools, 0..100 (ggml --poll)")
	f.Float64Var(&o.Frac, "frac", 0.12, "timeline: the little engine's share of the split ops, 0..1")
	f.StringVar(&o.Split, "split", "token", "timeline: how to split the expert ops: token or expert")
	f.IntVar(&o.Layers, "layers", 2, "timeline: draw the first N layers of ubatch 0 (0: all of it)")
	f.StringVarP(&o.Output, "output", "o", "", "output file: .png, .svg or .pdf (required)")
	return cmd
}

func plotRun(o *plotOptions, stdout io.Writer) error {
	if o.Kind != "split" && o.Kind != "timeline" {
		return fmt.Errorf("plot: unknown kind %q; want split or timeline", o.Kind)
	}
	if o.Output == "" {
		return fmt.Errorf("plot: -o FILE is required")
	}
	if _, err := plots.Format(o.Output); err != nil {
		return err
	}
	if o.Poll < 0 || o.Poll > 100 {
		return fmt.Errorf("--poll: %d is outside 0..100", o.Poll)
	}
	s, err := presets.LoadSoC(o.SoC)
	if err != nil {
		return fmt.Errorf("--soc: %w", err)
	}
	wl, err := presets.LoadWorkload(o.Workload)
	if err != nil {
		return fmt.Errorf("--workload: %w", err)
	}
	var fig *plots.Figure
	var w, h vg.Length
	switch o.Kind {
	case "split":
		d, err := plots.SweepSplit(s, wl, plots.SplitOptions{Poll: o.Poll})
		if err != nil {
			return err
		}
		if fig, err = plots.SplitCurve(d); err != nil {
			return err
		}
		w, h = 6.5*vg.Inch, 4.5*vg.Inch
	case "timeline":
		var mode model.Mode
		switch o.Split {
		case "token":
			mode = model.TokenSplit
		case "expert":
			mode = model.ExpertSplit
		default:
			return fmt.Errorf("--split: %q is not token or expert", o.Split)
		}
		if !(o.Frac >= 0 && o.Frac <= 1) {
			return fmt.Errorf("--frac: %g is outside [0,1]", o.Frac)
		}
		if o.Layers < 0 {
			return fmt.Errorf("--layers: %d is negative", o.Layers)
		}
		d, err := plots.SimTimeline(s, wl, plots.TimelineOptions{Mode: mode, Frac: o.Frac, Poll: o.Poll, Layers: o.Layers})
		if err != nil {
			return err
		}
		if fig, err = plots.Timeline(d); err != nil {
			return err
		}
		w, h = 9*vg.Inch, 5*vg.Inch
	}
	if err := plots.Save(fig, o.Output, w, h); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", o.Output)
	return nil
}
