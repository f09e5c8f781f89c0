package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/plots"
	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/sim"
	"github.com/spf13/cobra"
	"gonum.org/v1/plot/vg"
)

// plotOptions are the flags of `blsim plot`.
type plotOptions struct {
	// warn gets the warnings (bad measurement lines): the command's stderr.
	warn     io.Writer
	Kind     string
	SoC      string
	Workload string
	Poll     int
	Frac     float64
	Split    string
	Layers   int
	Output   string
	// parity, split: the measurements and how runs of one configuration
	// merge; heatmap: its axes; parity: log axes.
	Measurements string
	Stat         string
	XParam       string
	YParam       string
	Log          bool
	// heatmap, timeline, roofline: the split's engines, main first, their
	// threads and (timeline, roofline) their shares.
	Engines string
	Threads string
	Shares  string
	// workloadGiven: --workload was on the command line (plot split then
	// keeps it even when the measurements ran another).
	workloadGiven bool
}

// plotKinds are the kinds `blsim plot` draws.
var plotKinds = []string{"split", "timeline", "parity", "heatmap", "roofline"}

func newPlotCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &plotOptions{warn: stderr}
	cmd := &cobra.Command{
		Use:   "plot split|timeline|parity|heatmap|roofline -o FILE",
		Short: "Draw the split curve, a timeline, parity, what-if heatmap or roofline as PNG, SVG or PDF",
		Long: `Draw a figure into FILE, in the format its extension names (.png, .svg, .pdf).

split:    prompt throughput against the little engine's share, 0 to 0.5, for
          token and expert splits, with native, the balance points and the
          measured points of --measurements at the same threads and poll
          (default for the rk3588 preset: the seed's figures); without
          --workload, the curve is of the workload the measurements ran.
timeline: ubatch 0 of one split plan (--split, --frac) as a Gantt chart per
          engine over DRAM utilisation; --layers limits it to the first layers.
parity:   predicted against measured t/s for every throughput measurement in
          --measurements (default for the rk3588 preset: the seed's figures),
          with y = x, a ±5% band, error bars and labels; --log for log axes.
heatmap:  the best split's gain over native on a grid of what-if SoCs:
          --x-param (default dram: sustained GB/s, cluster caps scaled with
          it) by --y-param (default compute-ratio: little/big per-core matmul
          rate), each 0.5x..3x the studied value, with the parity contour.
          Either may be a SoC parameter path (engines.big.clock_ghz).
          --engines big,npu (more than two engines, or an accelerator):
          each cell is the best gain sim.BestN finds over those engines, on
          an 8x6 grid; with an accelerator x defaults to accel-tops (its
          effective MUL_MAT_ID TOPS, 1/32x..4x) and y to its submit latency
          (engines.npu.submit_us, 1/4x..256x), both on log axes.
roofline: each engine's compute and bandwidth roofs, with the ops of one
          ubatch placed by arithmetic intensity and simulated rate.

timeline and roofline take --engines too (big,mid,little; big,npu): the split
over those engines at --shares (one per engine after the first, or auto:
the best sim.BestN finds, the default), a row or a roof per engine.`,
		Example: `  blsim plot split -o split.png
  blsim plot timeline --soc ddr5 --frac 0.15 --layers 2 -o timeline.svg
  blsim plot parity -o parity.png
  blsim plot parity --soc my.yaml --measurements runs.jsonl --log -o parity.pdf
  blsim plot heatmap --soc ddr5 -o heatmap.png
  blsim plot heatmap --soc rk3588-npu --engines big,npu -o heatmap-npu.png
  blsim plot roofline -o roofline.svg
  blsim plot timeline --soc cix-p1 --engines big,mid,little -o timeline-3.png
  blsim plot roofline --soc rk3588-npu --engines big,npu --shares 0.7 -o roofline-npu.svg`,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("plot: want one kind, %s; got %d arguments", strings.Join(plotKinds, ", "), len(args))
			}
			o.Kind = args[0]
			o.workloadGiven = cmd.Flags().Changed("workload")
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
	f.StringVar(&o.Measurements, "measurements", "", "parity, split: measurements file (JSONL; default for rk3588: the seed's figures)")
	f.StringVar(&o.XParam, "x-param", "", "heatmap: x axis: dram, compute-ratio or a SoC parameter path (default dram)")
	f.StringVar(&o.YParam, "y-param", "", "heatmap: y axis: dram, compute-ratio or a SoC parameter path (default compute-ratio)")
	f.BoolVar(&o.Log, "log", false, "parity: log axes")
	f.StringVar(&o.Stat, "stat", "median", "parity, split: what the runs of one configuration count as: median or best (see blsim fit --help)")
	f.StringVar(&o.Engines, "engines", "", "heatmap, timeline, roofline: engines of the split, main first, comma-separated (default: the SoC's first two)")
	f.StringVar(&o.Threads, "threads", "", "with --engines: threads per engine, comma-separated (default: min(4, its cores) each)")
	f.StringVar(&o.Shares, "shares", "auto", "timeline, roofline with --engines: each engine's share after the first, comma-separated,\nor auto (the best split sim.BestN finds)")
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
	if err := checkOutput("-o", o.Output, o.Measurements, o.SoC, o.Workload); err != nil {
		return err
	}
	if o.Poll < 0 || o.Poll > 100 {
		return fmt.Errorf("--poll: %d is outside 0..100", o.Poll)
	}
	if (o.Kind == "split" || o.Kind == "parity") && (o.Engines != "" || o.Threads != "") {
		return fmt.Errorf("--engines, --threads: plot %s draws the SoC's first two engines (heatmap, timeline and roofline take them)", o.Kind)
	}
	if o.Engines == "" && o.Threads != "" {
		return fmt.Errorf("--threads: needs --engines")
	}
	if o.Engines == "" && o.Shares != "auto" {
		return fmt.Errorf("--shares: needs --engines")
	}
	if o.Kind == "heatmap" && o.Shares != "auto" {
		return fmt.Errorf("--shares: plot heatmap finds the best shares in every cell")
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
		var ms []measure.Measurement
		var src string
		if o.Measurements != "" || o.SoC == seedSoC {
			if ms, src, err = loadMeasurements(o.Measurements, o.SoC, s, wl, o.Stat, o.warn); err != nil {
				return err
			}
			if !o.workloadGiven && o.Measurements != "" {
				// The curve of the model the measurements ran, when they
				// all ran one (blsim calibrate's synthetic MoE, say).
				if mw, err := measuredWorkload(ms); err != nil {
					return fmt.Errorf("--measurements: %s: %w", src, err)
				} else if mw != nil {
					wl = mw
				}
			}
		}
		// Far enough to the right for every measured share.
		so := plots.SplitOptions{Poll: o.Poll}
		for _, m := range ms {
			if m.Plan != nil && len(m.Plan.Fracs) == 2 && m.Plan.Fracs[1] > sim.MaxSecondFrac {
				so.MaxFrac = math.Max(so.MaxFrac, m.Plan.Fracs[1])
			}
		}
		d, err := plots.SweepSplit(s, wl, so)
		if err != nil {
			return err
		}
		if ms != nil {
			if d.Measured = plots.SplitPoints(ms, d, wl); len(d.Measured) == 0 && o.Measurements != "" {
				return fmt.Errorf("--measurements: nothing in %s was measured on the curve's plans (workload %s, %s+%s, %d+%d threads, poll %d)",
					src, wl.Name, d.Big, d.Little, d.BigThreads, d.LittleThreads, d.Poll)
			}
		}
		if fig, err = plots.SplitCurve(d); err != nil {
			return err
		}
		w, h = 6.5*vg.Inch, 4.5*vg.Inch
	case "timeline":
		mode, err := splitMode(o.Split)
		if err != nil {
			return err
		}
		if !(o.Frac >= 0 && o.Frac <= 1) {
			return fmt.Errorf("--frac: %g is outside [0,1]", o.Frac)
		}
		if o.Layers < 0 {
			return fmt.Errorf("--layers: %d is negative", o.Layers)
		}
		to := plots.TimelineOptions{Mode: mode, Frac: o.Frac, Poll: o.Poll, Layers: o.Layers}
		if o.Engines != "" {
			if to.Plan, err = o.enginePlan(s, wl, mode); err != nil {
				return err
			}
		}
		d, err := plots.SimTimeline(s, wl, to)
		if err != nil {
			return err
		}
		if fig, err = plots.Timeline(d); err != nil {
			return err
		}
		w, h = 9*vg.Inch, 5*vg.Inch
	case "parity":
		ms, src, err := loadMeasurements(o.Measurements, o.SoC, s, wl, o.Stat, o.warn)
		if err != nil {
			return err
		}
		pts, err := plots.ParityPoints(ms, plots.SimPredictor(s, wl))
		if err != nil {
			return fmt.Errorf("parity: %s: %w", src, err)
		}
		if fig, err = plots.Parity(plots.ParityData{SoC: s.Name, Workload: wl.Name, Points: pts, LogAxes: o.Log}); err != nil {
			return err
		}
		w, h = 7*vg.Inch, 6*vg.Inch
	case "heatmap":
		ho := plots.HeatmapOptions{XParam: o.XParam, YParam: o.YParam, Poll: o.Poll}
		if o.Engines != "" {
			if ho.Engines, ho.Threads, err = resolveHeatmapEngines(o.SoC, o.Workload, o.Engines, o.Threads, o.Poll); err != nil {
				return err
			}
		}
		d, err := plots.SweepHeatmap(s, wl, ho)
		if err != nil {
			return err
		}
		if fig, err = plots.Heatmap(d); err != nil {
			return err
		}
		w, h = 8*vg.Inch, 6*vg.Inch
	case "roofline":
		ro := plots.RooflineOptions{Frac: o.Frac, Poll: o.Poll}
		if o.Engines != "" {
			mode, err := splitMode(o.Split)
			if err != nil {
				return err
			}
			if ro.Plan, err = o.enginePlan(s, wl, mode); err != nil {
				return err
			}
		}
		d, err := plots.SimRoofline(s, wl, ro)
		if err != nil {
			return err
		}
		if fig, err = plots.Roofline(d); err != nil {
			return err
		}
		w, h = 8*vg.Inch, 6*vg.Inch
	}
	if err := plots.Save(fig, o.Output, w, h); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", o.Output)
	return nil
}

