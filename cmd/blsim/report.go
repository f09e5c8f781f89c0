package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/calibrate/runner"
	"github.com/blsim/blsim/internal/atomicfile"
	"github.com/blsim/blsim/internal/buildinfo"
	"github.com/blsim/blsim/internal/cli"
	"github.com/blsim/blsim/internal/outguard"
	"github.com/blsim/blsim/internal/progress"
	"github.com/blsim/blsim/internal/termsafe"
	"github.com/blsim/blsim/plots"
	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/report"
	"github.com/blsim/blsim/sim"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// reportOptions are the flags of `blsim report`.
type reportOptions struct {
	cli.RequestFlags
	// warn gets the warnings (bad measurement lines, SoC values that
	// cannot matter): the command's stderr.
	warn         io.Writer
	Measurements string
	Output       string
	// Stat is what the runs of one measured configuration count as.
	Stat string
	// command is the command line, for the verdict.
	command string
	// date is the day the report says it ran (tests fix it).
	date string
}

// reportFiles are the files a report folder may hold; an existing folder
// with anything else in it is not replaced.
var reportFiles = []string{"report.md", "split.png", "timeline.png", "heatmap.png", "parity.png", "roofline.png", "threads.png"}

func newReportCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &reportOptions{warn: stderr}
	cmd := &cobra.Command{
		Use:   "report -o DIR",
		Short: "Write a folder with report.md and its plots, ready for an experiment write-up",
		Long: `Write DIR/report.md: a short verdict in plain words (ending with the command
line, blsim's version and the date), the numbers behind it, the prediction
table (native, token and expert split at --frac and at the best fraction, gain,
90% interval, verdict), measured against predicted when measurements are given
(the rk3588 preset defaults to the seed experiment's figures, which it was
fitted on, so they are labelled fitted) and the SoC profile (values ± σ,
provenance). The plots (split curve, timeline, what-if heatmap, roofline,
parity) are PNG files next to it, linked relatively.

Everything in it is a view of one prediction, made from the same flags as
blsim predict: the table, the text and every figure show the same numbers.
The timeline and roofline draw the requested split (--frac) of the best
split's mode, or the best split with --frac auto.

The folder is written under a temporary name next to DIR and renamed into
place, so a failed run leaves no partial report. An existing DIR is replaced
only when it holds nothing but a previous report's files.

--engines names the split's engines, main first, as in blsim predict. With
more than two engines, or an accelerator among them (e.g. --soc rk3588-npu
--engines big,npu), the prediction table lists each engine's share with
gain, interval and verdict, the heatmap is the N-engine one (for an
accelerator: its effective TOPS by its submit latency), and the split curve,
a sweep of one share between two CPU engines, is left out.

Verdicts (the same rule as blsim predict's; docs/verdicts.md):
` + sim.VerdictRule,
		Example: `  blsim report -o report
  blsim report --soc ddr5 -o ddr5-report
  blsim report --soc my-board.yaml --measurements runs.jsonl -o board-report
  blsim report --soc rk3588-npu --engines big,npu -o npu-report`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.command = commandLine(cmd)
			return reportRun(o, stdout)
		},
	}
	f := cmd.Flags()
	o.Register(f)
	o.Command = "report"
	addGGUFFlag(cmd, &o.Workload)
	f.StringVar(&o.Measurements, "measurements", "", "measurements file (JSONL) for the parity plot (default for rk3588: the seed's figures)")
	f.StringVar(&o.Stat, "stat", "median", "what the runs of one measured configuration count as: median or best (see blsim fit --help)")
	f.StringVarP(&o.Output, "output", "o", "", "output folder (required)")
	return cmd
}

func reportRun(o *reportOptions, stdout io.Writer) (err error) {
	if o.Output == "" {
		return errors.New("report: -o DIR is required")
	}
	out := filepath.Clean(o.Output)
	if err := atomicfile.CheckReplaceable(out, reportFiles); err != nil {
		return fmt.Errorf("report: %w; choose another -o", err)
	}
	if err := outguard.CheckDir(o.Flags, nil, "output"); err != nil {
		return err
	}
	// The folder the report is written in, made before the work so that a
	// parent that takes none is found out first.
	tmp, err := atomicfile.TempDir(out)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	o.Progress = o.warn
	// Measurements first: the request predicts their workload, and a
	// mismatch is an input error, found before any work.
	var m *cli.Measured
	if o.Measurements != "" || presets.SoCPreset(o.SoC) == seedSoC {
		if m, err = o.ReadMeasurements(o.Measurements, o.Stat, o.warn); err != nil {
			return err
		}
	}
	q, err := o.Request()
	if err != nil {
		return err
	}
	date := o.date
	if date == "" {
		date = time.Now().Format("2006-01-02")
	}
	in := report.Input{Request: q, Own: o.OwnRun, Run: o.Run, Seed: q.SoC.Name == seedSoC,
		Command: o.command, Version: buildinfo.Version(), Date: date}
	if m != nil {
		if in.Measured, err = o.Merge(m, q); err != nil {
			return err
		}
		in.Source = m.Src
		in.Predicted, in.Fitted = fit.Parity(q.SoC, q.Workload.WithRun(o.OwnRun), m.Raw)
	}
	cells, finish := progress.Lazy(o.warn, "what-if cells")
	in.WhatIfProgress = cells
	d, err := report.Build(in)
	finish()
	if err != nil {
		return err
	}
	cli.Warn(o.warn, d.Prediction, o.SoC)
	vd := plots.ViewData{SoC: d.SoC, Workload: d.Workload, Layers: 2, Threads: d.Threads, Parity: d.Parity, Measured: d.Measured, WhatIf: d.WhatIf}
	if d.Figures, err = plots.SaveViews(tmp, d.Prediction, vd); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return finishReport(d, tmp, out, stdout)
}

// finishReport writes report.md into tmp and moves tmp into place as out.
func finishReport(d *report.Data, tmp, out string, stdout io.Writer) error {
	var md strings.Builder
	if err := report.Markdown(&md, d); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "report.md"), []byte(termsafe.EscapeText(md.String())), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := atomicfile.ReplaceDir(tmp, out); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(out, "report.md"))
	return nil
}

// commandLine is the command as given: its path and the flags set, in
// order, quoted where the shell would need it.
func commandLine(cmd *cobra.Command) string {
	parts := strings.Fields(cmd.CommandPath())
	cmd.Flags().Visit(func(f *pflag.Flag) { parts = append(parts, "--"+f.Name, f.Value.String()) })
	return runner.QuoteCommand(parts)
}
