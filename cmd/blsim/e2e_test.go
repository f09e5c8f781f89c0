package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/measure"
	"github.com/blsim/blsim/model"
)

// TestMain lets the test binary stand in for the blsim binary: with
// BLSIM_TEST_MAIN=1 it runs the command line instead of the tests, so the
// end-to-end test can put a real blsim behind --bench.
func TestMain(m *testing.M) {
	if os.Getenv("BLSIM_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestBenchThroughCalibrate drives `blsim bench` (the built-in dispatcher)
// through `blsim calibrate --bench` over a 12-run knob grid of the seed's
// ORK_* names, fits a profile to it, records a held-out grid with --no-fit
// and validates the profile on it: grid, environment, output parsing, fit
// and validation all run for real.
func TestBenchThroughCalibrate(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.NumCPU() < 2 {
		t.Skip("needs Linux and two CPUs")
	}
	if testing.Short() {
		t.Skip("runs the dispatcher 24 times")
	}
	t.Setenv("BLSIM_TEST_MAIN", "1")
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A prior for this machine: two one-core engines.
	prior := filepath.Join(dir, "prior.yaml")
	if err := os.WriteFile(prior, []byte(testPrior), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := model.LoadSoCFile(prior); err != nil {
		t.Fatal(err)
	}
	bench := self + " bench -o jsonl -r 2 --cluster big=1 --cluster little=0"
	runs, prof := filepath.Join(dir, "runs.jsonl"), filepath.Join(dir, "fitted.yaml")
	grid := []string{"--env", "ORK_MOE_BIGLITTLE=1", "--env", "ORK_BL_LITTLE_THREADS=1", "--env", "ORK_BL_BIG_THREADS=1"}
	stdout, stderr, code := runCLI(t, append([]string{"calibrate", "--bench", bench, "--workload", "synthetic-moe", "--soc", prior,
		"--measurements", runs, "-o", prof, "--env", "ORK_BL_LITTLE_FRAC=0.1:0.6:0.1", "--env", "ORK_BL_POLL=0,50",
		"--env", "ORK_BL_SPLIT=token"}, grid...)...)
	if code != 0 {
		t.Fatalf("calibrate --bench exit %d\n%s\n%s", code, stdout, stderr)
	}
	ms, errs := measure.ReadFile(runs)
	if len(errs) != 0 || len(ms) != 12 {
		t.Fatalf("%d runs recorded, errors %v", len(ms), errs)
	}
	for _, m := range ms {
		if m.Status != "ok" || m.Kind != measure.LlamaBench || m.Plan == nil || m.Plan.Mode != "token" || m.Median <= 0 {
			t.Errorf("run %s: %+v", m.ID, m)
		}
	}
	if _, err := model.LoadSoCFile(prof); err != nil {
		t.Fatalf("fitted profile: %v", err)
	}
	held := filepath.Join(dir, "held.jsonl")
	// The held-out grid runs twice over (--rounds 2); validate merges the
	// rounds of each configuration.
	if _, stderr, code := runCLI(t, append([]string{"calibrate", "--bench", bench, "--workload", "synthetic-moe", "--no-fit",
		"--rounds", "2", "--measurements", held, "--env", "ORK_BL_LITTLE_FRAC=0.15,0.35,0.55", "--env", "ORK_BL_POLL=0,50",
		"--env", "ORK_BL_SPLIT=token,expert"}, grid...)...); code != 0 {
		t.Fatalf("held-out grid: %s", stderr)
	}
	stdout, stderr, code = runCLI(t, "validate", "--soc", prof, "--measurements", held)
	if code != 0 || !strings.Contains(stdout, "predict: 12 held-out throughputs, MAPE") {
		t.Fatalf("validate: %d\n%s\n%s", code, stdout, stderr)
	}
	t.Log(stdout)
	// Resuming the finished grid runs nothing again.
	_, stderr, code = runCLI(t, append([]string{"calibrate", "--bench", bench, "--workload", "synthetic-moe", "--no-fit", "--resume",
		"--rounds", "2", "--measurements", held, "--env", "ORK_BL_LITTLE_FRAC=0.15,0.35,0.55", "--env", "ORK_BL_POLL=0,50",
		"--env", "ORK_BL_SPLIT=token,expert"}, grid...)...)
	if code != 0 {
		t.Fatalf("resume: %s", stderr)
	}
	if ms, _ := measure.ReadFile(held); len(ms) != 24 {
		t.Errorf("resume re-ran: %d lines", len(ms))
	}
}

const testPrior = `schema: blsim/soc/v1
name: test-2core
dram: {peak_gb_s: 20, sustained_gb_s: 14, sharing: maxmin}
engines:
  - {name: big, kind: cpu, cores: 1, clock_ghz: 1, kernel_ops_per_cycle: {q4: 2.5, q6: 2.5, q8: 2.5, f16: 4, f32: 4},
     moe_efficiency: 1, scalar_ops_per_cycle: 2, thread_scaling_loss: 0.02, bandwidth_max_gb_s: 7.5, l2_kib_per_core: 2048,
     shared_cache_kib: 266240, cache_usable_frac: 0.5, token_tile: 16, expert_token_tile: 1, mem_compute_overlap: 0.3}
  - {name: little, kind: cpu, cores: 1, clock_ghz: 1, kernel_ops_per_cycle: {q4: 2.5, q6: 2.5, q8: 2.5, f16: 4, f32: 4},
     moe_efficiency: 1, scalar_ops_per_cycle: 2, thread_scaling_loss: 0.02, bandwidth_max_gb_s: 7.5, l2_kib_per_core: 2048,
     shared_cache_kib: 266240, cache_usable_frac: 0.5, token_tile: 16, expert_token_tile: 1, mem_compute_overlap: 0.3}
handoff: {signal_us: 1, spin_wake_us: 1, futex_wake_us: 30, sleep_exit_us: 10, spin_window_us_per_poll: 0.7, spawn_us: 0,
  join_us: 1, forfeit_pct: 0, gather_us: 5, graph_splits_per_layer: 0, graph_split_gap_us: 0, split_absorbs_graph_splits: 0}
`
