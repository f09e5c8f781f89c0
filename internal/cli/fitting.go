package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/blsim/blsim/calibrate"
	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/presets"
	"github.com/spf13/pflag"
)

// AddKernelsFlag defines --kernels, whose kernels the runs ran.
func AddKernelsFlag(f *pflag.FlagSet, kernels *string) {
	f.StringVar(kernels, "kernels", "auto", "whose kernels the runs ran: prior (blsim's own: the kernel rates keep their microbenchmark priors),\nforeign (llama.cpp or a fork: every kernel rate the workload uses is fitted with a wide prior), or\nauto (foreign for llama-bench runs, prior otherwise)")
}

// AddAcceptPoorFlag defines --accept-poor-fit.
func AddAcceptPoorFlag(f *pflag.FlagSet, accept *bool) {
	f.BoolVar(accept, "accept-poor-fit", false, "write the profile even when the fit is poor (its MAPE above 10%, or more than a quarter of the\nthroughputs down-weighted as outliers), which otherwise exits non-zero and writes nothing")
}

// AddStatFlag defines --stat, the statistic fitted and scored.
func AddStatFlag(f *pflag.FlagSet, stat *string) {
	f.StringVar(stat, "stat", "median", "what a configuration's runs count as: median (of the runs' medians) or best (the fastest sample,\nfor a shared or virtual machine whose other tenants only slow runs down)")
}

// FitOptionsOf reads the --stat and --kernels flags.
func FitOptionsOf(stat, kernels string) (fit.Options, error) {
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

// MeasurementsFile reads the --measurements file by measure's one rule
// for bad lines (measure.ReadUsable, with check), warning about them on
// stderr.
func MeasurementsFile(path string, check func(*measure.Measurement) error, stderr io.Writer) ([]measure.Measurement, error) {
	if path == "" {
		return nil, fmt.Errorf("--measurements: a measurements file is required")
	}
	ms, warnings, err := measure.ReadUsable(path, check)
	if err != nil {
		return nil, fmt.Errorf("--measurements: %w", err)
	}
	WarnAll(stderr, warnings)
	return ms, nil
}

// WarnAll prints each warning on a line of stderr; a nil stderr drops them.
func WarnAll(stderr io.Writer, warnings []string) {
	if stderr == nil {
		return
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "blsim: warning: %s\n", w)
	}
}

// WriteJSON prints v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// FitOutput is what blsim fit and calibrate do with a fit.Job: write its
// profile unless the fit is poor, and print it.
type FitOutput struct {
	Path, Out  string // the measurements file (for errors) and the profile
	AcceptPoor bool   // write the profile of a poor fit (fit.Result.Check) too
	// JSON, if not nil, is the document printed instead of the text.
	JSON func(*fit.Result, *fit.Validation) any
	// Prior is the prior's --soc (a preset or a file), whose part values
	// the fit replaces ("" for a prior calibrate built).
	Prior string
}

// Run fits, writes the profile and prints the fit. A poor fit writes
// nothing, is printed (as text) and returns its error, unless AcceptPoor:
// then its provenance and stderr say so.
func (o FitOutput) Run(stdout, stderr io.Writer, j fit.Job) error {
	r, v, err := j.Run()
	var ie *fit.InterferenceError
	if err != nil {
		if len(j.Holdout) > 0 && !errors.As(err, &ie) {
			err = fmt.Errorf("--holdout: %s: %w", o.Path, err)
		}
		return err
	}
	if perr := r.Check(); perr != nil && !o.AcceptPoor {
		err = fmt.Errorf("fit: %w; no profile written (--accept-poor-fit writes it anyway)", perr)
	} else if perr != nil {
		r.SoC.Provenance.Notes = append(r.SoC.Provenance.Notes, "poor fit, accepted: "+perr.Error())
		fmt.Fprintf(stderr, "blsim: warning: %v; the profile is written (--accept-poor-fit)\n", perr)
	}
	replaced := presets.ReplacedParts(o.Prior, r.Identified())
	if err == nil {
		if replaced != "" {
			r.SoC.Provenance.Notes = append(r.SoC.Provenance.Notes, replaced)
		}
		err = fit.WriteProfile(o.Out, r.SoC)
	}
	if err != nil {
		if o.JSON == nil { // show the fit: what went wrong is in it
			_ = fit.WriteFit(stdout, r, v, j.Options.Stat, o.noise(j), "")
		}
		return err
	}
	if o.JSON != nil {
		return WriteJSON(stdout, o.JSON(r, v))
	}
	if err := fit.WriteFit(stdout, r, v, j.Options.Stat, o.noise(j), o.Out); err != nil {
		return err
	}
	if replaced != "" {
		_, err = fmt.Fprintln(stdout, replaced)
	}
	return err
}

// NoiseLine is fit.NoiseOf as a line, suggesting --stat best when the
// typical configuration's median run is more than 5% below its fastest
// sample while the median is fitted (which fits better depends on the
// host and the runs' length: blsim validate --holdout tells); "" when no
// configuration has two samples.
func NoiseLine(ms []measure.Measurement, stat fit.Stat) string {
	return noiseLine(ms, stat, "validate --holdout compares the two")
}

// noiseLine is NoiseLine with compare, what compares the two statistics,
// in its suggestion.
func noiseLine(ms []measure.Measurement, stat fit.Stat, compare string) string {
	n, ok := fit.NoiseOf(ms)
	if !ok {
		return ""
	}
	if stat != fit.Best && n.Typical < 0.95 {
		return n.String() + "; on a shared host, try --stat best (" + compare + ")"
	}
	return n.String()
}

// noise is the fit's noise line (NoiseLine). For a file blsim calibrate
// wrote, its suggestion is the command that refits the same runs on
// their fastest samples from calibrate's own prior (blsim fit without
// --soc), with the fit's held-out patterns, to compare.
func (o FitOutput) noise(j fit.Job) string {
	compare := "validate --holdout compares the two"
	if _, ok, err := calibrate.RecordedEngines(j.Measurements); ok && err == nil && o.Path != "" {
		cmd := "blsim fit --measurements " + shellWord(o.Path)
		if len(j.Holdout) > 0 {
			cmd += " --holdout " + shellWord(strings.Join(j.Holdout, ","))
		}
		compare = "`" + cmd + " --stat best -o best.yaml` compares the two on these runs"
	}
	return noiseLine(j.Measurements, j.Options.Stat, compare)
}

// shellWord is s, quoted for a POSIX shell when it needs to be.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
