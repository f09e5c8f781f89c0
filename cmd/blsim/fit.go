package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/internal/atomicfile"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type fitOptions struct {
	Measurements string
	SoC          string
	Out          string
	Free         []string
	Stat         string
	Holdout      []string
	Kernels      string
	AcceptPoor   bool
	JSON         bool
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

// readMeasurements reads a measurements file, warning about bad lines on
// stderr; it fails when the file is not usable (measure.Usable).
func readMeasurements(path string, stderr io.Writer) ([]measure.Measurement, error) {
	if path == "" {
		return nil, fmt.Errorf("--measurements: a measurements file is required")
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("--measurements: %w", err)
	}
	ms, errs := measure.ReadFile(path)
	if err := badLines(stderr, path, len(ms), errs); err != nil {
		return nil, err
	}
	return ms, nil
}

// badLines warns about each bad line (five at most) and fails, naming the
// first, when good measurements and bad lines do not make a usable file.
func badLines(stderr io.Writer, path string, good int, errs []error) error {
	if stderr == nil {
		stderr = io.Discard
	}
	if !measure.Usable(good, len(errs)) {
		if good == 0 && len(errs) == 0 {
			return fmt.Errorf("--measurements: %s has no measurements", path)
		}
		if good == 0 {
			return fmt.Errorf("--measurements: %s has no readable measurements (%d bad lines; first: %v)", path, len(errs), errs[0])
		}
		return fmt.Errorf("--measurements: %s: %d of its %d lines are bad, more than a tenth (first: %v); fix or remove them",
			path, len(errs), good+len(errs), errs[0])
	}
	for i, err := range errs {
		if i == 5 {
			fmt.Fprintf(stderr, "blsim: warning: %d more bad lines in %s\n", len(errs)-5, path)
			break
		}
		fmt.Fprintf(stderr, "blsim: warning: skipped %v\n", err)
	}
	return nil
}

func fitRun(o *fitOptions, stdout, stderr io.Writer) error {
	if o.SoC == "" {
		return fmt.Errorf("--soc: a prior profile is required")
	}
	if o.Out == "" {
		return fmt.Errorf("-o: an output file is required")
	}
	stat, err := fit.ParseStat(o.Stat)
	if err != nil {
		return fmt.Errorf("--stat: %w", err)
	}
	kernels, err := fit.ParseKernels(o.Kernels)
	if err != nil {
		return fmt.Errorf("--kernels: %w", err)
	}
	if err := checkOutput("-o", o.Out, o.Measurements, o.SoC); err != nil {
		return err
	}
	prior, err := presets.LoadSoC(o.SoC)
	if err != nil {
		return fmt.Errorf("--soc: %w", err)
	}
	ms, err := readMeasurements(o.Measurements, stderr)
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
	job := fitJob{prior: prior, ms: ms, opts: fit.Options{Free: o.Free, Stat: stat, Kernels: kernels}, holdout: o.Holdout,
		source: "fit of " + o.Measurements + " from prior " + o.SoC, out: o.Out, path: o.Measurements, acceptPoor: o.AcceptPoor, warn: stderr}
	r, v, err := job.run()
	if r != nil && err != nil && !o.JSON {
		// A poor fit: show it, then say why nothing was written.
		_ = writeFitAndHoldout(stdout, r, v, ms, stat, "")
	}
	if err != nil {
		return err
	}
	if o.JSON {
		if v != nil {
			return writeJSON(stdout, struct {
				Fit     *fit.Result     `json:"fit"`
				Holdout *fit.Validation `json:"holdout"`
			}{r, v})
		}
		return writeJSON(stdout, r)
	}
	return writeFitAndHoldout(stdout, r, v, ms, stat, o.Out)
}

// fitJob is one fit of a prior to measurements, written as a profile.
type fitJob struct {
	prior     *model.SoC
	ms        []measure.Measurement
	opts      fit.Options
	holdout   []string          // patterns of the throughputs held out of the fit; none: fit all
	source    string            // the profile's provenance
	governors map[string]string // recorded in the provenance when set
	out       string            // the profile's path
	path      string            // the measurements file, for errors
	// notes are added to the profile's provenance.
	notes []string
	// acceptPoor writes the profile of a poor fit (fit.Result.Check) too.
	acceptPoor bool
	// warn, if not nil, receives the one-line warning of a poor fit that
	// acceptPoor lets through.
	warn io.Writer
}

