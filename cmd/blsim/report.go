package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/plots"
	"github.com/blsim/blsim/sim"
	"github.com/spf13/cobra"
	"gonum.org/v1/plot/vg"
)

// reportOptions are the flags of `blsim report`.
type reportOptions struct {
	// warn gets the warnings (bad measurement lines): the command's stderr.
	warn         io.Writer
	SoC          string
	Workload     string
	Measurements string
	Poll         int
	Frac         float64
	Output       string
	// Engines and Threads, when set, name the split's engines (main
	// first) and their threads, as in blsim predict.
	Engines string
	Threads string
	// Stat is what the runs of one measured configuration count as.
	Stat string
}

// save writes fig into dir as name and lists it among the report's figures.
func (r *reportData) save(dir, name string, fig *plots.Figure, w, h vg.Length) error {
	if err := plots.Save(fig, filepath.Join(dir, name), w, h); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	r.figures = append(r.figures, name)
	return nil
}

// reportFiles are the files a report folder may hold; an existing folder
// with anything else in it is not replaced.
var reportFiles = []string{"report.md", "split.png", "timeline.png", "heatmap.png", "parity.png", "roofline.png"}

func newReportCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &reportOptions{warn: stderr}
	cmd := &cobra.Command{
		Use:   "report -o DIR",
		Short: "Write a folder with report.md and its plots, ready for an experiment write-up",
		Long: `Write DIR/report.md: the SoC profile (values ± σ, provenance), the prediction
table (native, token and expert split at --frac and at the best fraction, gain,
90% interval, verdict), a verdict-and-why paragraph with the run's numbers, and
measured against predicted when measurements are given (the rk3588 preset
defaults to the seed experiment's figures). The plots (split curve, timeline,
what-if heatmap, roofline, parity) are PNG files next to it, linked relatively.

The folder is written under a temporary name next to DIR and renamed into
place, so a failed run leaves no partial report. An existing DIR is replaced
only when it holds nothing but a previous report's files.

--engines names the split's engines, main first, as in blsim predict. With
more than two engines, or an accelerator among them (e.g. --soc rk3588-npu
--engines big,npu), the report is of that N-engine split: the prediction
table lists each engine's share at the best split (sim.BestN) with gain,
interval and verdict, the heatmap is the N-engine one (for an
accelerator: its effective TOPS by its submit latency), and the timeline
and roofline are of the best split. The split curve, a sweep of one share
between the first two engines, is left out.`,
		Example: `  blsim report -o report
  blsim report --soc ddr5 -o ddr5-report
  blsim report --soc my-board.yaml --measurements runs.jsonl -o board-report
  blsim report --soc rk3588-npu --engines big,npu -o npu-report`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return reportRun(o, stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.SoC, "soc", "rk3588", "SoC profile: a preset name or a YAML file")
	f.StringVar(&o.Workload, "workload", "qwen3.5-35b-a3b", "workload: a preset name or a YAML file")
	f.StringVar(&o.Measurements, "measurements", "", "measurements file (JSONL) for the parity plot (default for rk3588: the seed's figures)")
	f.StringVar(&o.Stat, "stat", "median", "what the runs of one measured configuration count as: median or best (see blsim fit --help)")
	f.IntVar(&o.Poll, "poll", 50, "spin level of the pools, 0..100 (ggml --poll)")
	f.Float64Var(&o.Frac, "frac", 0.12, "the little engine's share for the requested split, 0..1")
	f.StringVarP(&o.Output, "output", "o", "", "output folder (required)")
	f.StringVar(&o.Engines, "engines", "", "engines of the split, main first, comma-separated (default: the SoC's first two)")
	f.StringVar(&o.Threads, "threads", "", "with --engines: threads per engine, comma-separated (default: min(4, its cores) each)")
	return cmd
}

