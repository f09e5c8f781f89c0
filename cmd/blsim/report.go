package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
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
	// Date is the day the report says it ran (--date); when empty,
	// SOURCE_DATE_EPOCH's day, else none (reportDate).
	Date string
	// command is the command line, for the verdict.
	command string
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
line, with the output folder written DIR, and blsim's version), the numbers behind it, the prediction
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

The same inputs give the same files, byte for byte, whatever DIR is called
and whenever it runs: the report names no folder and reads no clock. It is
dated only when asked: --date YYYY-MM-DD, or else SOURCE_DATE_EPOCH (seconds
since 1970, the reproducible-builds convention) as its day in UTC.

--engines names the split's engines, main first, as in blsim predict. With
more than two engines, or an accelerator among them (e.g. --soc rk3588-npu
--engines big,npu), the prediction table lists each engine's share with
gain, interval and verdict, the heatmap is the N-engine one (for an
accelerator: its effective TOPS by its submit latency), and the split curve,
a sweep of one share between two CPU engines, is left out.

Verdicts (the same rule as blsim predict's; docs/verdicts.md):
` + sim.VerdictRule,
		Example: `  blsim report -o report
  blsim report --soc ddr5 -o ddr5-report --date 2026-12-03
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
	f.StringVar(&o.Date, "date", "", "the day the report says it ran, YYYY-MM-DD (default: SOURCE_DATE_EPOCH's day in UTC when set, else no date)")
	return cmd
}

func reportRun(o *reportOptions, stdout io.Writer) (err error) {
	if o.Output == "" {
		return errors.New("report: -o DIR is required")
	}
	date, err := reportDate(o.Date, os.LookupEnv)
	if err != nil {
		return err
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
// order, quoted where the shell would need it. The output folder is
// written DIR, so that the report does not depend on where it was written.
func commandLine(cmd *cobra.Command) string {
	parts := strings.Fields(cmd.CommandPath())
	cmd.Flags().Visit(func(f *pflag.Flag) {
		v := f.Value.String()
		if f.Name == "output" {
			v = "DIR"
		}
		parts = append(parts, "--"+f.Name, v)
	})
	return runner.QuoteCommand(parts)
}

// reportDate is the day a report says it ran: --date when given, else the
// day in UTC of SOURCE_DATE_EPOCH (https://reproducible-builds.org/specs/source-date-epoch/:
// seconds since 1970-01-01 UTC; an empty value is unset, a malformed one an
// error), else none. The clock is never read, so two runs of the same
// inputs write the same report.
func reportDate(flag string, lookupEnv func(string) (string, bool)) (string, error) {
	if flag != "" {
		if _, err := time.Parse(time.DateOnly, flag); err != nil {
			return "", fmt.Errorf("report: --date: %q is not a day YYYY-MM-DD", flag)
		}
		return flag, nil
	}
	v, ok := lookupEnv("SOURCE_DATE_EPOCH")
	if !ok || v == "" {
		return "", nil
	}
	sec, err := strconv.ParseInt(v, 10, 64)
	if err != nil || sec < 0 || sec > maxEpoch {
		return "", fmt.Errorf("report: SOURCE_DATE_EPOCH: %q is not a count of seconds since 1970-01-01 UTC (or unset it, or give --date)", v)
	}
	return time.Unix(sec, 0).UTC().Format(time.DateOnly), nil
}

// maxEpoch is 9999-12-31T23:59:59Z: a later SOURCE_DATE_EPOCH has no
// four-digit year.
const maxEpoch = 253402300799
