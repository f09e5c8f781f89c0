package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/blsim/blsim/calibrate/fit"
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
	prior        *model.SoC    // the profile the runs will be fitted to, if any (adaptTo)

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

// adaptTo fits the runner's configuration to the prior profile the runs
// will be fitted to: without a --knobs file, a split run that leaves the
// little threads unset uses all of the little engine's cores (the seed's
// fork runs its four A55 so), and a record whose plan the profile cannot
// run (more threads than an engine has cores, an engine it lacks) is
// flagged when it arrives, not fitted.
func (o *benchGridOptions) adaptTo(cfg *runner.Config, prior *model.SoC) {
	if o.Knobs == "" {
		if e, _, err := prior.Engine(cfg.Mapping.Engines.Little); err == nil {
			defaults := map[string]string{}
			for k, v := range cfg.Mapping.Defaults {
				defaults[k] = v
			}
			for _, n := range cfg.Mapping.LittleThreads {
				if _, set := defaults[n]; set {
					defaults[n] = strconv.Itoa(e.Cores)
				}
			}
			cfg.Mapping.Defaults = defaults
		}
	}
	cfg.PlanCheck = func(mp model.Plan) string {
		p := fit.Plan(&mp)
		if err := p.Validate(prior); err != nil {
			hint := ""
			if cfg.Mapping.NThreads != runner.ThreadsTotal && mp.Mode != "native" {
				hint = ` (if your fork counts big+little threads in n_threads, say "n_threads: total" in --knobs)`
			}
			return fmt.Sprintf("the profile %s cannot run this record's plan %v: %v%s", prior.Name, p, err, hint)
		}
		return ""
	}
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
		o.adaptTo(&cfg, o.prior)
	}
	// The benchmark runs in a process group of its own, out of reach of the
	// terminal's Ctrl-C: catch it here, so that the runner kills the
	// benchmark instead of leaving it running after blsim dies.
	ctx, stop := signal.NotifyContext(ctx, stopSignals...)
	defer stop()
	path := o.Measurements
	if path == "" {
		path = "runs.jsonl"
	}
	cfg.Workload, cfg.WorkloadYAML = workloadName, workloadYAML
	cfg.Host = &measure.Host{Arch: runtime.GOARCH}
	if name, err := os.Hostname(); err == nil {
		cfg.Host.Name = name
	}
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

	varying := cfg.Grid.Varying()
	if len(varying) == 0 {
		for _, a := range append(append([]runner.Axis(nil), cfg.Grid.Env...), cfg.Grid.Args...) {
			varying = append(varying, a.Name)
		}
	}
	runs := fmt.Sprintf("%d runs", cfg.Grid.Size())
	if cfg.Rounds > 1 {
		order := "in grid order"
		if cfg.Shuffle {
			order = "shuffled"
		}
		runs = fmt.Sprintf("%d runs (%d points x %d rounds, %s)", cfg.Grid.Size()*cfg.Rounds, cfg.Grid.Size(), cfg.Rounds, order)
	}
	fmt.Fprintf(stdout, "%s: %s over %s (timeout %v, %d warm-up, %d retries) -> %s\n",
		quoteCommand(cfg.Grid.Command), runs, axesLabel(cfg.Grid), cfg.Timeout, cfg.Warmup, cfg.Retries, path)
	start := time.Now()
	sum, runErr := runner.Run(ctx, cfg, w, func(done, total int, m *measure.Measurement) {
		fmt.Fprintf(stdout, "[%d/%d] %s  %s%s\n", done, total, knobsLabel(varying, m.Knobs), outcome(m), eta(time.Since(start), done, total))
	})
	if err := w.Close(); err != nil && runErr == nil {
		runErr = fmt.Errorf("measurements %s: %w", path, err)
	}
	fmt.Fprintf(stdout, "%d runs: %d ok, %d failed, %d timed out", sum.Runs, sum.OK, sum.Failed, sum.TimedOut)
	if sum.Flagged > 0 {
		fmt.Fprintf(stdout, ", %d flagged (their records do not match their knobs: kept out of the fit)", sum.Flagged)
	}
	if sum.Skipped > 0 {
		fmt.Fprintf(stdout, "; %d skipped (already measured)", sum.Skipped)
	}
	fmt.Fprintf(stdout, "; %d measurements appended to %s\n", sum.Measurements, path)
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

// eta is "  (eta 1h2m0s)": the time the runs left will take at the pace of
// those done; "" after the last run.
func eta(elapsed time.Duration, done, total int) string {
	if done <= 0 || done >= total {
		return ""
	}
	left := elapsed / time.Duration(done) * time.Duration(total-done)
	return fmt.Sprintf("  (eta %v)", left.Round(time.Second))
}

// outcome is "26.24 t/s" or "failed: why".
func outcome(m *measure.Measurement) string {
	if m.Status == "ok" {
		return fmt.Sprintf("%.2f t/s", m.Median)
	}
	return m.Status + ": " + m.Error
}

// knobsLabel prints the named knobs: "ORK_BL_LITTLE_FRAC=0.15 ORK_BL_POLL=0".
func knobsLabel(names []string, knobs map[string]string) string {
	if len(names) == 0 {
		return "(no knobs)"
	}
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, n+"="+knobs[n])
	}
	return strings.Join(parts, " ")
}

// axesLabel says what varies: "ORK_BL_LITTLE_FRAC (6) x ORK_BL_POLL (2)".
func axesLabel(g runner.Grid) string {
	var parts []string
	for _, a := range append(append([]runner.Axis(nil), g.Env...), g.Args...) {
		if len(a.Values) > 1 {
			parts = append(parts, fmt.Sprintf("%s (%d)", a.Name, len(a.Values)))
		}
	}
	if len(parts) == 0 {
		return "no varying knob"
	}
	return strings.Join(parts, " x ")
}

// quoteCommand prints words so that SplitCommand reads them back.
func quoteCommand(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w != "" && !strings.ContainsAny(w, " \t\n'\"\\") {
			out[i] = w
			continue
		}
		out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
