package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/internal/outguard"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/presets"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// fitOptions are the flags of `blsim fit`.
type fitOptions struct {
	Measurements, SoC, Out, Stat, Kernels string
	Free, Holdout                         []string
	AcceptPoor, JSON                      bool
	flags                                 *pflag.FlagSet
}

func newFitCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &fitOptions{}
	cmd := &cobra.Command{
		Use:   "fit",
		Short: "Fit a SoC profile to a measurements file, offline",
		Long: `Fit the free parameters of a prior SoC profile to the throughputs in a
measurements file (blsim calibrate, blsim calibrate --bench, or figures from a
report), with the file's microbenchmarks as priors, and write the fitted
profile with each value's standard deviation and the fit's provenance.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return fitRun(o, stdout, stderr) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Measurements, "measurements", "", "measurements file (JSONL)")
	f.StringVar(&o.SoC, "soc", "", "prior SoC profile: a preset name or a YAML file")
	f.StringVarP(&o.Out, "output", "o", "", "where to write the fitted profile (YAML)")
	f.StringSliceVar(&o.Free, "free", nil, "parameter paths to fit (default: kernel rates, bandwidths, overlaps, wake costs)")
	addStatFlag(f, &o.Stat)
	f.StringSliceVar(&o.Holdout, "holdout", nil, "fit on the throughputs matching none of these patterns and print the error on those that match\n(as blsim validate --holdout: f=0.15, a knob NAME=VALUE, part of the id)")
	addKernelsFlag(f, &o.Kernels)
	addAcceptPoorFlag(f, &o.AcceptPoor)
	f.BoolVar(&o.JSON, "json", false, "print JSON")
	o.flags = f
	return cmd
}

// addKernelsFlag defines --kernels, whose kernels the runs ran.
func addKernelsFlag(f *pflag.FlagSet, kernels *string) {
	f.StringVar(kernels, "kernels", "auto", "whose kernels the runs ran: prior (blsim's own: the kernel rates keep their microbenchmark priors),\nforeign (llama.cpp or a fork: every kernel rate the workload uses is fitted with a wide prior), or\nauto (foreign for llama-bench runs, prior otherwise)")
}

// addAcceptPoorFlag defines --accept-poor-fit.
func addAcceptPoorFlag(f *pflag.FlagSet, accept *bool) {
	f.BoolVar(accept, "accept-poor-fit", false, "write the profile even when the fit is poor (its MAPE above 10%, or more than a quarter of the\nthroughputs down-weighted as outliers), which otherwise exits non-zero and writes nothing")
}

// readMeasurements reads a measurements file by measure's one rule for bad
// lines (measure.ReadUsable, with check), warning about them on stderr.
func readMeasurements(path string, check func(*measure.Measurement) error, stderr io.Writer) ([]measure.Measurement, error) {
	if path == "" {
		return nil, fmt.Errorf("--measurements: a measurements file is required")
	}
	ms, warnings, err := measure.ReadUsable(path, check)
	if err != nil {
		return nil, fmt.Errorf("--measurements: %w", err)
	}
	warnAll(stderr, warnings)
	return ms, nil
}

// warnAll prints each warning on a line of stderr; a nil stderr drops them.
func warnAll(stderr io.Writer, warnings []string) {
	if stderr == nil {
		return
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "blsim: warning: %s\n", w)
	}
}

func fitRun(o *fitOptions, stdout, stderr io.Writer) error {
	if o.SoC == "" {
		return fmt.Errorf("--soc: a prior profile is required")
	}
	if o.Out == "" {
		return fmt.Errorf("-o: an output file is required")
	}
	opts, err := fitOptionsOf(o.Stat, o.Kernels)
	if err != nil {
		return err
	}
	if err := outguard.Check(o.flags, nil, "output"); err != nil {
		return err
	}
	prior, err := presets.LoadSoC(o.SoC)
	if err != nil {
		return fmt.Errorf("--soc: %w", err)
	}
	ms, err := readMeasurements(o.Measurements, nil, stderr)
	if err != nil {
		return err
	}
	if o.Free != nil && len(o.Free) == 0 {
		return fmt.Errorf("--free: no parameter named (leave the flag out to fit the default set)")
	}
	for _, p := range o.Free {
		if _, err := prior.Get(p); err != nil {
			return fmt.Errorf("--free: %w", err)
		}
	}
	opts.Free = o.Free
	job := fit.Job{Prior: prior, Measurements: ms, Options: opts, Holdout: o.Holdout,
		Source: "fit of " + o.Measurements + " from prior " + o.SoC}
	out := fitOutput{path: o.Measurements, out: o.Out, acceptPoor: o.AcceptPoor, prior: o.SoC}
	if o.JSON {
		out.json = func(r *fit.Result, v *fit.Validation) any {
			if v != nil {
				return struct {
					Fit     *fit.Result     `json:"fit"`
					Holdout *fit.Validation `json:"holdout"`
				}{r, v}
			}
			return r
		}
	}
	return out.run(stdout, stderr, job)
}

// fitOutput is what blsim fit and calibrate do with a fit.Job: write its
// profile unless the fit is poor, and print it.
type fitOutput struct {
	path, out  string // the measurements file (for errors) and the profile
	acceptPoor bool   // write the profile of a poor fit (fit.Result.Check) too
	// json, if not nil, is the document printed instead of the text.
	json func(*fit.Result, *fit.Validation) any
	// prior is the prior's --soc (a preset or a file), whose part values
	// the fit replaces ("" for a prior calibrate built).
	prior string
}

// run fits, writes the profile and prints the fit. A poor fit writes
// nothing, is printed (as text) and returns its error, unless acceptPoor:
// then its provenance and stderr say so.
func (o fitOutput) run(stdout, stderr io.Writer, j fit.Job) error {
	r, v, err := j.Run()
	var ie *fit.InterferenceError
	if err != nil {
		if len(j.Holdout) > 0 && !errors.As(err, &ie) {
			err = fmt.Errorf("--holdout: %s: %w", o.path, err)
		}
		return err
	}
	if perr := r.Check(); perr != nil && !o.acceptPoor {
		err = fmt.Errorf("fit: %w; no profile written (--accept-poor-fit writes it anyway)", perr)
	} else if perr != nil {
		r.SoC.Provenance.Notes = append(r.SoC.Provenance.Notes, "poor fit, accepted: "+perr.Error())
		fmt.Fprintf(stderr, "blsim: warning: %v; the profile is written (--accept-poor-fit)\n", perr)
	}
	replaced := presets.ReplacedParts(o.prior, r.Identified())
	if err == nil {
		if replaced != "" {
			r.SoC.Provenance.Notes = append(r.SoC.Provenance.Notes, replaced)
		}
		err = fit.WriteProfile(o.out, r.SoC)
	}
	if err != nil {
		if o.json == nil { // show the fit: what went wrong is in it
			_ = fit.WriteFit(stdout, r, v, j.Options.Stat, noiseLine(j.Measurements, j.Options.Stat), "")
		}
		return err
	}
	if o.json != nil {
		return writeJSON(stdout, o.json(r, v))
	}
	if err := fit.WriteFit(stdout, r, v, j.Options.Stat, noiseLine(j.Measurements, j.Options.Stat), o.out); err != nil {
		return err
	}
	if replaced != "" {
		_, err = fmt.Fprintln(stdout, replaced)
	}
	return err
}

// noiseLine is fit.NoiseOf as a line, suggesting --stat best when the
// typical configuration's median run is more than 5% below its fastest
// sample while the median is fitted (which fits better depends on the
// host and the runs' length: blsim validate --holdout tells); "" when no
// configuration has two samples.
func noiseLine(ms []measure.Measurement, stat fit.Stat) string {
	n, ok := fit.NoiseOf(ms)
	if !ok {
		return ""
	}
	if stat != fit.Best && n.Typical < 0.95 {
		return n.String() + "; on a shared host, try --stat best (validate --holdout compares the two)"
	}
	return n.String()
}
