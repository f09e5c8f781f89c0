package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/presets"
	"github.com/spf13/cobra"
)

type validateOptions struct {
	Measurements string
	SoC          string
	LOO          bool
	Holdout      string
	Top          int
	JSON         bool
}

func newValidateCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Held-out error of a profile against measurements (MAPE, max, worst)",
		Long: `Measure how well a profile predicts throughputs it was not fitted on.
By default every throughput in the file is predicted with the profile as it
is (use a file measured after the fit, e.g. with --no-fit). --loo refits the
profile without each measurement in turn; --holdout PATTERN fits on the
measurements whose id or label does not contain PATTERN and predicts those
that do.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return validateRun(o, stdout, stderr) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Measurements, "measurements", "", "measurements file (JSONL)")
	f.StringVar(&o.SoC, "soc", "", "profile (or prior, with --loo/--holdout): a preset name or a YAML file")
	f.BoolVar(&o.LOO, "loo", false, "leave-one-out: refit without each measurement")
	f.StringVar(&o.Holdout, "holdout", "", "hold out measurements whose id or label contains this")
	f.IntVar(&o.Top, "top", 5, "how many of the worst configurations to list")
	f.BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}

func validateRun(o *validateOptions, stdout, stderr io.Writer) error {
	if o.SoC == "" {
		return fmt.Errorf("--soc: a profile is required")
	}
	if o.LOO && o.Holdout != "" {
		return fmt.Errorf("--loo and --holdout: choose one")
	}
	if o.Top < 0 {
		return fmt.Errorf("--top: %d is negative", o.Top)
	}
	soc, err := presets.LoadSoC(o.SoC)
	if err != nil {
		return fmt.Errorf("--soc: %w", err)
	}
	ms, err := readMeasurements(o.Measurements, stderr)
	if err != nil {
		return err
	}
	var v *fit.Validation
	switch {
	case o.LOO:
		v, err = fit.LeaveOneOut(soc, ms, fit.Options{})
	case o.Holdout != "":
		v, _, err = fit.Holdout(soc, ms, o.Holdout, fit.Options{})
	default:
		v, err = fit.Predictions(soc, ms)
	}
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(stdout, v)
	}
	fmt.Fprintf(stdout, "%s: %d held-out throughputs, MAPE %.2f%%, max error %.2f%%\n", v.Mode, v.N, v.MAPE, v.MaxErrPct)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "worst\tmeasured t/s\tpredicted t/s\terror\n")
	for i, r := range v.Worst {
		if i == o.Top {
			break
		}
		fmt.Fprintf(tw, "%s (%s)\t%.3f\t%.3f\t%+.2f%%\n", r.Label, r.ID, r.Measured, r.Predicted, r.ErrPct)
	}
	return tw.Flush()
}