func reportRun(o *reportOptions, stdout io.Writer) (err error) {
	if o.Output == "" {
		return errors.New("report: -o DIR is required")
	}
	if !(o.Frac >= 0 && o.Frac <= 1) {
		return fmt.Errorf("--frac: %g is outside [0,1]", o.Frac)
	}
	out := filepath.Clean(o.Output)
	if err := checkReplaceable(out); err != nil {
		return err
	}
	po := &predictOptions{SoC: o.SoC, Workload: o.Workload, Split: "both", Frac: fmt.Sprint(o.Frac), Poll: o.Poll,
		Draws: sim.DefaultDraws, bigAuto: true, littleAuto: true}
	if o.Engines != "" {
		po.Engines, po.Threads = o.Engines, o.Threads
		if strings.Count(o.Engines, ",") > 1 {
			po.Frac = "auto" // more than two engines: the shares are found, not requested
		}
	} else if o.Threads != "" {
		return errors.New("--threads: needs --engines")
	}
	in, err := po.resolve()
	if err != nil {
		return err
	}
	if in.nway {
		// The shares are found, not requested.
		po.Frac, in.fracs = "auto", nil
	} else if in.engines != nil && (in.engines[0] != in.soc.Engines[0].Name || in.engines[1] != in.soc.Engines[1].Name) {
		return fmt.Errorf("--engines: %s are two CPU clusters other than %s's first two (%s, %s); the report's two-engine figures cover only those (blsim predict --engines %s predicts the split)",
			o.Engines, in.soc.Name, in.soc.Engines[0].Name, in.soc.Engines[1].Name, o.Engines)
	}
	s, wl := in.soc, in.wl
	// Measurements first: a mismatch is an input error, found before any
	// work.
	var ms []measure.Measurement
	var msrc string
	if o.Measurements != "" || o.SoC == seedSoC {
		if ms, msrc, err = loadMeasurements(o.Measurements, o.SoC, s, wl, o.Stat, o.warn); err != nil {
			return err
		}
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	r := &reportData{opts: o, soc: s, wl: wl, in: in}
	if in.nway {
		if err := r.runN(po, tmp, ms, msrc); err != nil {
			return err
		}
		return finishReport(r, tmp, out, stdout)
	}
	if r.pred, err = predict(in, po); err != nil {
		return err
	}
	// The seed's poll-0 artefact: the same token split at poll 0.
	if o.Poll != 0 {
		p0 := *po
		p0.Poll, p0.Split, p0.Draws = 0, "token", 16
		in0, err := p0.resolve()
		if err != nil {
			return err
		}
		if r.poll0, err = predict(in0, &p0); err != nil {
			return err
		}
	}
	save := func(name string, fig *plots.Figure, w, h vg.Length) error { return r.save(tmp, name, fig, w, h) }
	sd, err := plots.SweepSplit(s, wl, plots.SplitOptions{Poll: o.Poll})
	if err != nil {
		return err
	}
	sd.Measured = plots.SplitPoints(ms, sd, wl)
	fig, err := plots.SplitCurve(sd)
	if err != nil {
		return err
	}
	if err := save("split.png", fig, 6.5*vg.Inch, 4.5*vg.Inch); err != nil {
		return err
	}
	td, err := plots.SimTimeline(s, wl, plots.TimelineOptions{Frac: o.Frac, Poll: o.Poll, Layers: 2})
	if err != nil {
		return err
	}
	if fig, err = plots.Timeline(td); err != nil {
		return err
	}
	if err := save("timeline.png", fig, 9*vg.Inch, 5*vg.Inch); err != nil {
		return err
	}
	if r.heat, err = plots.SweepHeatmap(s, wl, plots.HeatmapOptions{Poll: o.Poll}); err != nil {
		return err
	}
	if fig, err = plots.Heatmap(r.heat); err != nil {
		return err
	}
	if err := save("heatmap.png", fig, 8*vg.Inch, 6*vg.Inch); err != nil {
		return err
	}
	if ms != nil {
		if r.points, err = plots.ParityPoints(ms, plots.SimPredictor(s, wl)); err != nil {
			return fmt.Errorf("parity: %s: %w", msrc, err)
		}
		r.msrc = msrc
		r.sources = measurementSources(ms)
		if fig, err = plots.Parity(plots.ParityData{SoC: s.Name, Workload: wl.Name, Points: r.points}); err != nil {
			return err
		}
		if err := save("parity.png", fig, 7*vg.Inch, 6*vg.Inch); err != nil {
			return err
		}
	}
	rd, err := plots.SimRoofline(s, wl, plots.RooflineOptions{Frac: o.Frac, Poll: o.Poll})
	if err != nil {
		return err
	}
	if fig, err = plots.Roofline(rd); err != nil {
		return err
	}
	if err := save("roofline.png", fig, 8*vg.Inch, 6*vg.Inch); err != nil {
		return err
	}
	return finishReport(r, tmp, out, stdout)
}

// finishReport writes report.md into tmp and moves tmp into place as out.
func finishReport(r *reportData, tmp, out string, stdout io.Writer) error {
	var md strings.Builder
	if r.predN != nil {
		r.writeN(&md)
	} else {
		r.write(&md)
	}
	if err := os.WriteFile(filepath.Join(tmp, "report.md"), []byte(md.String()), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := replaceDir(tmp, out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(out, "report.md"))
	return nil
}

// checkReplaceable fails unless out does not exist, or is a folder holding
// only a previous report's files.
func checkReplaceable(out string) error {
	st, err := os.Stat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("report: %s exists and is not a folder", out)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, e := range ents {
		if e.IsDir() || !slices.Contains(reportFiles, e.Name()) {
			return fmt.Errorf("report: %s exists and holds %s, which is not a report file; choose another -o", out, e.Name())
		}
	}
	return nil
}

// replaceDir renames the finished folder tmp to out, moving a previous
// report aside first and deleting it only once the new one is in place.
func replaceDir(tmp, out string) error {
	if _, err := os.Stat(out); err == nil {
		old := tmp + ".old"
		if err := os.Rename(out, old); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		if err := os.Rename(tmp, out); err != nil {
			if rerr := os.Rename(old, out); rerr != nil {
				return fmt.Errorf("report: %v (and restoring the previous report: %v)", err, rerr)
			}
			return fmt.Errorf("report: %w", err)
		}
		return os.RemoveAll(old)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

func measurementSources(ms []measure.Measurement) []string {
	set := map[string]bool{}
	for _, m := range ms {
		if src := m.Knobs["source"]; src != "" && plots.IsThroughput(m) {
			set[src] = true
		}
	}
	var out []string
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}
