package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/blsim/blsim/calibrate"
	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/internal/outguard"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"github.com/spf13/pflag"
)

// Calibrate is `blsim calibrate`: its flags, and Run.
type Calibrate struct {
	// Bench holds --bench and its grid flags, and the --measurements and
	// --resume flags both modes share.
	Bench BenchGrid
	// Grid is --plans; Prior is --soc.
	Out, Grid, Prior, Name, Workload, SysRoot, Stat, Kernels string
	Clusters, Holdout                                        []string
	Repeats, Rounds, Reruns                                  int
	MicroBudget                                              time.Duration
	Quick, NoFit, AcceptPoor, JSON                           bool

	Flags *pflag.FlagSet
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

// Run measures this machine (or runs --bench over its grid) and fits
// the profile; ctx is done on Ctrl-C, SIGTERM, SIGHUP or SIGQUIT.
func (o *Calibrate) Run(ctx context.Context, stdout, stderr io.Writer) error {
	o.ctx = ctx
	if _, err := FitOptionsOf(o.Stat, o.Kernels); err != nil {
		return err
	}
	// Before any measuring: an output that cannot be written, or would be
	// written over an input, is found out now.
	outs := []string{"measurements", "output"}
	if o.NoFit {
		outs = outs[:1]
	}
	if err := outguard.Check(o.Flags, nil, outs...); err != nil {
		return err
	}
	if o.Reruns < 0 {
		return fmt.Errorf("--reruns %d: must not be negative", o.Reruns)
	}
	o.Bench.Reruns = o.Reruns
	if o.Bench.Bench != "" || o.Bench.Grid != "" {
		return o.bench(ctx, stdout, stderr)
	}
	for _, name := range benchOnlyFlags {
		if o.Flags != nil && o.Flags.Changed(name) {
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
	WarnAll(stderr, c.Warnings)
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
	ms, err := MeasurementsFile(path, nil, stderr)
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
		return WriteJSON(stdout, calibrateJSON{Measurements: path})
	}
	_, err := fmt.Fprintf(stdout, "recorded %s (no fit)\n", path)
	return err
}

// fitProfile fits prior to ms, holding out the throughputs that match
// holdout (none when it is empty), writes the profile to o.Out and prints
// the fit and, with holdout, the held-out error. The fit runs with the
// collector set for it (calibrate.FitCollector).
func fitProfile(stdout, stderr io.Writer, o *Calibrate, prior *model.SoC, ms []measure.Measurement, holdout []string, source string, governors map[string]string) error {
	opts, _ := FitOptionsOf(o.Stat, o.Kernels) // checked by Run
	opts.Context = o.ctx                       // a signal stops the fit too
	job := fit.Job{Prior: prior, Measurements: ms, Options: opts, Holdout: holdout, Source: source, Governors: governors}
	if o.Bench.Bench == "" && o.Bench.Grid == "" {
		// The built-in dispatcher's runs: which kernels they ran.
		line, _ := dispatch.KernelsLine()
		job.Notes = append(job.Notes, line)
	}
	out := FitOutput{Path: o.Bench.Measurements, Out: o.Out, AcceptPoor: o.AcceptPoor, Prior: o.Prior}
	if o.JSON {
		out.JSON = func(r *fit.Result, v *fit.Validation) any {
			return calibrateJSON{Measurements: o.Bench.Measurements, Profile: o.Out, Fit: r, Holdout: v, Noise: NoiseLine(ms, opts.Stat)}
		}
	}
	restore := calibrate.FitCollector(cmp.Or(o.SysRoot, "/"))
	err := out.Run(stdout, stderr, job)
	restore()
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
	var se *model.SettingError
	switch {
	case errors.Is(err, calibrate.ErrNoCluster):
		return errors.New("found no CPU cluster; name one with --cluster big=CPUS")
	case errors.Is(err, calibrate.ErrOtherClusters):
		return fmt.Errorf("--resume: %w", err)
	case errors.Is(err, calibrate.ErrMeasured):
		return fmt.Errorf("--measurements: %s already has measurements; use --resume to continue it, or name another file", path)
	case errors.As(err, &se):
		flag := map[string]string{"Grid": "--plans", "Repeats": "--repeats", "Rounds": "--rounds", "Clusters": "--cluster"}[se.Setting]
		return fmt.Errorf("%s: %w", flag, se.Err)
	}
	return err
}
