package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/internal/cli"
	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/report"
	"github.com/spf13/cobra"
)

// validateOptions are the flags of `blsim validate`.
type validateOptions struct {
	Measurements, SoC, Stat, Kernels string
	Holdout                          []string
	Top                              int
	LOO, JSON                        bool
	Output                           string // -o: text, md, csv, json or jsonl
}

func newValidateCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Held-out error of a profile against measurements (MAPE, max, worst)",
		Long: `Measure how well a profile predicts throughputs it was not fitted on.
By default every throughput in the file is predicted with the profile as it
is (use a file measured after the fit, e.g. with --no-fit); those the
profile was fitted on (its provenance lists them) are scored apart, as
fitted points: their error is in-sample, not held out. --loo refits the
profile without each measurement in turn; --holdout PATTERNS fits on the
throughputs that match none of the patterns and predicts those that match
one: a pattern matches whole words of a run's label ("f=0.15",
"expert f=0.35", "poll=0"), one of its knobs as NAME=VALUE
("ORK_BL_LITTLE_FRAC=0.15"), or part of its id. Measure the fitted and the
held-out plans in the same rounds (calibrate --bench --rounds N --shuffle),
so that a machine's slow spells fall on both alike.

--stat best scores the fastest sample of each configuration instead of the
median of its runs: on a shared or virtual machine, where other tenants
only ever slow a run down.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return validateRun(o, stdout, stderr) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Measurements, "measurements", "", "measurements file (JSONL)")
	f.StringVar(&o.SoC, "soc", "", "profile (or prior, with --loo/--holdout): a preset name or a YAML file")
	f.BoolVar(&o.LOO, "loo", false, "leave-one-out: refit without each measurement")
	f.StringSliceVar(&o.Holdout, "holdout", nil, "hold out the throughputs matching one of these patterns (comma-separated or repeated):\nwhole words of the label (f=0.15, expert f=0.35), a knob NAME=VALUE, or part of the id")
	addStatFlag(f, &o.Stat)
	f.IntVar(&o.Top, "top", 5, "how many of the worst configurations to list")
	addKernelsFlag(f, &o.Kernels)
	f.BoolVar(&o.JSON, "json", false, "-o json")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text (the summary and --top worst), md, csv or jsonl (every configuration scored,\nworst first), or json")
	return cmd
}

func validateRun(o *validateOptions, stdout, stderr io.Writer) error {
	if o.SoC == "" {
		return fmt.Errorf("--soc: a profile is required")
	}
	if o.LOO && len(o.Holdout) > 0 {
		return fmt.Errorf("--loo and --holdout: choose one")
	}
	if o.Top < 0 {
		return fmt.Errorf("--top: %d is negative", o.Top)
	}
	format, err := report.ParseFormat(o.Output)
	if err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	if o.JSON {
		format = report.FormatJSON
	}
	opts, err := fitOptionsOf(o.Stat, o.Kernels)
	if err != nil {
		return err
	}
	soc, err := presets.LoadSoC(o.SoC)
	if err != nil {
		return fmt.Errorf("--soc: %w", err)
	}
	ms, err := readMeasurements(o.Measurements, fit.PlanCheck(soc), stderr)
	if err != nil {
		return err
	}
	var v *fit.Validation
	switch {
	case o.LOO:
		v, err = fit.LeaveOneOut(soc, ms, opts)
	case len(o.Holdout) > 0:
		v, _, err = fit.Holdout(soc, ms, o.Holdout, opts)
		if err != nil {
			err = fmt.Errorf("--holdout: %s: %w", o.Measurements, err)
		}
	default:
		if opts.Kernels != fit.KernelsAuto {
			fmt.Fprintf(stderr, "blsim: warning: --kernels %s does nothing without --loo or --holdout: the profile is used as it is\n", opts.Kernels)
		}
		v, err = fit.Predictions(soc, ms, opts)
	}
	if err != nil {
		return err
	}
	return cli.ValidationOut(stdout, v, format, opts.Stat, o.Top)
}

// fitOptionsOf reads the --stat and --kernels flags.
func fitOptionsOf(stat, kernels string) (fit.Options, error) {
	s, err := fit.ParseStat(stat)
	if err != nil {
		return fit.Options{}, fmt.Errorf("--stat: %w", err)
	}
	k, err := fit.ParseKernels(kernels)
	if err != nil {
		return fit.Options{}, fmt.Errorf("--kernels: %w", err)
	}
	return fit.Options{Stat: s, Kernels: k}, nil
}

// addStatFlag defines --stat, the statistic fitted and scored.
func addStatFlag(f *pflag.FlagSet, stat *string) {
	f.StringVar(stat, "stat", "median", "what a configuration's runs count as: median (of the runs' medians) or best (the fastest sample,\nfor a shared or virtual machine whose other tenants only slow runs down)")
}
