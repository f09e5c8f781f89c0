package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/blsim/blsim/internal/cli"
	"github.com/blsim/blsim/measure"
	"github.com/spf13/pflag"
)

// fakeBench is a stand-in for llama-bench: one jsonl pp512 record at
// 20 + 10*ORK_BL_LITTLE_FRAC t/s, or exit 1 when FAIL_AT equals the
// fraction.
const fakeBench = `#!/bin/sh
f="${ORK_BL_LITTLE_FRAC:-0}"
if [ "$f" = "$FAIL_AT" ]; then echo "ggml: out of memory" >&2; exit 1; fi
awk -v f="$f" 'BEGIN{a=20+10*f; printf "{\"build_commit\": \"0104b151\", \"n_threads\": 4, \"poll\": 50, \"n_prompt\": 512, \"n_gen\": 0, \"avg_ts\": %f, \"stddev_ts\": 0.1,\"samples_ts\": [ %g, %g ]}\n", a, a-0.1, a+0.1}'
`

func benchFlags(t *testing.T, args ...string) *cli.BenchGrid {
	t.Helper()
	o := &cli.BenchGrid{}
	fs := pflag.NewFlagSet("calibrate", pflag.ContinueOnError)
	cli.AddBenchGridFlags(fs, o)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return o
}

func writeFakeBench(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake benchmark is a shell script")
	}
	path := filepath.Join(t.TempDir(), "llama-bench")
	if err := os.WriteFile(path, []byte(fakeBench), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBenchGridFlags(t *testing.T) {
	o := benchFlags(t, "--bench", "llama-bench -m 'my model.gguf'", "--env", "ORK_BL_POLL=0,50", "--env=ORK_BL_LITTLE_FRAC=0.05:0.30:0.05",
		"--arg", "-t=4", "--arg=--poll=0,50", "--timeout", "90s", "--warmup", "1", "--retries", "2", "--resume", "--measurements", "m.jsonl")
	if len(o.Env) != 2 || o.Env[0] != "ORK_BL_POLL=0,50" || len(o.Args) != 2 || o.Args[0] != "-t=4" || o.Args[1] != "--poll=0,50" {
		t.Errorf("env %q args %q: a comma must not split a flag", o.Env, o.Args)
	}
	cfg, err := o.Config()
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Grid.Command; len(got) != 3 || got[2] != "my model.gguf" {
		t.Errorf("command %q", got)
	}
	if cfg.Grid.Size() != 24 || cfg.Timeout.Seconds() != 90 || cfg.Warmup != 1 || cfg.Retries != 2 || !o.Resume || o.Measurements != "m.jsonl" {
		t.Errorf("config %+v", cfg)
	}
	if cfg.Mapping.LittleFrac[0] != "ORK_BL_LITTLE_FRAC" {
		t.Errorf("mapping %+v", cfg.Mapping)
	}

	dir := t.TempDir()
	grid := filepath.Join(dir, "grid.yaml")
	os.WriteFile(grid, []byte("command: llama-bench -p 512\nenv: {ORK_BL_POLL: [0, 50]}\ntimeout_s: 5\nwarmup: 2\nretries: 1\n"), 0o644)
	knobs := filepath.Join(dir, "knobs.yaml")
	os.WriteFile(knobs, []byte("little_frac: MY_FRAC\nengines: {big: p, little: e}\n"), 0o644)
	cfg, err = benchFlags(t, "--grid", grid, "--env", "MY_FRAC=0,0.5", "--retries", "0", "--knobs", knobs).Config()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Grid.Size() != 4 || cfg.Timeout.Seconds() != 5 || cfg.Warmup != 2 || cfg.Retries != 0 || cfg.Mapping.Engines.Big != "p" {
		t.Errorf("grid file + flags: %+v", cfg)
	}

	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("little_fraction: X\n"), 0o644)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{nil, "no benchmark command"},
		{[]string{"--bench", "'unbalanced"}, "unterminated"},
		{[]string{"--bench", "b", "--grid", grid}, "give one of them"},
		{[]string{"--bench", "b", "--env", "NOVALUE"}, "NAME=VALUES"},
		{[]string{"--bench", "b", "--arg", "t=4"}, "not a flag name"},
		{[]string{"--bench", "b", "--env", "A=1", "--env", "A=2"}, "given twice"},
		{[]string{"--grid", grid, "--env", "ORK_BL_POLL=1"}, "given twice"},
		{[]string{"--bench", "b", "--timeout", "0s"}, "positive"},
		{[]string{"--bench", "b", "--retries", "-1"}, "negative"},
		{[]string{"--bench", "b", "--knobs", bad}, "little_fraction"},
		{[]string{"--grid", filepath.Join(dir, "none.yaml")}, "no such file"},
	} {
		if _, err := benchFlags(t, tc.args...).Config(); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: %v, want an error with %q", tc.args, err, tc.msg)
		}
	}
}