// run fits (holding out what matches j.holdout and scoring it), stamps the
// provenance and writes the profile. The validation is nil without
// holdout patterns. A poor fit (fit.Result.Check) writes nothing and
// returns the fit with its error, unless acceptPoor.
func (j fitJob) run() (*fit.Result, *fit.Validation, error) {
	var r *fit.Result
	var v *fit.Validation
	var err error
	fitted, source := j.ms, j.source
	if len(j.holdout) == 0 {
		r, err = fit.Fit(j.prior, j.ms, j.opts)
	} else {
		if v, r, err = fit.Holdout(j.prior, j.ms, j.holdout, j.opts); err != nil {
			return nil, nil, fmt.Errorf("--holdout: %s: %w", j.path, err)
		}
		fitted = nil
		for _, m := range j.ms {
			if !fit.HeldOut(&m, j.holdout) {
				fitted = append(fitted, m)
			}
		}
		source += ", holding out " + strings.Join(j.holdout, ",")
	}
	if err != nil {
		return nil, nil, err
	}
	stampProvenance(r, fitted, source)
	if len(j.governors) > 0 {
		r.SoC.Provenance.Governors = j.governors
	}
	r.SoC.Provenance.Notes = append(r.SoC.Provenance.Notes, j.notes...)
	if perr := r.Check(); perr != nil {
		if !j.acceptPoor {
			return r, v, fmt.Errorf("fit: %w; no profile written (--accept-poor-fit writes it anyway)", perr)
		}
		r.SoC.Provenance.Notes = append(r.SoC.Provenance.Notes, "poor fit, accepted: "+perr.Error())
		if j.warn != nil {
			fmt.Fprintf(j.warn, "blsim: warning: %v; the profile is written (--accept-poor-fit)\n", perr)
		}
	}
	if err := writeProfile(j.out, r.SoC); err != nil {
		return r, v, err // the fit is printed: what went out of range is in it
	}
	return r, v, nil
}

// writeFitAndHoldout prints the noise line, the fit and, when v is not
// nil, the held-out error.
func writeFitAndHoldout(w io.Writer, r *fit.Result, v *fit.Validation, ms []measure.Measurement, stat fit.Stat, out string) error {
	if line := noiseLine(ms, stat); line != "" {
		fmt.Fprintln(w, line)
	}
	if err := writeFitText(w, r, out); err != nil {
		return err
	}
	if v != nil {
		if err := writeValidation(w, v, stat, 5); err != nil {
			return err
		}
	}
	return writeRegimes(w, r, v)
}

// writeRegimes prints, for every configuration fitted and held out, the
// measured and predicted rates and the share of the run the fitted model
// says waited on DRAM, and how many were mostly DRAM-bound.
func writeRegimes(w io.Writer, r *fit.Result, v *fit.Validation) error {
	type row struct {
		fit.Residual
		set string
	}
	var rows []row
	for _, x := range r.Residuals {
		rows = append(rows, row{x, "fit"})
	}
	if v != nil {
		for _, x := range v.Worst {
			set := "held out"
			if x.InFit {
				set = "fit"
			}
			rows = append(rows, row{x, set})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nregime of each configuration (DRAM-bound: the share of the run the fitted model spends waiting on DRAM)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "configuration\tset\tmeasured t/s\tpredicted t/s\terror\tDRAM-bound\n")
	bound := 0
	for _, x := range rows {
		if x.DRAMBoundPct >= 50 {
			bound++
		}
		fmt.Fprintf(tw, "%s\t%s\t%.4g\t%.4g\t%+.2f%%\t%.0f%%\n", x.Label, x.set, x.Measured, x.Predicted, x.ErrPct, x.DRAMBoundPct)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d of %d configurations at least 50%% DRAM-bound\n", bound, len(rows))
	return nil
}

// stampProvenance records where a fitted profile came from.
func stampProvenance(r *fit.Result, ms []measure.Measurement, source string) {
	p := &model.Provenance{Source: source, Date: time.Now().UTC().Format(time.RFC3339), Residual: r.RMSPct}
	for _, m := range ms {
		if fit.Throughput(&m) && m.OK() {
			p.Runs++
		}
		if m.Host != nil && p.Host == "" {
			p.Host, p.Kernel, p.CPU, p.Governors = m.Host.Name, m.Host.Kernel, m.Host.CPU, m.Host.Governors
		}
	}
	if fp := r.SoC.Provenance; fp != nil {
		p.FittedRuns = fp.FittedRuns // what fit.Fit fitted: the runs it could predict
	}
	for _, pf := range r.Params {
		if n := identificationNote(pf); n != "" {
			p.Notes = append(p.Notes, n)
		}
	}
	r.SoC.Provenance = p
}

// identificationNote says, for a parameter the runs do not identify on
// their own, what the fit did with it (fit.IdentificationOf): "" for one
// they identify.
func identificationNote(p fit.ParamFit) string {
	switch p.Identification {
	case fit.PriorOnly:
		return fmt.Sprintf("%s is not identifiable from these measurements: its value is the prior's", p.Path)
	case fit.Coupled:
		with := strings.Join(p.CoupledWith, ", ")
		if p.Moved() {
			return fmt.Sprintf("%s is not identifiable on its own: moved from %.4g to %.4g together with %s (the runs fix only a combination of them)",
				p.Path, p.Prior, p.Value, with)
		}
		return fmt.Sprintf("%s is not identifiable on its own: the runs fix it only together with %s; its value stayed the prior's %.4g, its σ narrowed from %.2g to %.2g",
			p.Path, with, p.Prior, p.PriorSigma, p.Sigma)
	case fit.Unpinned:
		where := ""
		if p.AtBound != "" {
			where = ", its " + p.AtBound + " bound"
		}
		return fmt.Sprintf("%s is weakly identified: the fit moved it from %.4g to %.4g%s, where no run depends on it any more: the runs pushed it there but do not pin it (σ %.2g, the prior's %.2g)",
			p.Path, p.Prior, p.Value, where, p.Sigma, p.PriorSigma)
	}
	return ""
}

func writeProfile(path string, s *model.SoC) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("fitted profile: %w", err)
	}
	b, err := model.MarshalSoC(s)
	if err != nil {
		return err
	}
	header := "# Fitted by blsim; values with their standard deviations under uncertainty.\n"
	return atomicfile.WriteFile(path, append([]byte(header), b...), 0o644)
}

