package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/presets"
	"github.com/spf13/cobra"
)

type validateOptions struct {
	Measurements string
	SoC          string
	LOO          bool
	Holdout      []string
	Stat         string
	Top          int
	Kernels      string
	JSON         bool
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
	f.BoolVar(&o.JSON, "json", false, "print JSON")
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
	stat, err := fit.ParseStat(o.Stat)
	if err != nil {
		return fmt.Errorf("--stat: %w", err)
	}
	kernels, err := fit.ParseKernels(o.Kernels)
	if err != nil {
		return fmt.Errorf("--kernels: %w", err)
	}
	soc, err := presets.LoadSoC(o.SoC)
	if err != nil {
		return fmt.Errorf("--soc: %w", err)
	}
	ms, err := readMeasurements(o.Measurements, stderr)
	if err != nil {
		return err
	}
	opts := fit.Options{Stat: stat, Kernels: kernels}
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
		if kernels != fit.KernelsAuto {
			fmt.Fprintf(stderr, "blsim: warning: --kernels %s does nothing without --loo or --holdout: the profile is used as it is\n", kernels)
		}
		v, err = fit.Predictions(soc, ms, opts)
	}
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(stdout, v)
	}
	return writeValidation(stdout, v, stat, o.Top)
}

// writeValidation prints a validation's MAPE and its worst configurations:
// the points the profile was fitted on apart from the held-out ones.
func writeValidation(stdout io.Writer, v *fit.Validation, stat fit.Stat, top int) error {
	what := "median of runs"
	if stat == fit.Best {
		what = "best sample"
	}
	for _, line := range validationLines(v) {
		fmt.Fprintf(stdout, "%s: %s (%s)\n", v.Mode, line, what)
	}
	mixed := v.Fitted.N > 0 && v.HeldOut.N > 0
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	if mixed {
		fmt.Fprintf(tw, "worst\tset\tmeasured t/s\tpredicted t/s\terror\n")
	} else {
		fmt.Fprintf(tw, "worst\tmeasured t/s\tpredicted t/s\terror\n")
	}
	for i, r := range v.Worst {
		if i == top {
			break
		}
		set := ""
		if mixed {
			set = "held out\t"
			if r.InFit {
				set = "fitted\t"
			}
		}
		fmt.Fprintf(tw, "%s (%s)\t%s%.3f\t%.3f\t%+.2f%%\n", r.Label, r.ID, set, r.Measured, r.Predicted, r.ErrPct)
	}
	return tw.Flush()
}

// validationLines says, for each group of a validation's points, how many
// and what they are, with their MAPE and largest error: fitted points
// (in-sample) first, then the held-out ones.
func validationLines(v *fit.Validation) []string {
	score := func(g fit.Group) string { return fmt.Sprintf("MAPE %.2f%%, max error %.2f%%", g.MAPE, g.MaxErrPct) }
	var out []string
	if g := v.Fitted; g.N == 1 {
		out = append(out, "1 fitted point (in-sample: the profile was fitted on this throughput, so its error is not held out), "+score(g))
	} else if g.N > 1 {
		out = append(out, fmt.Sprintf("%d fitted points (in-sample: the profile was fitted on these throughputs, so their error is not held out), %s", g.N, score(g)))
	}
	g := v.HeldOut
	noun := "throughputs"
	if g.N == 1 {
		noun = "throughput"
	}
	switch {
	case g.N == 0:
	case v.FitUnrecorded:
		out = append(out, fmt.Sprintf("%d %s, held out only if measured after the fit (the profile does not record the runs it was fitted on), %s", g.N, noun, score(g)))
	default:
		out = append(out, fmt.Sprintf("%d held-out %s, %s", g.N, noun, score(g)))
	}
	return out
}

// addStatFlag defines --stat, the statistic fitted and scored.
func addStatFlag(f *pflag.FlagSet, stat *string) {
	f.StringVar(stat, "stat", "median", "what a configuration's runs count as: median (of the runs' medians) or best (the fastest sample,\nfor a shared or virtual machine whose other tenants only slow runs down)")
}
