package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"runtime"
	"time"

	"github.com/blsim/blsim/calibrate"
	"github.com/blsim/blsim/calibrate/busy"
	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/internal/outguard"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// calibrateOptions are the flags of `blsim calibrate`.
type calibrateOptions struct {
	// Bench holds --bench and its grid flags, and the --measurements and
	// --resume flags both modes share.
	Bench benchGridOptions
	// Grid is --plans; Prior is --soc.
	Out, Grid, Prior, Name, Workload, SysRoot, Stat, Kernels string
	Clusters, Holdout                                        []string
	Repeats, Rounds, Reruns                                  int
	MicroBudget                                              time.Duration
	Quick, NoFit, AcceptPoor, JSON                           bool

	flags *pflag.FlagSet
	ctx   context.Context // done on Ctrl-C, SIGTERM, SIGHUP or SIGQUIT
}

// calibrateJSON is what calibrate --json prints.
type calibrateJSON struct {
	Measurements string          `json:"measurements"`
	Profile      string          `json:"profile,omitempty"`
	Fit          *fit.Result     `json:"fit,omitempty"`
	Holdout      *fit.Validation `json:"holdout,omitempty"`
	Noise        string          `json:"noise,omitempty"`
}

func newCalibrateCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &calibrateOptions{}
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Measure this machine and fit a SoC profile to it",
		Long: `Measure this machine: find its CPU clusters (or take --cluster NAME=CPUS),
run pinned microbenchmarks on each (bandwidth alone and contended, the shared
cache, kernel rates, gemv efficiency, futex and spin wake, barrier), time the
built-in big/little dispatcher over a grid of plans, and fit the model to it.
Each measurement is appended to --measurements at once (--resume continues).

--plans fit+heldout adds plans the fit never sees (--shuffle: each round in an
order of its own) and prints the error on them. --bench drives your own
benchmark (llama-bench) over a knob grid; --holdout names the points to hold
out. --stat: a configuration's median (a quiet board) or fastest sample (a
shared host). A run others disturbed (busy CPUs, steal, pressure) is run again
(--reruns) and, if it stays so, kept out of the fit. Needs Linux. Set the
governors (cpufreq, the memory controller's devfreq) to
performance and stop everything else first.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), stopSignals...)
			defer stop()
			o.ctx = ctx
			return calibrateRun(ctx, o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.Clusters, "cluster", nil, "a cluster as NAME=CPUS (e.g. big=4-7); repeat for each; the first is the main engine")
	f.BoolVar(&o.Quick, "quick", false, "short budgets and a small grid (under a minute)")
	f.StringVarP(&o.Out, "output", "o", "profile.yaml", "where to write the fitted profile")
	addBenchGridFlags(f, &o.Bench)
	f.StringVar(&o.Grid, "plans", "fit", "built-in dispatcher plans: fit, heldout (other fractions, for blsim validate),\nor fit+heldout (both in the same rounds: fits on fit, prints the error on heldout)")
	f.StringVar(&o.Prior, "soc", "", "with --bench: the prior profile to fit (a preset name or a YAML file)")
	f.BoolVar(&o.NoFit, "no-fit", false, "only record dispatcher runs (no microbenchmarks, no fit)")
	f.StringVar(&o.Name, "name", "", "name of the fitted profile (default: host name)")
	f.StringVar(&o.Workload, "workload", "", "the model the runs execute: with --bench, what the benchmark command runs (required);\nelse the built-in dispatcher's (default: synthetic-moe-calib sized to twice the last-level cache)")
	addGGUFFlag(cmd, &o.Workload)
	f.IntVar(&o.Repeats, "repeats", 0, "timed repeats per dispatcher run (default 2)")
	f.IntVar(&o.Reruns, "reruns", busy.DefaultMaxReruns, "run a run again, at most this many times, when other processes disturbed it\n(each after a quiet moment of its CPUs, within a quarter of the time measured; 0: never)")
	f.IntVar(&o.Rounds, "rounds", 0, "passes over the grid, one plan after another, merged by --stat (default 5, 1 with --quick, 1 with --bench)")
	addStatFlag(f, &o.Stat)
	f.StringSliceVar(&o.Holdout, "holdout", nil, "fit on the runs matching none of these patterns and print the error on those that match\n(as blsim validate --holdout: f=0.15, a knob NAME=VALUE, part of the id; --plans fit+heldout: set=heldout)")
	addKernelsFlag(f, &o.Kernels)
	addAcceptPoorFlag(f, &o.AcceptPoor)
	f.BoolVar(&o.JSON, "json", false, "print the fit (and the held-out error) as JSON; progress goes to stderr")
	o.flags = f
	f.StringVar(&o.SysRoot, "sysfs-root", "/", "root of the sysfs and procfs trees to read the topology from")
	_ = f.MarkHidden("sysfs-root")
	f.DurationVar(&o.MicroBudget, "micro-budget", 0, "time budget of each microbenchmark (default 2s, 300ms with --quick)")
	return cmd
}

func calibrateRun(ctx context.Context, o *calibrateOptions, stdout, stderr io.Writer) error {
	if _, err := fitOptionsOf(o.Stat, o.Kernels); err != nil {
		return err
	}
	// Before any measuring: an output that cannot be written, or would be
	// written over an input, is found out now.
	outs := []string{"measurements", "output"}
	if o.NoFit {
		outs = outs[:1]
	}
	if err := outguard.Check(o.flags, nil, outs...); err != nil {
		return err
	}
	if o.Reruns < 0 {
		return fmt.Errorf("--reruns %d: must not be negative", o.Reruns)
	}
	o.Bench.Reruns = o.Reruns
	if o.Bench.Bench != "" || o.Bench.Grid != "" {
		return calibrateBench(ctx, o, stdout, stderr)
	}
	for _, name := range benchOnlyFlags {
		if o.flags != nil && o.flags.Changed(name) {
			return fmt.Errorf("--%s: only with --bench or --grid (the built-in dispatcher's plans are set by --plans)", name)
		}
	}
	if runtime.GOOS != "linux" {
		return fmt.Errorf("calibrate: measuring needs Linux (this is %s); predict, fit and validate work here", runtime.GOOS)
	}
	if o.NoFit && len(o.Holdout) > 0 {
		return fmt.Errorf("--holdout: nothing is fitted with --no-fit (validate the file later with blsim validate --holdout)")
	}
	path := o.Bench.Measurements
	c, err := calibrate.Open(calibrate.Run{Settings: calibrate.Settings{Quick: o.Quick, Grid: o.Grid, NoMicro: o.NoFit, Repeats: o.Repeats,
		Rounds: o.Rounds, MicroBudget: o.MicroBudget, Shuffle: o.Bench.Shuffle, Reruns: o.Bench.Reruns}, Clusters: o.Clusters, SysRoot: o.SysRoot, Path: path, Resume: o.Bench.Resume})
	if err != nil {
		return calibrateError(err, path)
	}
	if line, slow := dispatch.KernelsLine(); slow {
		fmt.Fprintf(stderr, "blsim: warning: %s\n", line)
	} else {
		fmt.Fprintf(stderr, "blsim: %s\n", line)
	}
	if o.Workload != "" {
		if c.Workload, err = presets.LoadWorkload(o.Workload); err != nil {
			return fmt.Errorf("--workload: %w", err)
		}
	}
	if err := c.Start(); err != nil {
		return calibrateError(err, path)
	}
	warnAll(stderr, c.Warnings)
	fmt.Fprintf(stderr, "blsim %s\n", c.Header())
	c.Announce = func(line string) { fmt.Fprintf(stderr, "blsim: %s\n", line) }
	taken, err := c.Measure(ctx, calibrate.NewProgress(stderr, len(c.Steps)))
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted: every finished measurement is in %s; run again with --resume", path)
	}
	if err != nil {
		return err
	}
	if ran, failed := calibrate.DispatcherFailures(taken); ran > 0 && failed == ran {
		return fmt.Errorf("every one of the %d dispatcher runs failed (each one's error is in %s); run again with --resume once fixed", ran, path)
	}
	if o.NoFit {
		return recorded(stdout, path, o.JSON)
	}
	ms, err := readMeasurements(path, nil, stderr)
	if err != nil {
		return err
	}
	prior := calibrate.Prior(cmp.Or(o.Name, c.Host.Name, "this-machine"), c.Engines, ms, c.Workload)
	holdout := o.Holdout
	if len(holdout) == 0 && o.Grid == calibrate.BothGrids {
		holdout = []string{"set=" + calibrate.HeldOutGrid}
	}
	return calibrate.HintQuiet(fitProfile(stdout, stderr, o, prior, ms, holdout, "blsim calibrate on "+c.Host.Name, c.Host.Governors), ms)
}

// recorded says where a calibration without a fit (--no-fit) put its
// measurements.
func recorded(stdout io.Writer, path string, asJSON bool) error {
	if asJSON {
		return writeJSON(stdout, calibrateJSON{Measurements: path})
	}
	_, err := fmt.Fprintf(stdout, "recorded %s (no fit)\n", path)
	return err
}

// fitProfile fits prior to ms, holding out the throughputs that match
// holdout (none when it is empty), writes the profile to o.Out and prints
// the fit and, with holdout, the held-out error.
func fitProfile(stdout, stderr io.Writer, o *calibrateOptions, prior *model.SoC, ms []measure.Measurement, holdout []string, source string, governors map[string]string) error {
	opts, _ := fitOptionsOf(o.Stat, o.Kernels) // checked by calibrateRun
	opts.Context = o.ctx                       // a signal stops the fit too
	job := fit.Job{Prior: prior, Measurements: ms, Options: opts, Holdout: holdout, Source: source, Governors: governors}
	if o.Bench.Bench == "" && o.Bench.Grid == "" {
		// The built-in dispatcher's runs: which kernels they ran.
		line, _ := dispatch.KernelsLine()
		job.Notes = append(job.Notes, line)
	}
	out := fitOutput{path: o.Bench.Measurements, out: o.Out, acceptPoor: o.AcceptPoor, prior: o.Prior}
	if o.JSON {
		out.json = func(r *fit.Result, v *fit.Validation) any {
			return calibrateJSON{Measurements: o.Bench.Measurements, Profile: o.Out, Fit: r, Holdout: v, Noise: noiseLine(ms, opts.Stat)}
		}
	}
	err := out.run(stdout, stderr, job)
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("interrupted during the fit: no profile written; every measurement is in %s (blsim fit fits them)", o.Bench.Measurements)
	}
	return err
}

// benchOnlyFlags are the calibrate flags that only the --bench mode reads.
var benchOnlyFlags = []string{"env", "arg", "knobs", "timeout", "warmup", "retries"}

// calibrateError names the flag behind an error of calibrate.Open or
// Start; path is the measurements file.
func calibrateError(err error, path string) error {
	var se *calibrate.SettingError
	switch {
	case errors.Is(err, calibrate.ErrNoCluster):
		return errors.New("found no CPU cluster; name one with --cluster big=CPUS")
	case errors.Is(err, calibrate.ErrMeasured):
		return fmt.Errorf("--measurements: %s already has measurements; use --resume to continue it, or name another file", path)
	case errors.As(err, &se):
		flag := map[string]string{"Grid": "--plans", "Repeats": "--repeats", "Rounds": "--rounds", "Clusters": "--cluster"}[se.Setting]
		return fmt.Errorf("%s: %w", flag, se.Err)
	}
	return err
}
