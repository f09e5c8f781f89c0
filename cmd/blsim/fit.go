package main

import (
	"io"

	"github.com/blsim/blsim/internal/cli"
	"github.com/spf13/cobra"
)

func newFitCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &cli.Fit{}
	cmd := &cobra.Command{
		Use:   "fit",
		Short: "Fit a SoC profile to a measurements file, offline",
		Long: `Fit the free parameters of a prior SoC profile to the throughputs in a
measurements file (blsim calibrate, blsim calibrate --bench, or figures from a
report), with the file's microbenchmarks as priors, and write the fitted
profile with each value's standard deviation and the fit's provenance.

Without --soc, a file blsim calibrate wrote is refitted from calibrate's own
prior: the clusters (cores, clock, caches) its records name and its
microbenchmarks, so that with calibrate's --holdout (set=heldout for
--plans fit+heldout) and --stat the fit is calibrate's, and another --stat
or --holdout compares with it on the same runs.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return o.Run(stdout, stderr) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Measurements, "measurements", "", "measurements file (JSONL)")
	f.StringVar(&o.SoC, "soc", "", "prior SoC profile: a preset name or a YAML file; without it, a file blsim calibrate wrote is\nrefitted from calibrate's own prior, rebuilt from the clusters and microbenchmarks it records")
	f.StringVarP(&o.Out, "output", "o", "", "where to write the fitted profile (YAML)")
	f.StringSliceVar(&o.Free, "free", nil, "parameter paths to fit (default: kernel rates, bandwidths, overlaps, wake costs)")
	cli.AddStatFlag(f, &o.Stat)
	f.StringSliceVar(&o.Holdout, "holdout", nil, "fit on the throughputs matching none of these patterns and print the error on those that match\n(as blsim validate --holdout: f=0.15, a knob NAME=VALUE, part of the id)")
	cli.AddKernelsFlag(f, &o.Kernels)
	cli.AddAcceptPoorFlag(f, &o.AcceptPoor)
	f.BoolVar(&o.JSON, "json", false, "print JSON")
	o.Flags = f
	return cmd
}
