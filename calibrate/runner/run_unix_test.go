//go:build unix

package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// benchScript is the program under test: a stand-in for llama-bench,
// executed directly by path. MODE says how it behaves; with MODE=ok (or
// ok-anything) it prints one jsonl record whose t/s is
// 20 + 10*ORK_BL_LITTLE_FRAC. Every invocation appends a line to $CALLS,
// and its arguments and $WEIRD to $ARGV when set.
const benchScript = `#!/bin/sh
[ -n "$CALLS" ] && echo "$MODE" >> "$CALLS"
if [ -n "$ARGV" ]; then
	printf '%s\n' "$@" > "$ARGV"
	printf '%s' "$WEIRD" > "$ARGV.env"
fi
rec() { # n_prompt n_gen avg
	awk -v np="$1" -v ng="$2" -v a="$3" 'BEGIN{
		printf "{\"build_commit\": \"0104b151\", \"build_number\": 7950, \"n_threads\": 4, \"poll\": 50, \"n_prompt\": %d, \"n_gen\": %d, \"n_depth\": 0, \"avg_ts\": %f, \"stddev_ts\": 0.1, \"samples_ns\": [ 1, 2, 3 ],\"samples_ts\": [ %g, %g, %g ]}\n", np, ng, a, a-0.1, a, a+0.1 }'
}
ts=$(awk -v f="${ORK_BL_LITTLE_FRAC:-0}" 'BEGIN{printf "%.4f", 20+10*f}')
case "$MODE" in
ok*) echo "loading model" >&2; rec 512 0 "$ts" ;;
exit3) echo "partial output"; echo "error: cannot open model" >&2; exit 3 ;;
hang) sleep 120 & echo $! > "$PIDFILE"; wait ;;
garbage) echo "Segmentation fault? no: just garbage"; echo "%%%%" ;;
empty) ;;
tgonly) rec 0 128 5.5 ;;
notest) rec 0 0 5.5 ;;
multi) rec 512 0 26.5; rec 0 128 5.5; rec 128 0 30.25 ;;
md) printf '| model | threads | test | t/s |\n| --- | ---: | ---: | ---: |\n| qwen | 4 | pp512 | 26.26 ± 0.12 |\n\nbuild: 0104b151 (7950)\n' ;;
flaky) if [ ! -f "$STATE" ]; then : > "$STATE"; exit 1; fi; rec 512 0 25 ;;
big) awk 'BEGIN{for(i=0;i<2000;i++) printf "garbage line %d\n", i}' ;;
huge) echo '{"build_commit": "0104b151", "n_threads": 4, "poll": 50, "n_prompt": 512, "n_gen": 0, "avg_ts": 1e308, "stddev_ts": 0, "samples_ts": [1e308, 1e308]}' ;;
*) echo "unknown MODE $MODE" >&2; exit 2 ;;
esac
`

// hangSleep is how long MODE=hang's child sleeps (the script's sleep 120):
// a runner that waited for it instead of killing it would take that long.
// faultTimeout is TestRunFaults' timeout of a run: far below hangSleep,
// far above what the script takes on a loaded machine.
const (
	hangSleep    = 120 * time.Second
	faultTimeout = 5 * time.Second
)

// writeBench writes the script into a fresh directory and returns its path.
func writeBench(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fake-llama-bench")
	if err := os.WriteFile(path, []byte(benchScript), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

type gridRun struct {
	path  string
	sum   Summary
	err   error
	ms    []measure.Measurement
	lines []string // progress: "done/total status"
}

func runGrid(t *testing.T, ctx context.Context, cfg Config, path string, onProgress func(done int)) *gridRun {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "runs.jsonl")
	}
	w, err := measure.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	gr := &gridRun{path: path}
	gr.sum, gr.err = Run(ctx, cfg, w, func(done, total int, _ string, last *measure.Measurement) {
		gr.lines = append(gr.lines, strconv.Itoa(done)+"/"+strconv.Itoa(total)+" "+last.Status)
		if onProgress != nil {
			onProgress(done)
		}
	})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ms, errs := measure.ReadFile(path)
	if len(errs) > 0 {
		t.Fatalf("reading back %s: %v", path, errs)
	}
	gr.ms = ms
	return gr
}