func TestRunBenchGrid(t *testing.T) {
	bench := writeFakeBench(t)
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	t.Setenv("FAIL_AT", "0.1")
	args := []string{"--bench", bench + " -p 512 -n 0 -o jsonl", "--env", "ORK_MOE_BIGLITTLE=1",
		"--env", "ORK_BL_LITTLE_FRAC=0:0.2:0.1", "--env", "ORK_BL_POLL=0,50", "--arg", "-t=4", "--measurements", path}
	var out, errb bytes.Buffer
	got, err := cli.RunBenchGrid(context.Background(), benchFlags(t, args...), "qwen3.5-35b-a3b", "", &out)
	if err != nil || got != path {
		t.Fatalf("%q %v\n%s%s", got, err, out.String(), errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		"6 runs over ORK_BL_LITTLE_FRAC (3) x ORK_BL_POLL (2)",
		"[1/6] ORK_BL_LITTLE_FRAC=0 ORK_BL_POLL=0  20.00 t/s",
		"[2/6] ORK_BL_LITTLE_FRAC=0 ORK_BL_POLL=50  20.00 t/s",
		"[3/6] ORK_BL_LITTLE_FRAC=0.1 ORK_BL_POLL=0  failed: exit status 1: ggml: out of memory",
		"[4/6] ORK_BL_LITTLE_FRAC=0.1 ORK_BL_POLL=50  failed: exit status 1: ggml: out of memory",
		"[5/6] ORK_BL_LITTLE_FRAC=0.2 ORK_BL_POLL=0  22.00 t/s",
		"[6/6] ORK_BL_LITTLE_FRAC=0.2 ORK_BL_POLL=50  22.00 t/s",
		"6 runs: 4 ok, 2 failed, 0 timed out; 6 measurements appended to " + path,
	}
	if len(lines) != len(want) {
		t.Fatalf("output:\n%s", out.String())
	}
	for i := range want {
		if !strings.Contains(lines[i], want[i]) {
			t.Errorf("line %d = %q, want %q", i, lines[i], want[i])
		}
	}
	ms, errs := measure.ReadFile(path)
	if len(errs) > 0 || len(ms) != 6 || ms[4].Plan == nil || ms[4].Plan.Mode != "token" || ms[4].Workload != "qwen3.5-35b-a3b" {
		t.Fatalf("%d measurements %v: %+v", len(ms), errs, ms)
	}

	// --resume reruns the two failures only, which now pass.
	t.Setenv("FAIL_AT", "none")
	out.Reset()
	if _, err := cli.RunBenchGrid(context.Background(), benchFlags(t, append(args, "--resume")...), "w", "", &out); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "[2/2] ORK_BL_LITTLE_FRAC=0.1 ORK_BL_POLL=50  21.00 t/s") ||
		!strings.Contains(s, "2 runs: 2 ok, 0 failed, 0 timed out; 4 skipped (already measured); 2 measurements") {
		t.Errorf("resume output:\n%s", s)
	}
	// Without --resume a file that holds runs is refused before anything
	// runs: the same grid again would write other values under the same
	// IDs, lines that every reader refuses (issue 31).
	out.Reset()
	_, err = cli.RunBenchGrid(context.Background(), benchFlags(t, args...), "w", "", &out)
	if !errors.Is(err, measure.ErrMeasured) || out.Len() != 0 {
		t.Errorf("rerun without --resume: %v\n%s", err, out.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = cli.RunBenchGrid(ctx, benchFlags(t, append(args, "--measurements", filepath.Join(t.TempDir(), "fresh.jsonl"))...), "w", "", &out)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted after 0 of 6 runs") {
		t.Errorf("cancelled: %v", err)
	}
	// A grid whose every run fails is an error, with the count; its
	// failures are recorded.
	t.Setenv("FAIL_AT", "0")
	all := filepath.Join(t.TempDir(), "all-fail.jsonl")
	out.Reset()
	_, err = cli.RunBenchGrid(context.Background(), benchFlags(t, "--bench", bench, "--env", "ORK_MOE_BIGLITTLE=1",
		"--env", "ORK_BL_LITTLE_FRAC=0", "--env", "ORK_BL_POLL=0,50", "--measurements", all), "w", "", &out)
	if err == nil || !strings.Contains(err.Error(), "every one of the 2 runs failed") ||
		!strings.Contains(out.String(), "2 runs: 0 ok, 2 failed") {
		t.Errorf("all failed: %v\n%s", err, out.String())
	}
	if ms, _ := measure.ReadFile(all); len(ms) != 2 || ms[0].Status != measure.StatusFailed {
		t.Errorf("the failed runs are not recorded: %+v", ms)
	}
	if ms, _ := measure.ReadFile(path); len(ms) != 8 {
		t.Errorf("%d lines after resume and cancel, want 8", len(ms))
	}
}

// TestCalibrateGridFileSettings runs a grid file that carries its rounds,
// shuffle and holdout through blsim calibrate: three shuffled rounds of
// four points, one fraction held out of the fit and scored.
func TestCalibrateGridFileSettings(t *testing.T) {
	skipShort(t)
	bench := writeFakeBench(t)
	dir := t.TempDir()
	grid := filepath.Join(dir, "grid.yaml")
	os.WriteFile(grid, []byte("command: "+bench+" -p 512 -n 0 -o jsonl\n"+
		"env: {ORK_MOE_BIGLITTLE: 1, ORK_BL_LITTLE_THREADS: 4, ORK_BL_LITTLE_FRAC: '0.1,0.2,0.3,0.4'}\n"+
		"args: {-t: 4}\nrounds: 3\nshuffle: true\nholdout: [ORK_BL_LITTLE_FRAC=0.3]\n"), 0o644)
	runs, prof := filepath.Join(dir, "runs.jsonl"), filepath.Join(dir, "p.yaml")
	stdout, stderr, code := runCLI(t, "calibrate", "--grid", grid, "--workload", "qwen3.5-35b-a3b", "--soc", "rk3588",
		"--measurements", runs, "-o", prof)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "4 points x 3 rounds, shuffled = 12 runs over ORK_BL_LITTLE_FRAC (4)") || !strings.Contains(stdout, "holdout: 1 held-out throughput,") {
		t.Errorf("output:\n%s", stdout)
	}
	ms, errs := measure.ReadFile(runs)
	if len(errs) != 0 || len(ms) != 12 {
		t.Fatalf("%d runs, %v", len(ms), errs)
	}
	var order []string
	for _, m := range ms {
		order = append(order, m.Knobs["ORK_BL_LITTLE_FRAC"])
	}
	if strings.Join(order[:4], " ") == strings.Join(order[4:8], " ") && strings.Join(order[4:8], " ") == strings.Join(order[8:], " ") {
		t.Errorf("three rounds in one order: %v", order)
	}
	// With --no-fit the file's holdout waits for blsim validate.
	if _, stderr, code := runCLI(t, "calibrate", "--grid", grid, "--workload", "qwen3.5-35b-a3b", "--no-fit", "--rounds", "1",
		"--measurements", filepath.Join(dir, "nofit.jsonl")); code != 0 {
		t.Errorf("--no-fit with a holdout in the file: %s", stderr)
	}
	// Patterns that do not split the grid are refused before anything runs.
	for _, tc := range []struct{ holdout, msg string }{
		{"f=0.25", `no point of the grid matches (a point's label reads "token f=0.1 poll=50 t=4+4 pp512 ub=512")`},
		{"token", "every test of the grid matches"},
	} {
		fresh := filepath.Join(dir, "fresh-"+tc.holdout+".jsonl")
		_, stderr, code := runCLI(t, "calibrate", "--grid", grid, "--workload", "qwen3.5-35b-a3b", "--soc", "rk3588",
			"--measurements", fresh, "-o", prof, "--holdout", tc.holdout)
		if code == 0 || !strings.Contains(stderr, tc.msg) {
			t.Errorf("--holdout %s: exit %d, %q", tc.holdout, code, stderr)
		}
		if _, err := os.Stat(fresh); err == nil {
			t.Errorf("--holdout %s: ran the grid anyway", tc.holdout)
		}
	}
}

