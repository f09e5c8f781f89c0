package main

import (
	"io"

	"github.com/blsim/blsim/internal/cli"
	"github.com/spf13/cobra"
)

func newValidateCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &cli.Validate{}
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
		RunE: func(*cobra.Command, []string) error { return o.Run(stdout, stderr) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Measurements, "measurements", "", "measurements file (JSONL)")
	f.StringVar(&o.SoC, "soc", "", "profile (or prior, with --loo/--holdout): a preset name or a YAML file; with --loo/--holdout and\nwithout it, a file blsim calibrate wrote is refitted from calibrate's own prior (as blsim fit without --soc)")
	f.BoolVar(&o.LOO, "loo", false, "leave-one-out: refit without each measurement")
	f.StringSliceVar(&o.Holdout, "holdout", nil, "hold out the throughputs matching one of these patterns (comma-separated or repeated):\nwhole words of the label (f=0.15, expert f=0.35), a knob NAME=VALUE, or part of the id")
	cli.AddStatFlag(f, &o.Stat)
	f.IntVar(&o.Top, "top", 5, "how many of the worst configurations to list")
	cli.AddKernelsFlag(f, &o.Kernels)
	f.BoolVar(&o.JSON, "json", false, "-o json")
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text (the summary and --top worst), md, csv or jsonl (every configuration scored,\nworst first), or json")
	return cmd
}
