package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
)

// TestCDispatchThroughCalibrate fits blsim to a dispatcher it did not
// write: the independent C dispatcher (testdata/cdispatch), driven through
// `blsim calibrate --bench` over a knob grid of native and split runs at
// two ubatches, from a prior whose kernel rates are blsim's old scalar
// ones (2.5 ops/cycle, some 20x slower than the C kernels). It checks the
// path a board user takes with a fork:
//   - the grid runs each distinct configuration once: the split's knobs
//     cannot change a native run;
//   - the fork prints n_threads as big+little: its records are taken as
//     they are, not flagged (the knobs fix every count);
//   - with --kernels prior (the narrow priors of blsim's own kernels) the
//     fit is poor: it exits non-zero, names why, and writes no profile;
//   - by default (foreign kernels, wide priors) the same file fits, the
//     fit table says where each prior came from, and the profile is
//     written.
//
// The live grid asserts what ran; the fits, whose verdicts depend on the
// values, run on the same grid as recorded on a quiet machine
// (testdata/cdispatch/e2e-grid.jsonl), so that no load on the machine
// running the test changes them.
func TestCDispatchThroughCalibrate(t *testing.T) {
	bin, big, little, dir, prior := cdispatchSetup(t)
	runs := filepath.Join(dir, "runs.jsonl")
	args := []string{"calibrate", "--bench", bin + " -o jsonl -r 2 -p 64", "--workload", "testdata/cdispatch/workload.yaml",
		"--soc", prior, "--measurements", runs, "--no-fit",
		"--env", "ORK_BL_BIG_CPUS=" + big, "--env", "ORK_BL_LITTLE_CPUS=" + little,
		"--env", "ORK_MOE_BIGLITTLE=0,1", "--env", "ORK_BL_SPLIT=token,expert", "--env", "ORK_BL_LITTLE_FRAC=0.2,0.4",
		"--env", "ORK_BL_POLL=50", "--env", "ORK_BL_BIG_THREADS=1", "--env", "ORK_BL_LITTLE_THREADS=1",
		"--arg", "-ub=16,64"}
	stdout, stderr, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("calibrate --bench exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, ": 16 points, 10 distinct (6 collapse: ORK_BL_LITTLE_FRAC, ORK_BL_SPLIT cannot change them) = 10 runs") {
		t.Errorf("header:\n%s", stdout)
	}
	ms, errs := measure.ReadFile(runs)
	if len(errs) != 0 || len(ms) != 10 {
		t.Fatalf("%d runs recorded, errors %v", len(ms), errs)
	}
	native, split := 0, 0
	for _, m := range ms {
		if m.Status != measure.StatusOK || m.Run == nil || m.Run.PromptTokens != 64 || m.Plan == nil {
			t.Fatalf("run %s: status %s (%s), run %+v", m.ID, m.Status, m.Error, m.Run)
		}
		if m.Plan.Mode == "native" {
			native++
		} else {
			split++
		}
	}
	if native != 2 || split != 8 {
		t.Errorf("%d native and %d split runs, want 2 and 8", native, split)
	}
	// The fits: on this grid as recorded on a quiet machine.
	runs = "testdata/cdispatch/e2e-grid.jsonl"

	// blsim's own kernel priors cannot follow a 20x faster dispatcher.
	narrow := filepath.Join(dir, "narrow.yaml")
	out, stderr, code := runCLI(t, "fit", "--soc", prior, "--measurements", runs, "--kernels", "prior", "-o", narrow)
	if code == 0 || !strings.Contains(stderr, "the model and the measurements disagree") || !strings.Contains(stderr, "no profile written") {
		t.Errorf("fit --kernels prior: exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(narrow); err == nil {
		t.Errorf("a poor fit wrote %s", narrow)
	}
	// --accept-poor-fit writes it, with a warning.
	if _, stderr, code := runCLI(t, "fit", "--soc", prior, "--measurements", runs, "--kernels", "prior", "-o", narrow, "--accept-poor-fit"); code != 0 || !strings.Contains(stderr, "warning") {
		t.Errorf("fit --accept-poor-fit: exit %d\n%s", code, stderr)
	} else if _, err := os.Stat(narrow); err != nil {
		t.Errorf("--accept-poor-fit: %v", err)
	}

	// The default: the benchmark's own kernels, fitted with wide priors.
	fitted := filepath.Join(dir, "fitted.yaml")
	out, stderr, code = runCLI(t, "fit", "--soc", prior, "--measurements", runs, "-o", fitted, "--accept-poor-fit")
	if code != 0 {
		t.Fatalf("fit: exit %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"kernels: the benchmark's own", "scaled: the benchmark's own", "engines.big.kernel_ops_per_cycle.q4", "wrote " + fitted} {
		if !strings.Contains(out, want) {
			t.Errorf("fit output lacks %q:\n%s", want, out)
		}
	}
	t.Log(out)
}

// TestForkRecordsFlagged runs the C dispatcher, which counts n_threads as
// big+little, under knob mappings that disagree with it: told its records
// count the big threads only, every split record is flagged with its
// reason, the grid goes on, and the native records still fit; with the big
// threads left to the record (2, on a 1-core engine), the profile's check
// flags them and says how to tell blsim the fork's convention.
func TestForkRecordsFlagged(t *testing.T) {
	bin, big, little, dir, prior := cdispatchSetup(t)
	knobs := filepath.Join(dir, "knobs.yaml")
	if err := os.WriteFile(knobs, []byte(`enable: ORK_MOE_BIGLITTLE
little_frac: ORK_BL_LITTLE_FRAC
poll: ORK_BL_POLL
split: ORK_BL_SPLIT
big_threads: ORK_BL_BIG_THREADS
little_threads: ORK_BL_LITTLE_THREADS
n_threads: big
`), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"calibrate", "--bench", bin + " -o jsonl -r 1 -p 32 -ub 32", "--workload", "testdata/cdispatch/workload.yaml",
		"--soc", prior, "--no-fit", "--env", "ORK_BL_BIG_CPUS=" + big, "--env", "ORK_BL_LITTLE_CPUS=" + little,
		"--env", "ORK_MOE_BIGLITTLE=0,1", "--env", "ORK_BL_LITTLE_FRAC=0.3", "--env", "ORK_BL_POLL=0"}

	runs := filepath.Join(dir, "told-big.jsonl")
	args := append(append([]string(nil), base...), "--measurements", runs, "--knobs", knobs,
		"--env", "ORK_BL_BIG_THREADS=1", "--env", "ORK_BL_LITTLE_THREADS=1")
	stdout, stderr, code := runCLI(t, args...)
	if code != 0 || !strings.Contains(stdout, "1 flagged") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	ms, _ := measure.ReadFile(runs)
	if len(ms) != 2 {
		t.Fatalf("%d runs", len(ms))
	}
	for _, m := range ms {
		split := m.Plan != nil && m.Plan.Mode != "native"
		switch {
		case split && (m.Status != measure.StatusFlagged || !strings.Contains(m.Error, "n_threads 2") || !strings.Contains(m.Error, "n_threads: total")):
			t.Errorf("split record: status %s, %q", m.Status, m.Error)
		case !split && m.Status != measure.StatusOK:
			t.Errorf("native record: status %s, %q", m.Status, m.Error)
		}
	}

	// Big threads from the record (2) on a 1-core big engine.
	runs2 := filepath.Join(dir, "from-record.jsonl")
	args = append(append([]string(nil), base...), "--measurements", runs2)
	if stdout, stderr, code := runCLI(t, args...); code != 0 || !strings.Contains(stdout, "1 flagged") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	ms, _ = measure.ReadFile(runs2)
	flagged := 0
	for _, m := range ms {
		if m.Status == measure.StatusFlagged {
			flagged++
			if !strings.Contains(m.Error, "cannot run") || !strings.Contains(m.Error, "n_threads: total") {
				t.Errorf("flag reason: %q", m.Error)
			}
		}
	}
	if flagged != 1 {
		t.Errorf("%d flagged, want the split record", flagged)
	}
	// --resume takes a flagged run as done.
	if stdout, _, code := runCLI(t, append(args, "--resume")...); code != 0 || !strings.Contains(stdout, "2 skipped") {
		t.Errorf("resume: %d\n%s", code, stdout)
	}
}

// cdispatchSetup skips where the C dispatcher cannot run its two pools (not
// Linux, one CPU, -short), builds it, and writes the two-engine test prior
// into a fresh folder: the binary, the big and little CPUs, the folder and
// the prior's path.
func cdispatchSetup(t *testing.T) (bin, big, little, dir, prior string) {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.NumCPU() < 2 {
		t.Skip("needs Linux and two CPUs")
	}
	if testing.Short() {
		t.Skip("runs the C dispatcher")
	}
	bin = buildCDispatch(t)
	big, little = cdispatchCPUs(t)
	dir = t.TempDir()
	prior = filepath.Join(dir, "prior.yaml")
	if err := os.WriteFile(prior, []byte(testPrior), 0o644); err != nil {
		t.Fatal(err)
	}
	return bin, big, little, dir, prior
}
