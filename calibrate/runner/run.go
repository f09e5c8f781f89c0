package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/blsim/blsim/calibrate/busy"
	"github.com/blsim/blsim/calibrate/llamabench"
	"github.com/blsim/blsim/internal/shuffle"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// Defaults of Config.
const (
	// DefaultTimeout bounds one run: model load plus llama-bench's
	// repetitions of a 512-token prompt on a slow board fit well within.
	DefaultTimeout = 30 * time.Minute
	// DefaultOutputLimit is how much of a run's stdout and of its stderr a
	// measurement keeps (the head and the tail).
	DefaultOutputLimit = 4096
	// maxParsed is the most stdout read for records; more is dropped.
	maxParsed = 64 << 20
	// waitDelay is how long Wait waits for the output pipes after the
	// command exited or was killed.
	waitDelay = 2 * time.Second
)

// Config is what Run runs.
type Config struct {
	// Grid is the command and its knobs; it must pass Grid.Validate.
	Grid Grid
	// Mapping turns knobs into plans; the zero Mapping means
	// DefaultMapping.
	Mapping Mapping
	// Timeout bounds each run, warm-ups included; 0 means DefaultTimeout.
	// A run past it is killed, with its whole process group.
	Timeout time.Duration
	// Warmup is the number of unrecorded runs made before each point's
	// measured run (a failed warm-up ends the warm-ups early).
	Warmup int
	// Retries is how many more times a failed run is tried; the last
	// attempt is recorded. A command that cannot be started is not retried.
	Retries int
	// Reruns is how many more times, at most, a run that other processes
	// disturbed (package busy) is run, each after a quiet moment, within a
	// budget of time over the grid (busy.Policy): the least disturbed is
	// recorded, with its interference. 0: none.
	Reruns int
	// Done holds the IDs already measured (measure.Done, for --resume):
	// their points are skipped.
	Done map[string]bool
	// Workload names the model the command runs (a preset name or the
	// workload's own name); WorkloadYAML holds the workload when it is a
	// file, not a preset.
	Workload     string
	WorkloadYAML string
	// Format is the llama-bench output format; Auto (the zero value)
	// detects it.
	Format llamabench.Format
	// Host is recorded in every measurement when not nil.
	Host *measure.Host
	// Dir is the command's working directory; "" is the current one.
	Dir string
	// OutputLimit is how many bytes of stdout and of stderr a measurement
	// keeps; 0 means DefaultOutputLimit.
	OutputLimit int
	// Rounds runs the whole grid this many times, one point after another,
	// so that a slow spell of a shared machine hits one run of several
	// points rather than every run of one (fits merge the rounds of a
	// point by their median); 0 means 1. With more than one round, IDs end
	// in "/round=N".
	Rounds int
	// Shuffle runs each round's points in an order of their own, drawn
	// from the round's number (the same on every run of blsim, so --resume
	// and a rerun see the same order), so that a machine that slows down
	// or speeds up over a round does not fall on the same points, in the
	// same direction, round after round.
	Shuffle bool
	// Estimate, when not nil, says about how long one run of a point
	// takes (false: it cannot tell), for Header's estimate of the grid's
	// time (calibrate.EstimateGrid predicts it from a prior profile).
	Estimate func(Point) (time.Duration, bool)
	// PlanCheck, when not nil, says why a record's plan cannot be what ran
	// (e.g. more threads than the profile's engine has cores), or "": such
	// a record is flagged and kept out of fits, and the grid goes on.
	PlanCheck func(model.Plan) string
	// KeepGoing runs the whole grid even when its first runs all fail the
	// same way; without it Run stops after SameFailures such runs (a
	// missing command, a bad flag) with a *SameFailuresError.
	KeepGoing bool
}

// SameFailures is how many runs failing the same way at the start of a
// grid stop it (unless Config.KeepGoing).
const SameFailures = 3

// A SameFailuresError says that the first runs of a grid all failed the
// same way, so Run stopped rather than repeat the failure on every point.
type SameFailuresError struct {
	Runs, Left int    // runs made (all failed), runs not made
	Reason     string // the status and error the runs share
}

func (e *SameFailuresError) Error() string {
	return fmt.Sprintf("the first %d runs failed the same way (%s); stopped before the other %d: fix the command (--keep-going runs them all)",
		e.Runs, e.Reason, e.Left)
}

