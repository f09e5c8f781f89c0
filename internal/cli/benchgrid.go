package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"time"

	"github.com/blsim/blsim/calibrate"
	"github.com/blsim/blsim/calibrate/runner"
	"github.com/blsim/blsim/model"
	"github.com/spf13/pflag"
)

// BenchGrid are the flags of `blsim calibrate --bench`: the user's
// benchmark command, the grid of knobs to run it over, and how to run it.
type BenchGrid struct {
	Bench        string        // the command line, split into words, run without a shell
	Env          []string      // NAME=VALUES, one per --env
	Args         []string      // -FLAG=VALUES, one per --arg
	Grid         string        // YAML grid file
	Knobs        string        // YAML knob mapping file; "" is the seed's ORK_* names
	Timeout      time.Duration // per run
	Warmup       int           // unrecorded runs before each point's measured one
	Retries      int           // further attempts of a failed run
	Reruns       int           // further attempts of a disturbed run (runner.Config.Reruns; set by calibrate's --reruns)
	Resume       bool          // skip runs already measured ok in Measurements
	Measurements string        // JSONL file the runs are appended to
	Rounds       int           // passes over the grid (set by calibrate's --rounds)
	Shuffle      bool          // each round in an order of its own
	KeepGoing    bool          // run every point even when the first ones all fail the same way
	fileHoldout  []string      // the grid file's holdout patterns (set by config)
	prior        *model.SoC    // the profile the runs will be fitted to, if any (calibrate.AdaptGrid)

	flags *pflag.FlagSet // tells flags given from defaults, so they win over the grid file
}

// AddBenchGridFlags defines the --bench flags on fs.
func AddBenchGridFlags(fs *pflag.FlagSet, o *BenchGrid) {
	o.flags = fs
	fs.StringVar(&o.Bench, "bench", "", "benchmark command to run over the grid, e.g. 'llama-bench -m model.gguf -p 512 -n 0 -o jsonl'\n(split into words with shell-like quoting, then executed without a shell: no $, globs, pipes or redirections)")
	fs.StringArrayVar(&o.Env, "env", nil, "environment knob NAME=VALUES, repeatable; VALUES is one value, a list a,b,c or a range start:stop:step\n(e.g. ORK_BL_LITTLE_FRAC=0.05:0.30:0.05, ORK_BL_POLL=0,50)")
	fs.StringArrayVar(&o.Args, "arg", nil, "command-line knob -FLAG=VALUES, repeatable; each run gets \"-FLAG VALUE\" appended (e.g. -t=4, --poll=0,50)")
	fs.StringVar(&o.Grid, "grid", "", "YAML grid file: command, env, args, timeout_s, warmup, retries, rounds, shuffle, holdout\n(flags add to it and override it)")
	fs.StringVar(&o.Knobs, "knobs", "", "YAML file mapping your fork's knob names to plan fields (default: the seed's ORK_* names)")
	fs.DurationVar(&o.Timeout, "timeout", runner.DefaultTimeout, "time limit of one run; a run past it is killed with its children")
	fs.IntVar(&o.Warmup, "warmup", 0, "unrecorded runs before each measured run")
	fs.IntVar(&o.Retries, "retries", 0, "further attempts of a failed or timed-out run")
	fs.BoolVar(&o.KeepGoing, "keep-going", false, fmt.Sprintf("run the whole grid even when its first %d runs fail the same way (else it stops there)", runner.SameFailures))
	fs.BoolVar(&o.Resume, "resume", false, "skip runs already measured ok in the measurements file")
	fs.StringVar(&o.Measurements, "measurements", "runs.jsonl", "JSONL file each run is appended to as soon as it ends")
	fs.BoolVar(&o.Shuffle, "shuffle", false, "with --rounds: run each round's points in an order of its own (fixed by the round's number),\nso that a machine's slow spells do not fall on the same points every round")
}

// changed reports whether the flag was given on the command line.
func (o *BenchGrid) changed(name string) bool {
	if o.flags == nil {
		return true
	}
	f := o.flags.Lookup(name)
	return f != nil && f.Changed
}

// config builds the runner's configuration from the grid file and the
// flags, which win over it where given; errors name the flag.
func (o *BenchGrid) Config() (runner.Config, error) {
	s := runner.Settings{GridFile: o.Grid, Command: o.Bench, Env: o.Env, Args: o.Args, Knobs: o.Knobs}
	s.Timeout, s.Warmup = given(o.changed("timeout"), &o.Timeout), given(o.changed("warmup"), &o.Warmup)
	s.Retries, s.Rounds = given(o.changed("retries"), &o.Retries), given(o.changed("rounds"), &o.Rounds)
	s.Shuffle = given(o.changed("shuffle"), &o.Shuffle)
	cfg, holdout, err := s.Config()
	cfg.Reruns = o.Reruns
	o.fileHoldout = holdout
	var se *model.SettingError
	switch {
	case errors.Is(err, runner.ErrTwoCommands):
		return cfg, fmt.Errorf("--bench and the command of %s: give one of them", o.Grid)
	case errors.Is(err, runner.ErrNoCommand):
		return cfg, errors.New("no benchmark command: give --bench 'llama-bench ...' or a --grid file with a command")
	case errors.As(err, &se):
		flag := map[string]string{"Command": "--bench", "Timeout": "--timeout", "Warmup": "--warmup", "Retries": "--retries", "Rounds": "--rounds"}[se.Setting]
		if se.Value != "" {
			flag += " " + se.Value
		}
		return cfg, fmt.Errorf("%s: %w", flag, se.Err)
	}
	return cfg, err
}

// given is v when the flag was given, else nil.
func given[T any](changed bool, v *T) *T {
	if changed {
		return v
	}
	return nil
}

// RunBenchGrid runs the benchmark over the grid, appending every run to
// the measurements file as soon as it ends and printing one line per run
// to stdout. It returns the measurements file's path. When ctx is done
// (Ctrl-C) it stops, killing the running benchmark; every finished run is
// kept, and the error wraps ctx.Err().
func RunBenchGrid(ctx context.Context, o *BenchGrid, workloadName, workloadYAML string, stdout io.Writer) (string, error) {
	cfg, err := o.Config()
	if err != nil {
		return "", err
	}
	if o.prior != nil {
		calibrate.AdaptGrid(&cfg, o.prior, o.Knobs != "")
	}
	// The benchmark runs in a process group of its own, out of reach of the
	// terminal's Ctrl-C: catch it here, so that the runner kills the
	// benchmark instead of leaving it running after blsim dies.
	ctx, stop := signal.NotifyContext(ctx, StopSignals...)
	defer stop()
	path := cmp.Or(o.Measurements, "runs.jsonl")
	cfg.Workload, cfg.WorkloadYAML, cfg.KeepGoing = workloadName, workloadYAML, o.KeepGoing
	calibrate.EstimateGrid(&cfg, o.prior) // the grid's time at the prior's rates
	sum, runErr := runner.RunFile(ctx, cfg, path, o.Resume, stdout)
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