// measuredWorkload is the one workload every throughput of ms ran (from
// its workload_yaml, else the preset of its name), or nil when they ran
// several or name none.
func measuredWorkload(ms []measure.Measurement) (*model.Workload, error) {
	var name, yaml string
	for i, m := range ms {
		if i > 0 && (m.Workload != name || m.WorkloadYAML != yaml) {
			return nil, nil
		}
		name, yaml = m.Workload, m.WorkloadYAML
	}
	switch {
	case name == "":
		return nil, nil
	case yaml != "":
		return model.ParseWorkload([]byte(yaml), "the measurements' workload_yaml")
	}
	return presets.LoadWorkload(name)
}

// splitMode reads --split: token or expert.
func splitMode(s string) (model.Mode, error) {
	switch s {
	case "token":
		return model.TokenSplit, nil
	case "expert":
		return model.ExpertSplit, nil
	}
	return "", fmt.Errorf("--split: %q is not token or expert", s)
}

// enginePlan is the split over --engines (threads from --threads) at
// --shares, or at the best shares sim.BestN finds.
func (o *plotOptions) enginePlan(s *model.SoC, wl *model.Workload, mode model.Mode) (*model.Plan, error) {
	engines, threads, err := resolveHeatmapEngines(o.SoC, o.Workload, o.Engines, o.Threads, o.Poll)
	if err != nil {
		return nil, err
	}
	p := model.Plan{Mode: mode, Engines: engines, Threads: threads, Poll: o.Poll}
	for _, name := range engines {
		if e, _, _ := s.Engine(name); !e.CanSplit(mode) {
			return nil, fmt.Errorf("--split: engine %q cannot take a share of the %s split", name, mode)
		}
	}
	if o.Shares == "auto" {
		if p.Fracs, _, err = sim.BestN(s, wl, p); err != nil {
			return nil, err
		}
	} else if p.Fracs, err = parseShares(o.Shares, len(engines)); err != nil {
		return nil, fmt.Errorf("--shares: %w", err)
	}
	return &p, nil
}