// Summary counts what Run did.
type Summary struct {
	Points       int // points in the grid
	Skipped      int // already done (Config.Done)
	Runs         int // points run and recorded
	OK           int // of which succeeded
	Failed       int // of which failed: exit status, no output, garbage, not found, plan
	TimedOut     int // of which timed out
	Flagged      int // of which finished but printed a record that does not match their knobs
	Measurements int // lines written (a run printing several pp tests writes several)
}

// Status values of a measurement.
const (
	statusOK      = measure.StatusOK
	statusFailed  = measure.StatusFailed
	statusTimeout = measure.StatusTimeout
	statusFlagged = measure.StatusFlagged
)

// Run runs every point of cfg.Grid not in cfg.Done, in the order of
// Grid.Points, and writes one measurement per prompt-processing test the
// command printed (one "failed" or "timeout" measurement when the run
// failed) to w, as soon as the run ends. progress, when not nil, is called
// after each run with the number of runs done and to do (skipped points not
// counted) and the run's last measurement.
//
// A failing run does not stop the grid. Run returns early only when ctx is
// done, with ctx.Err() (the running command is killed and not recorded,
// every finished run is on disk), or when w cannot write, with that error.
//
// The command is executed directly, never through a shell, with the
// point's arguments appended and its environment on top of this process's.
// Measurement IDs are the point's ID, with "#i" appended when the command
// printed several prompt-processing tests.
func Run(ctx context.Context, cfg Config, w *measure.Writer, progress measure.Progress) (Summary, error) {
	var sum Summary
	if err := cfg.Grid.Validate(); err != nil {
		return sum, err
	}
	if cfg.Mapping.isZero() {
		cfg.Mapping = DefaultMapping()
	}
	if err := cfg.Mapping.Validate(); err != nil {
		return sum, fmt.Errorf("knobs: %v", err)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.OutputLimit <= 0 {
		cfg.OutputLimit = DefaultOutputLimit
	}
	if err := cfg.checkCounts(); err != nil {
		return sum, err
	}
	// The plan must describe what ran: a mapped variable the grid leaves
	// alone but this process exports reaches the command, so it counts.
	inherited := map[string]string{}
	for _, name := range cfg.Mapping.EnvNames() {
		if v, ok := os.LookupEnv(name); ok {
			inherited[name] = v
		}
	}
	r := &runner{cfg: cfg, environ: os.Environ(), inherited: inherited, policy: busy.NewPolicy(cfg.Reruns)}

	distinct, _ := cfg.Distinct()
	points := Schedule(distinct, cfg.Rounds, cfg.Shuffle)
	sum.Points = len(points)
	var todo []Point
	for _, p := range points {
		if cfg.Done[p.ID] || cfg.Done[p.ID+"#0"] {
			sum.Skipped++
			continue
		}
		todo = append(todo, p)
	}
	firstFailure := "" // what every run so far failed with, "" once one differs or succeeds
	for i, p := range todo {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		ms, err := r.point(ctx, p)
		if err != nil {
			return sum, err
		}
		for _, m := range ms {
			if err := w.Write(m); err != nil {
				return sum, err
			}
			sum.Measurements++
		}
		sum.Runs++
		flagged := false
		for _, m := range ms {
			flagged = flagged || m.Status == statusFlagged
		}
		switch {
		case flagged:
			sum.Flagged++
		case ms[0].Status == statusOK:
			sum.OK++
		case ms[0].Status == statusTimeout:
			sum.TimedOut++
		default:
			sum.Failed++
		}
		if progress != nil {
			progress(i+1, len(todo), "", &ms[len(ms)-1])
		}
		if why := failure(ms); i == 0 {
			firstFailure = why
		} else if why != firstFailure {
			firstFailure = ""
		}
		if !cfg.KeepGoing && firstFailure != "" && i+1 == SameFailures && i+1 < len(todo) {
			return sum, &SameFailuresError{Runs: i + 1, Left: len(todo) - i - 1, Reason: firstFailure}
		}
	}
	return sum, nil
}

// Schedule lays out rounds passes over points (0 means 1). With more than
// one round, each point's ID gets "/round=N". With shuffled, each round's
// points come in a permutation seeded by the round's number alone.
func Schedule(points []Point, rounds int, shuffled bool) []Point {
	rounds = max(rounds, 1)
	all := make([]Point, 0, rounds*len(points))
	for round := 1; round <= rounds; round++ {
		these := append([]Point(nil), points...)
		if shuffled {
			shuffle.Round(these, round)
		}
		for _, p := range these {
			if rounds > 1 {
				p.ID = fmt.Sprintf("%s/round=%d", p.ID, round)
			}
			all = append(all, p)
		}
	}
	return all
}

type runner struct {
	cfg       Config
	environ   []string
	inherited map[string]string
	policy    *busy.Policy
}

// result is one execution of the command.
type result struct {
	start    time.Time
	stdout   []byte
	stdoutN  int64 // bytes the command wrote to stdout
	stderr   *headTail
	exitCode int
	cpuSecs  float64 // the command's CPU time and its waited-for children's (-1: unknown)
	startErr error   // the command could not be started
	waitErr  error   // exit status, signal, ErrWaitDelay
	timedOut bool
}

func (res *result) ok() bool { return res.startErr == nil && res.waitErr == nil && !res.timedOut }

// point makes the warm-ups and the measured run (with retries) of p and
// returns its measurements; an error only when ctx is done.
func (r *runner) point(ctx context.Context, p Point) ([]measure.Measurement, error) {
	for range r.cfg.Warmup {
		res, err := r.exec(ctx, p, nil)
		if err != nil {
			return nil, err
		}
		if !res.ok() {
			break
		}
	}
	var ms []measure.Measurement
	attempts := 0
	for attempts <= r.cfg.Retries {
		var retry bool
		got, in, err := busy.Run(r.policy, nil, func(w *busy.Watch) ([]measure.Measurement, float64, error) {
			res, err := r.exec(ctx, p, w)
			if err != nil {
				return nil, -1, err
			}
			attempts++
			ms, retry = r.measurements(p, res)
			if ms[0].Status != statusOK && ms[0].Status != statusFlagged {
				return ms, res.cpuSecs, errFailed // not a run to time again
			}
			return ms, res.cpuSecs, nil
		})
		if err != nil && !errors.Is(err, errFailed) {
			return nil, err
		}
		ms = got
		for i := range ms {
			ms[i].Interference = in
		}
		if !retry {
			break
		}
	}
	if attempts > 1 && ms[0].Status != statusOK {
		ms[0].Error += fmt.Sprintf(" (%d attempts)", attempts)
	}
	return ms, nil
}

// errFailed ends the re-runs of a run that failed.
var errFailed = errors.New("runner: the run failed")

// exec runs the command once for p, which w (when not nil) follows. It
// returns an error only when ctx was done before the command finished.
func (r *runner) exec(ctx context.Context, p Point, w *busy.Watch) (*result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	words := r.cfg.Grid.Command
	args := append(append([]string(nil), words[1:]...), p.Args...)
	cmd := exec.CommandContext(runCtx, words[0], args...)
	cmd.Env = append(append([]string(nil), r.environ...), p.Environ()...)
	cmd.Dir = r.cfg.Dir
	out := &capBuffer{limit: maxParsed}
	res := &result{start: time.Now(), stderr: newHeadTail(r.cfg.OutputLimit), cpuSecs: -1}
	cmd.Stdout, cmd.Stderr = out, res.stderr
	setProcessGroup(cmd)
	cmd.WaitDelay = waitDelay

	defer lockSpawner()()
	if err := cmd.Start(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res.startErr = err
		return res, nil
	}
	w.Follow(cmd.Process.Pid)
	err := cmd.Wait()
	// Whatever the command started and left running (a helper, a
	// background job whose output goes elsewhere) dies with its run,
	// however the run ended.
	killGroup(cmd)
	res.stdout, res.stdoutN = out.buf, out.total
	if st := cmd.ProcessState; st != nil {
		res.exitCode = st.ExitCode()
		res.cpuSecs = (st.UserTime() + st.SystemTime()).Seconds()
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		// The command exited but something it started kept the output
		// open: the exit status stands, the stragglers went.
		if cmd.ProcessState != nil && cmd.ProcessState.Success() {
			err = nil
		}
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err() // killed because the grid was stopped
	case err != nil && errors.Is(runCtx.Err(), context.DeadlineExceeded):
		res.timedOut = true
	}
	res.waitErr = err
	return res, nil
}

// failure is how a run failed, its status and error, or "" when it did
// not (a flagged record counts as a run that worked).
func failure(ms []measure.Measurement) string {
	if m := ms[0]; len(ms) == 1 && (m.Status == statusFailed || m.Status == statusTimeout) {
		return m.Status + ": " + m.Error
	}
	return ""
}