// gone waits up to 20 s (a loaded machine's scheduler is slow to run a
// killed process's exit) for pid to be dead (or a zombie nobody reaps).
func gone(pid int) bool {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return true
		}
		if runtime.GOOS == "linux" {
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
				if i := strings.LastIndexByte(string(b), ')'); i > 0 && len(b) > i+2 && b[i+2] == 'Z' {
					return true
				}
			}
		}
	}
	return false
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the hanging run wrote no pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestRunGrid(t *testing.T) {
	skipShort(t)
	bench := writeBench(t)
	t.Setenv("ORK_BL_SPLIT", "expert") // inherited: the plan must say so
	t.Setenv("MODE", "ok")
	cfg := Config{
		Grid: Grid{
			Command: []string{bench, "-m", "model.gguf", "-p", "512", "-n", "0", "-o", "jsonl"},
			Env: []Axis{
				{"ORK_MOE_BIGLITTLE", []string{"1"}},
				{"ORK_BL_LITTLE_FRAC", []string{"0", "0.15", "0.3"}},
				{"ORK_BL_POLL", []string{"0", "50"}},
			},
			Args: []Axis{{"-t", []string{"4"}}},
		},
		Workload:     "qwen3.5-35b-a3b",
		WorkloadYAML: "name: test\n",
		Host:         &measure.Host{Name: "board"},
	}
	gr := runGrid(t, context.Background(), cfg, "", nil)
	if gr.err != nil {
		t.Fatal(gr.err)
	}
	if want := (Summary{Points: 6, Runs: 6, OK: 6, Measurements: 6}); gr.sum != want {
		t.Errorf("summary %+v, want %+v", gr.sum, want)
	}
	if len(gr.ms) != 6 || len(gr.lines) != 6 || gr.lines[5] != "6/6 ok" {
		t.Fatalf("%d measurements, progress %q: %+v", len(gr.ms), gr.lines, gr.ms)
	}
	pts := cfg.Grid.Points()
	for i, m := range gr.ms {
		f, _ := strconv.ParseFloat(m.Knobs["ORK_BL_LITTLE_FRAC"], 64)
		if m.ID != pts[i].ID || m.Kind != measure.LlamaBench || m.Status != "ok" || m.Unit != "t/s" ||
			m.Workload != "qwen3.5-35b-a3b" || m.WorkloadYAML != "name: test\n" || m.Host == nil || m.Host.Name != "board" {
			t.Errorf("measurement %d: %+v", i, m)
		}
		if want := 20 + 10*f; m.Median < want-1e-9 || m.Median > want+1e-9 || len(m.Samples) != 3 || m.CV <= 0 {
			t.Errorf("measurement %d: median %g samples %v cv %g, want median %g", i, m.Median, m.Samples, m.CV, want)
		}
		if m.Knobs["-t"] != "4" || m.Knobs["ORK_BL_POLL"] != pts[i].Env["ORK_BL_POLL"] || m.Knobs["ORK_BL_SPLIT"] != "expert" {
			t.Errorf("measurement %d knobs %v", i, m.Knobs)
		}
		if !strings.Contains(m.Stderr, "loading model") || !strings.Contains(m.Stdout, `"n_prompt": 512`) || m.Time == "" {
			t.Errorf("measurement %d output %q %q", i, m.Stdout, m.Stderr)
		}
		poll, _ := strconv.Atoi(pts[i].Env["ORK_BL_POLL"])
		want := &model.Plan{Mode: "expert", Engines: []string{"big", "little"}, Fracs: []float64{roundFrac(1 - f), f}, Threads: []int{4, 4}, Poll: poll}
		if f == 0 {
			want = &model.Plan{Mode: "native", Engines: []string{"big"}, Fracs: []float64{1}, Threads: []int{4}, Poll: poll}
		}
		if !reflect.DeepEqual(m.Plan, want) {
			t.Errorf("measurement %d plan %+v, want %+v", i, m.Plan, want)
		}
	}

	// Resume: everything is done, nothing runs, nothing is written.
	done, err := measure.Done(gr.path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Done = done
	again := runGrid(t, context.Background(), cfg, gr.path, nil)
	if again.err != nil || again.sum != (Summary{Points: 6, Skipped: 6}) || len(again.ms) != 6 {
		t.Errorf("resume: %+v %v, %d lines", again.sum, again.err, len(again.ms))
	}

	// Rounds: the grid twice over, point after point, each run its own ID;
	// resuming skips every round already run.
	cfg.Done, cfg.Rounds = nil, 2
	rounds := runGrid(t, context.Background(), cfg, "", nil)
	if rounds.err != nil || rounds.sum.Runs != 12 || len(rounds.ms) != 12 {
		t.Fatalf("rounds: %+v %v", rounds.sum, rounds.err)
	}
	if rounds.ms[0].ID != pts[0].ID+"/round=1" || rounds.ms[6].ID != pts[0].ID+"/round=2" {
		t.Errorf("round IDs %q, %q", rounds.ms[0].ID, rounds.ms[6].ID)
	}
	if cfg.Done, err = measure.Done(rounds.path); err != nil {
		t.Fatal(err)
	}
	if again := runGrid(t, context.Background(), cfg, rounds.path, nil); again.sum.Skipped != 12 || again.sum.Runs != 0 {
		t.Errorf("rounds resume: %+v", again.sum)
	}
}

func TestRunFaults(t *testing.T) {
	skipShort(t)
	bench := writeBench(t)
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "sleep.pid")
	t.Setenv("PIDFILE", pidfile)
	t.Setenv("STATE", filepath.Join(dir, "flaky.state"))
	t.Setenv("CALLS", filepath.Join(dir, "calls"))
	cfg := Config{
		Grid: Grid{
			Command: []string{bench},
			Env:     []Axis{{"MODE", []string{"ok1", "exit3", "hang", "garbage", "empty", "tgonly", "notest", "multi", "md", "flaky", "big", "huge", "ok2"}}},
		},
		// Long enough that no run but the hang times out on a loaded
		// machine (sh and awk took over a second there under two busy
		// loops, and a flaky run killed before it left its state failed
		// twice); the hang costs two of it.
		Timeout: faultTimeout,
		Retries: 1,
	}
	start := time.Now()
	gr := runGrid(t, context.Background(), cfg, "", nil)
	if gr.err != nil {
		t.Fatal(gr.err)
	}
	// The hang is tried twice (one retry) and killed each time: had the
	// runner waited for its child's sleep, one try alone would take
	// hangSleep. No bound tied to the machine's speed.
	if el := time.Since(start); el > hangSleep {
		t.Errorf("the grid took %v: it waited for the hang's child", el)
	}
	if pid := readPID(t, pidfile); !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the timed-out run's child sleep (pid %d) survived", pid)
	}
	if want := (Summary{Points: 13, Runs: 13, OK: 6, Failed: 6, TimedOut: 1, Measurements: 15}); gr.sum != want {
		t.Errorf("summary %+v, want %+v", gr.sum, want)
	}
	byMode := map[string][]measure.Measurement{}
	for _, m := range gr.ms {
		byMode[m.Knobs["MODE"]] = append(byMode[m.Knobs["MODE"]], m)
	}
	for _, tc := range []struct {
		mode, status string
		errs         []string
		exit         int
	}{
		{"ok1", "ok", nil, 0},
		{"exit3", "failed", []string{"exit status 3", "cannot open model", "(2 attempts)"}, 3},
		{"hang", "timeout", []string{"timed out after " + faultTimeout.String(), "(2 attempts)"}, -1},
		{"garbage", "failed", []string{"no llama-bench record", "stdout:1: cannot detect the format"}, 0},
		{"empty", "failed", []string{"no output on stdout"}, 0},
		{"tgonly", "ok", nil, 0},
		{"notest", "failed", []string{"no test in the output", "1 records"}, 0},
		{"md", "ok", nil, 0},
		{"flaky", "ok", nil, 0},
		{"big", "failed", []string{"no llama-bench record"}, 0},
		{"huge", "failed", []string{"impossible value", "1e+308 t/s is outside [1e-06, 1e+09] t/s for a throughput"}, 0},
		{"ok2", "ok", nil, 0},
	} {
		ms := byMode[tc.mode]
		if len(ms) != 1 {
			t.Errorf("%s: %d measurements", tc.mode, len(ms))
			continue
		}
		m := ms[0]
		if m.Status != tc.status || m.ExitCode != tc.exit {
			t.Errorf("%s: status %q exit %d, want %q %d (error %q)", tc.mode, m.Status, m.ExitCode, tc.status, tc.exit, m.Error)
		}
		for _, e := range tc.errs {
			if !strings.Contains(m.Error, e) {
				t.Errorf("%s: error %q lacks %q", tc.mode, m.Error, e)
			}
		}
		if tc.status == "ok" && (m.Median <= 0 || m.Plan == nil || m.Plan.Mode != "native") {
			t.Errorf("%s: %+v", tc.mode, m)
		}
	}
	if m := byMode["md"][0]; m.Median != 26.26 || len(m.Samples) != 1 || m.CV < 0.0045 || m.CV > 0.0046 {
		t.Errorf("markdown: median %g samples %v cv %g", m.Median, m.Samples, m.CV)
	}
	if m := byMode["exit3"][0]; m.Stdout != "partial output\n" || !strings.Contains(m.Stderr, "cannot open model") {
		t.Errorf("exit3 output %q %q", m.Stdout, m.Stderr)
	}
	if m := byMode["big"][0]; len(m.Stdout) > DefaultOutputLimit+100 || !strings.Contains(m.Stdout, "bytes left out") ||
		!strings.HasPrefix(m.Stdout, "garbage line 0\n") || !strings.HasSuffix(m.Stdout, "garbage line 1999\n") {
		t.Errorf("big output kept %d bytes: %q...", len(m.Stdout), m.Stdout[:min(100, len(m.Stdout))])
	}
	// A tg record is a test of its own: prompt 0, its generated tokens.
	if m := byMode["tgonly"][0]; m.Run == nil || m.Run.PromptTokens != 0 || m.Run.GenTokens != 128 || !strings.Contains(m.Label(), " tg128 ") {
		t.Errorf("tgonly: run %+v, label %q", m.Run, m.Label())
	}
	multi := byMode["multi"]
	if len(multi) != 3 || multi[0].Median != 26.5 || multi[1].Median != 5.5 || multi[2].Median != 30.25 ||
		multi[1].Run.GenTokens != 128 || multi[1].Run.PromptTokens != 0 ||
		!strings.HasSuffix(multi[0].ID, "#0") || !strings.HasSuffix(multi[2].ID, "#2") {
		t.Errorf("multi: %+v", multi)
	}
	calls, _ := os.ReadFile(filepath.Join(dir, "calls"))
	if got := strings.Count(string(calls), "flaky\n"); got != 2 {
		t.Errorf("flaky ran %d times, want 2 (one retry)", got)
	}
	if got := strings.Count(string(calls), "ok1\n"); got != 1 {
		t.Errorf("ok1 ran %d times, want 1", got)
	}

	// Resume re-runs only what failed; the multi-record run is done.
	done, _ := measure.Done(gr.path)
	cfg.Done = done
	cfg.Retries = 0
	again := runGrid(t, context.Background(), cfg, gr.path, nil)
	if again.err != nil || again.sum.Skipped != 6 || again.sum.Runs != 7 {
		t.Errorf("resume: %+v %v", again.sum, again.err)
	}
	if pid := readPID(t, pidfile); !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func TestRunNotFound(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-llama-bench")
	cfg := Config{
		Grid:    Grid{Command: []string{missing, "-p", "512"}, Env: []Axis{{"ORK_BL_POLL", []string{"0", "50"}}}},
		Retries: 3,
		Warmup:  2,
	}
	gr := runGrid(t, context.Background(), cfg, "", nil)
	if gr.err != nil || gr.sum != (Summary{Points: 2, Runs: 2, Failed: 2, Measurements: 2}) {
		t.Fatalf("%+v %v", gr.sum, gr.err)
	}
	for _, m := range gr.ms {
		if m.Status != "failed" || !strings.Contains(m.Error, "cannot start the command") ||
			!strings.Contains(m.Error, "no such file") || strings.Contains(m.Error, "attempts") {
			t.Errorf("%+v", m)
		}
	}
	cfg.Grid.Command = []string{"blsim-no-such-command-anywhere"}
	gr = runGrid(t, context.Background(), cfg, "", nil)
	if gr.err != nil || gr.sum.Failed != 2 || !strings.Contains(gr.ms[0].Error, "executable file not found") {
		t.Errorf("%+v %v %+v", gr.sum, gr.err, gr.ms)
	}
}