// resolveHeatmapEngines checks --engines and --threads as blsim predict
// does and returns the engines and their threads.
func resolveHeatmapEngines(soc, workload, engines, threads string, poll int) ([]string, []int, error) {
	po := &predictOptions{SoC: soc, Workload: workload, Split: "token", Frac: "auto", Poll: poll,
		Draws: sim.DefaultDraws, Engines: engines, Threads: threads, bigAuto: true, littleAuto: true}
	in, err := po.resolve()
	if err != nil {
		return nil, nil, err
	}
	return in.engines, in.threads, nil
}

// seedSoC is the preset whose measurements default to the seed's figures.
const seedSoC = "rk3588"

// loadMeasurements reads the measurements file path, or, when path is ""
// and socRef is the rk3588 preset, the seed's embedded figures. It checks
// that every measurement that names a SoC or workload names s and w, and
// returns its throughputs, one per configuration (merged by statFlag, as
// blsim fit merges them), and a name for the source.
func loadMeasurements(path, socRef string, s *model.SoC, w *model.Workload, statFlag string, warn io.Writer) ([]measure.Measurement, string, error) {
	stat, err := fit.ParseStat(statFlag)
	if err != nil {
		return nil, "", fmt.Errorf("--stat: %w", err)
	}
	var ms []measure.Measurement
	var errs []error
	src := path
	switch {
	case path != "":
		ms, errs = measure.ReadFile(path)
	case socRef == seedSoC:
		src = "the seed's figures, presets/measurements/seed-rk3588.jsonl"
		ms, errs = measure.Read(bytes.NewReader(presets.SeedMeasurements()), "seed-rk3588.jsonl")
	default:
		return nil, "", fmt.Errorf("--measurements: a measurements file is required for soc %s (only %s has built-in ones)", s.Name, seedSoC)
	}
	if err := badLines(warn, src, len(ms), errs); err != nil {
		return nil, "", err
	}
	for _, m := range ms {
		if m.SoC != "" && m.SoC != s.Name && m.SoC != socRef {
			return nil, "", fmt.Errorf("--measurements: measurements %s are for soc %s, not %s", src, m.SoC, s.Name)
		}
		if m.Workload != "" && m.WorkloadYAML == "" && m.Workload != w.Name {
			return nil, "", fmt.Errorf("--measurements: measurements %s are for workload %s, not %s", src, m.Workload, w.Name)
		}
	}
	// One point per configuration: the rounds of a calibration or a grid
	// merged as blsim fit and validate merge them.
	return fit.Merge(ms, stat), src, nil
}