// writeFitText prints the fit's table and summary; out is the profile
// written ("" when none was).
func writeFitText(w io.Writer, r *fit.Result, out string) error {
	for i, s := range r.Skipped {
		if i == 5 {
			fmt.Fprintf(w, "skipped %d more throughputs the prior cannot run\n", len(r.Skipped)-5)
			break
		}
		fmt.Fprintf(w, "skipped %s (%s): %s\n", s.Label, s.ID, s.Reason)
	}
	if r.Kernels == fit.KernelsForeign {
		var parts []string
		for _, c := range slices.Sorted(maps.Keys(r.KernelScales)) {
			parts = append(parts, fmt.Sprintf("%s x%.3g", c, r.KernelScales[c]))
		}
		fmt.Fprintf(w, "kernels: the benchmark's own: the prior's rates scaled by the factor per class that fits the runs best (%s), then fitted\n",
			strings.Join(parts, ", "))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "parameter\tprior\tprior from\tfitted\t± σ\tidentifiable\n")
	for _, p := range r.Params {
		id := "yes"
		switch p.Identification {
		case fit.PriorOnly:
			id = "no (prior-led)"
		case fit.Coupled:
			id = "only with others"
		case fit.Unpinned:
			id = "weakly (unpinned)"
		}
		if p.AtBound != "" {
			id += ", at its " + p.AtBound + " bound"
		}
		fmt.Fprintf(tw, "%s\t%.4g ± %.2g\t%s\t%.4g\t%.2g\t%s\n", p.Path, p.Prior, p.PriorSigma, p.PriorFrom, p.Value, p.Sigma, id)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	outliers := "outliers"
	if r.Downweighted == 1 {
		outliers = "outlier"
	}
	fmt.Fprintf(w, "\n%d throughputs: RMS error %.2f%%, MAPE %.2f%% (%s after %d iterations; %d %s down-weighted)\n",
		len(r.Residuals), r.RMSPct, r.MAPE, words(r.Status), r.Iterations, r.Downweighted, outliers)
	var prior, moved, unpinned []string
	for _, p := range r.Params {
		switch p.Identification {
		case fit.PriorOnly:
			prior = append(prior, p.Path)
		case fit.Coupled:
			moved = append(moved, identificationNote(p))
		case fit.Unpinned:
			unpinned = append(unpinned, identificationNote(p))
		}
	}
	if len(prior) > 0 {
		fmt.Fprintf(w, "not identifiable from these runs (their values are the priors'): %s\n", strings.Join(prior, ", "))
	}
	for _, n := range append(moved, unpinned...) {
		fmt.Fprintf(w, "%s\n", n)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if out != "" {
		fmt.Fprintf(w, "wrote %s\n", out)
	}
	return nil
}

// words spells a CamelCase status in lower-case words: "function converged".
func words(s string) string {
	var b strings.Builder
	for i, c := range s {
		if unicode.IsUpper(c) {
			if i > 0 {
				b.WriteByte(' ')
			}
			c = unicode.ToLower(c)
		}
		b.WriteRune(c)
	}
	return b.String()
}