func TestRunWarmup(t *testing.T) {
	bench := writeBench(t)
	calls := filepath.Join(t.TempDir(), "calls")
	t.Setenv("CALLS", calls)
	cfg := Config{
		Grid:   Grid{Command: []string{bench}, Env: []Axis{{"MODE", []string{"ok-a", "ok-b", "exit3"}}}},
		Warmup: 2,
	}
	gr := runGrid(t, context.Background(), cfg, "", nil)
	if gr.err != nil || gr.sum.OK != 2 || gr.sum.Failed != 1 || len(gr.ms) != 3 {
		t.Fatalf("%+v %v", gr.sum, gr.err)
	}
	b, _ := os.ReadFile(calls)
	// Two warm-ups and the measured run each; a failed warm-up ends the
	// warm-ups.
	if got, want := string(b), "ok-a\nok-a\nok-a\nok-b\nok-b\nok-b\nexit3\nexit3\n"; got != want {
		t.Errorf("calls %q, want %q", got, want)
	}
}

func TestRunCancel(t *testing.T) {
	bench := writeBench(t)
	pidfile := filepath.Join(t.TempDir(), "sleep.pid")
	t.Setenv("PIDFILE", pidfile)
	cfg := Config{
		Grid:    Grid{Command: []string{bench}, Env: []Axis{{"MODE", []string{"ok-a", "ok-b", "hang", "ok-c"}}}},
		Timeout: time.Minute,
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var cancelled atomic.Int64
	gr := runGrid(t, ctx, cfg, "", func(done int) {
		if done == 2 {
			// Ctrl-C while the third run hangs.
			time.AfterFunc(300*time.Millisecond, func() {
				cancelled.Store(time.Now().UnixNano())
				cancel()
			})
		}
	})
	if !errors.Is(gr.err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", gr.err)
	}
	// A runner that ignored the cancel would wait for the run's timeout
	// (a minute) or the hang's child (hangSleep); a bound far below both
	// and far above what a loaded machine takes to stop.
	if at := cancelled.Load(); at == 0 {
		t.Error("the grid ended before the cancel")
	} else if el := time.Since(time.Unix(0, at)); el > 30*time.Second {
		t.Errorf("stopping took %v after the cancel", el)
	}
	if gr.sum.Runs != 2 || len(gr.ms) != 2 || gr.ms[0].Knobs["MODE"] != "ok-a" || gr.ms[1].Knobs["MODE"] != "ok-b" {
		t.Errorf("kept %+v, %d lines", gr.sum, len(gr.ms))
	}
	if pid := readPID(t, pidfile); !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the cancelled run's child sleep (pid %d) survived", pid)
	}
	// A cancelled context starts nothing.
	gr = runGrid(t, ctx, cfg, "", nil)
	if !errors.Is(gr.err, context.Canceled) || gr.sum.Runs != 0 || len(gr.ms) != 0 {
		t.Errorf("after cancel: %+v %v", gr.sum, gr.err)
	}
}

