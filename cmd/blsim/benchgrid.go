package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"time"

	"github.com/blsim/blsim/calibrate"
	"github.com/blsim/blsim/calibrate/runner"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/spf13/pflag"
)

// benchGridOptions are the flags of `blsim calibrate --bench`: the user's
// benchmark command, the grid of knobs to run it over, and how to run it.
type benchGridOptions struct {
	Bench        string        // the command line, split into words, run without a shell
	Env          []string      // NAME=VALUES, one per --env
	Args         []string      // -FLAG=VALUES, one per --arg
	Grid         string        // YAML grid file
	Knobs        string        // YAML knob mapping file; "" is the seed's ORK_* names
	Timeout      time.Duration // per run
	Warmup       int           // unrecorded runs before each point's measured one
	Retries      int           // further attempts of a failed run
	Resume       bool          // skip runs already measured ok in Measurements
	Measurements string        // JSONL file the runs are appended to
	Rounds       int           // passes over the grid (set by calibrate's --rounds)
	Shuffle      bool          // each round in an order of its own
	fileHoldout  []string      // the grid file's holdout patterns (set by config)
	prior        *model.SoC    // the profile the runs will be fitted to, if any (calibrate.AdaptGrid)

	flags *pflag.FlagSet // tells flags given from defaults, so they win over the grid file
}

// addBenchGridFlags defines the --bench flags on fs.
func addBenchGridFlags(fs *pflag.FlagSet, o *benchGridOptions) {
	o.flags = fs
	fs.StringVar(&o.Bench, "bench", "", "benchmark command to run over the grid, e.g. 'llama-bench -m model.gguf -p 512 -n 0 -o jsonl'\n(split into words with shell-like quoting, then executed without a shell: no $, globs, pipes or redirections)")
	fs.StringArrayVar(&o.Env, "env", nil, "environment knob NAME=VALUES, repeatable; VALUES is one value, a list a,b,c or a range start:stop:step\n(e.g. ORK_BL_LITTLE_FRAC=0.05:0.30:0.05, ORK_BL_POLL=0,50)")
	fs.StringArrayVar(&o.Args, "arg", nil, "command-line knob -FLAG=VALUES, repeatable; each run gets \"-FLAG VALUE\" appended (e.g. -t=4, --poll=0,50)")
	fs.StringVar(&o.Grid, "grid", "", "YAML grid file: command, env, args, timeout_s, warmup, retries, rounds, shuffle, holdout\n(flags add to it and override it)")
	fs.StringVar(&o.Knobs, "knobs", "", "YAML file mapping your fork's knob names to plan fields (default: the seed's ORK_* names)")
	fs.DurationVar(&o.Timeout, "timeout", runner.DefaultTimeout, "time limit of one run; a run past it is killed with its children")
	fs.IntVar(&o.Warmup, "warmup", 0, "unrecorded runs before each measured run")
	fs.IntVar(&o.Retries, "retries", 0, "further attempts of a failed or timed-out run")
	fs.BoolVar(&o.Resume, "resume", false, "skip runs already measured ok in the measurements file")
	fs.StringVar(&o.Measurements, "measurements", "runs.jsonl", "JSONL file each run is appended to as soon as it ends")
	fs.BoolVar(&o.Shuffle, "shuffle", false, "with --rounds: run each round's points in an order of its own (fixed by the round's number),\nso that a machine's slow spells do not fall on the same points every round")
}

// changed reports whether the flag was given on the command line.
func (o *benchGridOptions) changed(name string) bool {
	if o.flags == nil {
		return true
	}
	f := o.flags.Lookup(name)
	return f != nil && f.Changed
}

