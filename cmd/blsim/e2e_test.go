package main

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// TestMain lets the test binary stand in for the blsim binary: with
// BLSIM_TEST_MAIN=1 it runs the command line instead of the tests, so the
// end-to-end test can put a real blsim behind --bench. With
// BLSIM_TEST_HWM=FILE too, it writes its own peak resident set to FILE
// as it ends (BenchmarkHostileInputs).
func TestMain(m *testing.M) {
	if os.Getenv("BLSIM_TEST_MAIN") == "1" {
		code := run(os.Args[1:], os.Stdout, os.Stderr)
		if f := os.Getenv("BLSIM_TEST_HWM"); f != "" {
			writePeakRSS(f)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// writePeakRSS writes the VmHWM line of /proc/self/status (Linux: the
// peak resident set of this program since its exec, which getrusage's
// ru_maxrss is not: a child started by vfork inherits its parent's peak)
// to path; elsewhere it writes nothing.
func writePeakRSS(path string) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			_ = os.WriteFile(path, []byte(l+"\n"), 0o644)
		}
	}
}

// TestBenchThroughCalibrate drives `blsim bench` (the built-in dispatcher)
// through `blsim calibrate --bench` over a 12-point knob grid of the seed's
// ORK_* names, twice over in shuffled rounds, fits a profile to the
// fractions it does not hold out and validates it on those it does: grid,
// environment, output parsing, fit and validation all run for real. It
// asserts behaviour, never speed: the grid ran, the records parse, and
// the fit either writes a profile and prints its held-out error, or
// refuses naming the other processes that disturbed the runs. How close
// the held-out error is on such a grid is asserted on a recorded one
// (calibrate/fit TestRecordedGrid, testdata/vm-bench-grid.jsonl).
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
	args := []string{"calibrate", "--bench", bench, "--workload", "synthetic-moe", "--soc", prior,
		"--measurements", runs, "-o", prof, "--rounds", "2", "--shuffle", "--stat", "best", "--holdout", "f=0.3,f=0.5", "--accept-poor-fit",
		"--env", "ORK_MOE_BIGLITTLE=1", "--env", "ORK_BL_LITTLE_THREADS=1", "--env", "ORK_BL_BIG_THREADS=1",
		"--env", "ORK_BL_LITTLE_FRAC=0.1:0.6:0.1", "--env", "ORK_BL_POLL=0,50", "--env", "ORK_BL_SPLIT=token"}
	stdout, stderr, code := runCLI(t, args...)
	refused := refusedForLoad(t, code, stderr)
	if code != 0 && !refused {
		t.Fatalf("calibrate --bench exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Log(stdout)
	ms, errs := measure.ReadFile(runs)
	if len(errs) != 0 || len(ms) != 24 {
		t.Fatalf("%d runs recorded, errors %v", len(ms), errs)
	}
	rounds := map[string]int{}
	for _, m := range ms {
		if m.Status != "ok" || m.Kind != measure.LlamaBench || m.Plan == nil || m.Plan.Mode != "token" || m.Median <= 0 {
			t.Errorf("run %s: %+v", m.ID, m)
		}
		if in := m.Interference; in == nil || in.WallS <= 0 || len(in.CPUs) < 2 {
			t.Errorf("run %s: interference not recorded: %+v", m.ID, in)
		}
		_, round, _ := strings.Cut(m.ID, "/")
		rounds[round]++
	}
	if rounds["round=1"] != 12 || rounds["round=2"] != 12 {
		t.Errorf("runs per round: %v", rounds)
	}
	// The second round ran in an order of its own.
	if strings.SplitN(ms[0].ID, "/", 2)[0] == strings.SplitN(ms[12].ID, "/", 2)[0] &&
		strings.SplitN(ms[1].ID, "/", 2)[0] == strings.SplitN(ms[13].ID, "/", 2)[0] {
		t.Errorf("rounds in the same order: %s %s / %s %s", ms[0].ID, ms[1].ID, ms[12].ID, ms[13].ID)
	}
	if !refused {
		fitted, err := model.LoadSoCFile(prof)
		if err != nil {
			t.Fatalf("fitted profile: %v", err)
		}
		// 8 configurations fitted (16 runs), 4 held out; the fit says so.
		if fitted.Provenance == nil || fitted.Provenance.Runs != 16 || !strings.Contains(fitted.Provenance.Source, "holding out f=0.3,f=0.5") {
			t.Errorf("provenance = %+v", fitted.Provenance)
		}
		held := regexp.MustCompile(`holdout: (\d+) held-out throughputs?, MAPE [0-9.]+%`).FindStringSubmatch(stdout)
		if held == nil {
			t.Fatalf("no held-out line:\n%s", stdout)
		}
		// validate --holdout on the same file agrees with calibrate's figure.
		vout, stderr, code := runCLI(t, "validate", "--soc", prior, "--measurements", runs, "--stat", "best", "--holdout", "f=0.3", "--holdout", "f=0.5")
		if code != 0 || !strings.Contains(vout, held[0]) {
			t.Errorf("validate --holdout: %d\n%s\n%s", code, vout, stderr)
		}
	}
	// Resuming the finished grid runs nothing again.
	resume := append(append([]string(nil), args...), "--resume")
	if _, stderr, code := runCLI(t, resume...); code != 0 && !refusedForLoad(t, code, stderr) {
		t.Fatalf("resume: %s", stderr)
	}
	if ms, _ := measure.ReadFile(runs); len(ms) != 24 {
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