// TestNoShell: knob values full of shell syntax reach the program verbatim,
// as arguments and as environment, and nothing they say is done.
func TestNoShell(t *testing.T) {
	bench := writeBench(t)
	dir := t.TempDir()
	victim := filepath.Join(dir, "x")
	if err := os.WriteFile(victim, []byte("still here"), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := filepath.Join(dir, "argv")
	t.Setenv("ARGV", argv)
	evil := []string{"$(rm -rf x)", "a; touch pwned", "`touch pwned`", "* && touch pwned | cat > pwned", "'\"\\"}
	cmd, err := SplitCommand(bench + ` -m "my model.gguf" '$(touch pwned)' ;`)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range evil {
		cfg := Config{
			Grid: Grid{
				Command: cmd,
				Env:     []Axis{{"MODE", []string{"ok"}}, {"WEIRD", []string{v}}},
				Args:    []Axis{{"--note", []string{"$(rm -rf x); exit 1"}}},
			},
			Dir: dir,
		}
		gr := runGrid(t, context.Background(), cfg, "", nil)
		if gr.err != nil || gr.sum.OK != 1 {
			t.Fatalf("%q: %+v %v %+v", v, gr.sum, gr.err, gr.ms)
		}
		if gr.ms[0].Knobs["WEIRD"] != v {
			t.Errorf("knob recorded as %q, want %q", gr.ms[0].Knobs["WEIRD"], v)
		}
		args, _ := os.ReadFile(argv)
		if got, want := string(args), "-m\nmy model.gguf\n$(touch pwned)\n;\n--note\n$(rm -rf x); exit 1\n"; got != want {
			t.Errorf("argv %q, want %q", got, want)
		}
		env, _ := os.ReadFile(argv + ".env")
		if string(env) != v {
			t.Errorf("env %q, want %q", env, v)
		}
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "still here" {
		t.Errorf("x: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("a shell ran: pwned exists")
	}
}