// config builds the runner's configuration from the flags and the grid
// file.
func (o *benchGridOptions) config() (runner.Config, error) {
	var cfg runner.Config
	timeout, warmup, retries := o.Timeout, o.Warmup, o.Retries
	if o.Grid != "" {
		gf, err := runner.LoadGridFile(o.Grid)
		if err != nil {
			return cfg, err
		}
		cfg.Grid = gf.Grid
		if gf.Timeout > 0 && !o.changed("timeout") {
			timeout = gf.Timeout
		}
		if !o.changed("warmup") {
			warmup = gf.Warmup
		}
		if !o.changed("retries") {
			retries = gf.Retries
		}
		if gf.Rounds > 0 && !o.changed("rounds") {
			o.Rounds = gf.Rounds
		}
		if !o.changed("shuffle") {
			o.Shuffle = o.Shuffle || gf.Shuffle
		}
		o.fileHoldout = gf.Holdout
	}
	if o.Bench != "" {
		if len(cfg.Grid.Command) > 0 {
			return cfg, fmt.Errorf("--bench and the command of %s: give one of them", o.Grid)
		}
		words, err := runner.SplitCommand(o.Bench)
		if err != nil {
			return cfg, fmt.Errorf("--bench: %w", err)
		}
		cfg.Grid.Command = words
	}
	if len(cfg.Grid.Command) == 0 {
		return cfg, errors.New("no benchmark command: give --bench 'llama-bench ...' or a --grid file with a command")
	}
	for _, spec := range o.Env {
		a, err := runner.ParseEnvAxis(spec)
		if err != nil {
			return cfg, err
		}
		cfg.Grid.Env = append(cfg.Grid.Env, a)
	}
	for _, spec := range o.Args {
		a, err := runner.ParseArgAxis(spec)
		if err != nil {
			return cfg, err
		}
		cfg.Grid.Args = append(cfg.Grid.Args, a)
	}
	if err := cfg.Grid.Validate(); err != nil {
		return cfg, err
	}
	switch {
	case timeout <= 0:
		return cfg, fmt.Errorf("--timeout %v: must be positive", timeout)
	case warmup < 0:
		return cfg, fmt.Errorf("--warmup %d: must not be negative", warmup)
	case retries < 0:
		return cfg, fmt.Errorf("--retries %d: must not be negative", retries)
	}
	cfg.Timeout, cfg.Warmup, cfg.Retries = timeout, warmup, retries
	cfg.Mapping = runner.DefaultMapping()
	if o.Knobs != "" {
		m, err := runner.LoadMapping(o.Knobs)
		if err != nil {
			return cfg, err
		}
		cfg.Mapping = m
	}
	if o.Rounds < 0 {
		return cfg, fmt.Errorf("--rounds: %d is negative", o.Rounds)
	}
	cfg.Rounds, cfg.Shuffle = o.Rounds, o.Shuffle
	return cfg, nil
}

// runBenchGrid runs the benchmark over the grid, appending every run to
// the measurements file as soon as it ends and printing one line per run
// to stdout. It returns the measurements file's path. When ctx is done
// (Ctrl-C) it stops, killing the running benchmark; every finished run is
// kept, and the error wraps ctx.Err().
func runBenchGrid(ctx context.Context, o *benchGridOptions, workloadName, workloadYAML string, stdout, stderr io.Writer) (string, error) {
	cfg, err := o.config()
	if err != nil {
		return "", err
	}
	if o.prior != nil {
		calibrate.AdaptGrid(&cfg, o.prior, o.Knobs != "")
	}
	// The benchmark runs in a process group of its own, out of reach of the
	// terminal's Ctrl-C: catch it here, so that the runner kills the
	// benchmark instead of leaving it running after blsim dies.
	ctx, stop := signal.NotifyContext(ctx, stopSignals...)
	defer stop()
	path := cmp.Or(o.Measurements, "runs.jsonl")
	cfg.Workload, cfg.WorkloadYAML = workloadName, workloadYAML
	cfg.Host = &measure.Host{Arch: runtime.GOARCH}
	cfg.Host.Name, _ = os.Hostname()
	if o.Resume {
		if cfg.Done, err = measure.Done(path); err != nil {
			return path, err
		}
	} else if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		fmt.Fprintf(stderr, "blsim: appending to %s, which holds earlier runs (--resume skips the ones measured)\n", path)
	}
	w, err := measure.Create(path)
	if err != nil {
		return path, err
	}
	fmt.Fprintln(stdout, cfg.Header(path))
	sum, runErr := runner.Run(ctx, cfg, w, cfg.LineProgress(stdout))
	if err := w.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("measurements %s: %w", path, err)
	}
	fmt.Fprintln(stdout, sum.Line(path))
	if runErr != nil && ctx.Err() != nil && errors.Is(runErr, ctx.Err()) {
		return path, fmt.Errorf("interrupted after %d of %d runs; they are in %s, --resume continues: %w",
			sum.Runs, sum.Points-sum.Skipped, path, runErr)
	}
	if runErr == nil && sum.Runs > 0 && sum.OK == 0 {
		return path, fmt.Errorf("every one of the %d runs failed or timed out (each one's error is in %s); fix the command and run again with --resume",
			sum.Runs, path)
	}
	return path, runErr
}