// calibrate --json: stdout is one JSON document (the fit and the held-out
// error); the progress lines go to stderr.
func TestCalibrateBenchJSON(t *testing.T) {
	bench := writeFakeBench(t)
	dir := t.TempDir()
	runs, prof := filepath.Join(dir, "runs.jsonl"), filepath.Join(dir, "p.yaml")
	stdout, stderr, code := runCLI(t, "calibrate", "--bench", bench+" -p 512 -n 0 -o jsonl", "--workload", "qwen3.5-35b-a3b", "--soc", "rk3588",
		"--env", "ORK_MOE_BIGLITTLE=1", "--env", "ORK_BL_LITTLE_FRAC=0.1,0.2,0.3", "--arg", "-t=4", "--env", "ORK_BL_LITTLE_THREADS=4",
		"--rounds", "2", "--holdout", "f=0.2", "--json", "--measurements", runs, "-o", prof)
	switch {
	case refusedForLoad(t, code, stderr):
		// Busy loops on the CPUs disturb even a fake benchmark's runs:
		// the refusal is the behaviour, and nothing is on stdout.
		if stdout != "" || !strings.Contains(stderr, "[6/6]") {
			t.Errorf("refused: stdout %q, stderr %q", stdout, stderr)
		}
	case code != 0:
		t.Fatalf("exit %d: %s", code, stderr)
	default:
		checkCalibrateJSON(t, stdout, stderr, runs, prof)
	}
	stdout, _, code = runCLI(t, "calibrate", "--bench", bench+" -p 512 -n 0 -o jsonl", "--workload", "qwen3.5-35b-a3b", "--no-fit",
		"--env", "ORK_BL_LITTLE_FRAC=0", "--json", "--measurements", filepath.Join(dir, "nofit.jsonl"))
	if code != 0 || !strings.Contains(stdout, `"measurements": "`+filepath.Join(dir, "nofit.jsonl")+`"`) {
		t.Errorf("--no-fit --json: %d %s", code, stdout)
	}
}

// checkCalibrateJSON checks calibrate --json's document: the fit, the
// held-out error and the noise, with the progress on stderr.
func checkCalibrateJSON(t *testing.T, stdout, stderr, runs, prof string) {
	t.Helper()
	var got struct {
		Measurements string
		Profile      string
		Fit          struct{ Params []struct{ Path string } }
		Holdout      struct {
			Mode string
			N    int
		}
		Noise string
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, stdout)
	}
	if got.Measurements != runs || got.Profile != prof || len(got.Fit.Params) == 0 || got.Holdout.Mode != "holdout" || got.Holdout.N != 1 ||
		!strings.Contains(got.Noise, "3 configurations") {
		t.Errorf("json: %+v", got)
	}
	if !strings.Contains(stderr, "[6/6]") {
		t.Errorf("progress not on stderr: %q", stderr)
	}
}
