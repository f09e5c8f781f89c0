package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate"
	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/internal/cli"
	"github.com/blsim/blsim/internal/quant"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// TestCalibrateQuick really pins threads, measures and fits, with tiny
// budgets and a small workload, then resumes the finished file. It asserts
// what the command does, not how fast the machine is: every step is
// recorded with what else ran on its CPUs, and the fit either writes a
// profile or, on a machine other processes load, refuses naming them.
func TestCalibrateQuick(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.NumCPU() < 2 {
		t.Skip("needs Linux and two CPUs")
	}
	if testing.Short() {
		t.Skip("measures for several seconds")
	}
	dir := t.TempDir()
	runs, prof := filepath.Join(dir, "runs.jsonl"), filepath.Join(dir, "p.yaml")
	args := []string{"calibrate", "--cluster", "big=1", "--cluster", "little=0", "--quick", "--micro-budget", "20ms",
		"--workload", "testdata/small-moe.yaml", "--repeats", "1", "--measurements", runs, "-o", prof, "--name", "test-box",
		"--accept-poor-fit"} // eight quick points on a shared host: the mechanism is tested here, not the fit's quality
	stdout, stderr, code := runCLI(t, args...)
	refused := refusedForLoad(t, code, stderr)
	if code != 0 && !refused {
		t.Fatalf("calibrate exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "dispatcher kernels: "+quant.Impl()) {
		t.Errorf("calibrate does not say which kernels ran:\n%s", stderr)
	}
	// The microbenchmarks and the at-once step (how many depends on the
	// host: the shared-cache sweep runs only where sysfs gives a last-level
	// cache within the budget, 28 steps on one build VM and 32 on
	// another), each one measurement, then 8 points in
	// calibrate.QuickRounds rounds; when others disturbed most of the
	// first round (a shared test machine), the later rounds are skipped,
	// and the line says so.
	ms, errs := measure.ReadFile(runs)
	micro := 0
	for _, m := range ms {
		if m.Kind != measure.Dispatcher {
			micro++
		}
	}
	if micro < 28 {
		t.Errorf("%d microbenchmark measurements, want at least 28", micro)
	}
	all := micro + 8*calibrate.QuickRounds
	skipped := strings.Contains(stderr, fmt.Sprintf("(round 2/%d): skipped: ", calibrate.QuickRounds))
	want := all
	if skipped {
		want = micro + 8
	}
	if !skipped && !strings.Contains(stderr, fmt.Sprintf("[%d/%d] dispatcher", all, all)) || !refused && !strings.Contains(stdout, "wrote "+prof) {
		t.Errorf("progress/output:\n%s\n%s", stderr, stdout)
	}
	if len(errs) != 0 || len(ms) != want {
		t.Fatalf("%d measurements (want %d; later rounds skipped: %v), errors %v", len(ms), want, skipped, errs)
	}
	for _, m := range ms {
		if m.Host == nil || m.Host.Arch != runtime.GOARCH {
			t.Errorf("%s: host not recorded", m.ID)
		}
		if in := m.Interference; in == nil || len(in.CPUs) < 2 || in.WallS <= 0 || len(in.Used) == 0 {
			t.Errorf("%s: interference not recorded: %+v", m.ID, in)
		}
	}
	for _, m := range ms {
		if h := m.Host; h == nil || len(h.Clusters) != 2 || h.Clusters[0].Name != "big" || !slices.Equal(h.Clusters[0].CPUs, []int{1}) ||
			h.Clusters[1].Name != "little" || !slices.Equal(h.Clusters[1].CPUs, []int{0}) {
			t.Errorf("%s: clusters not recorded: %+v", m.ID, h)
			break
		}
	}
	if !refused {
		soc, err := model.LoadSoCFile(prof)
		if err != nil {
			t.Fatalf("profile does not load: %v", err)
		}
		// blsim fit without --soc refits the file from calibrate's own
		// prior, rebuilt from the clusters it records: the same fit.
		refit := filepath.Join(dir, "refit.yaml")
		out, errOut, code := runCLI(t, "fit", "--measurements", runs, "--accept-poor-fit", "-o", refit)
		t.Logf("calibrate: %s; refit: %s", fitLine(stdout), fitLine(out))
		if code != 0 || fitLine(out) == "" || fitLine(out) != fitLine(stdout) {
			t.Errorf("refit without --soc (exit %d): %q, calibrate's fit %q\n%s", code, fitLine(out), fitLine(stdout), errOut)
		}
		// The fit takes every dispatcher run: 8 points in each round run
		// (8 × calibrate.QuickRounds, or 8 when the later rounds were skipped).
		if soc.Name != "test-box" || len(soc.Engines) != 2 || soc.Provenance == nil || soc.Provenance.Runs != want-micro {
			t.Errorf("profile %s engines %d provenance %+v (want %d runs)", soc.Name, len(soc.Engines), soc.Provenance, want-micro)
		}
	}
	// The file exists: without --resume it is refused, nothing is lost.
	_, stderr, code = runCLI(t, args...)
	if code == 0 || !strings.Contains(stderr, "--resume") {
		t.Errorf("re-run without --resume: %d %s", code, stderr)
	}
	// A step that failed (the shared-cache sweep finds no cache to tell
	// from DRAM on a busy second CPU, say) is recorded failed and run
	// again on resume; what was measured ok is not.
	okRuns := 0
	for _, m := range ms {
		if m.OK() {
			okRuns++
		}
	}
	_, stderr, code = runCLI(t, append(args, "--resume")...)
	// Resumed, what was measured is not measured again; rounds skipped
	// before are taken now, unless skipped again.
	if code != 0 && !refusedForLoad(t, code, stderr) || strings.Count(stderr, ": already measured") != okRuns {
		t.Errorf("resume: exit %d, want %d already measured\n%s", code, okRuns, stderr)
	}
	// Every line of the first run is kept; the resumed steps append.
	if ms2, _ := measure.ReadFile(runs); len(ms2) < len(ms) || len(ms2) > len(ms)+all-okRuns {
		t.Errorf("resume: %d lines, %d before (%d ok, %d steps)", len(ms2), len(ms), okRuns, all)
	}
}

func TestCalibrateBadInput(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs.jsonl")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"cpu that does not exist", []string{"calibrate", "--cluster", "big=9999", "--cluster", "little=0"}, "9999"},
		{"bad cluster syntax", []string{"calibrate", "--cluster", "big:1"}, "big:1"},
		{"no cluster", []string{"calibrate", "--cluster", "big="}, "--cluster"},
		{"bad plans", []string{"calibrate", "--plans", "all"}, "--plans"},
		{"bench without workload", []string{"calibrate", "--bench", "true"}, "--workload"},
		{"bench without prior", []string{"calibrate", "--bench", "true", "--workload", "qwen3.5-35b-a3b"}, "--soc"},
		{"holdout with no-fit", []string{"calibrate", "--bench", "true", "--workload", "qwen3.5-35b-a3b", "--no-fit", "--holdout", "f=0.2"}, "--holdout"},
		{"bad stat", []string{"calibrate", "--bench", "true", "--workload", "qwen3.5-35b-a3b", "--stat", "avg"}, "--stat"},
		{"env without bench", []string{"calibrate", "--cluster", "big=1", "--cluster", "little=0", "--env", "ORK_BL_POLL=0"}, "--env: only with --bench"},
		{"retries without bench", []string{"calibrate", "--cluster", "big=1", "--cluster", "little=0", "--retries", "2"}, "--retries: only with --bench"},
		{"built-in holdout with no-fit", []string{"calibrate", "--cluster", "big=1", "--cluster", "little=0", "--no-fit", "--holdout", "f=0.1"}, "--holdout: nothing is fitted"},
		{"bad plans set", []string{"calibrate", "--cluster", "big=1", "--cluster", "little=0", "--plans", "fit+all"}, "fit+heldout"},
		{"unwritable measurements", []string{"calibrate", "--cluster", "big=1", "--cluster", "little=0", "--measurements", filepath.Join(dir, "no", "r.jsonl")}, "r.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if !strings.Contains(strings.Join(args, " "), "--measurements") {
				args = append(args, "--measurements", runs)
			}
			_, stderr, code := runCLI(t, args...)
			if code == 0 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("exit %d, stderr %q, want one line mentioning %q", code, stderr, tc.want)
			}
		})
	}
	if _, err := os.Stat(runs); err == nil {
		if b, _ := os.ReadFile(runs); len(b) > 0 {
			t.Errorf("failed runs wrote measurements: %s", b)
		}
	}
}

// TestCalibrateFitAndHeldOut measures the fit and the held-out plans in the
// same shuffled rounds, fits on the one and scores the other (or, on a
// loaded machine, refuses naming the interference).
func TestCalibrateFitAndHeldOut(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.NumCPU() < 2 {
		t.Skip("needs Linux and two CPUs")
	}
	if testing.Short() {
		t.Skip("measures for several seconds")
	}
	dir := t.TempDir()
	runs, prof := filepath.Join(dir, "runs.jsonl"), filepath.Join(dir, "p.yaml")
	stdout, stderr, code := runCLI(t, "calibrate", "--cluster", "big=1", "--cluster", "little=0", "--quick", "--micro-budget", "20ms",
		"--workload", "testdata/tiny-moe.yaml", "--repeats", "1", "--rounds", "2", "--plans", "fit+heldout", "--shuffle", "--stat", "best",
		"--measurements", runs, "-o", prof, "--accept-poor-fit")
	refused := refusedForLoad(t, code, stderr)
	if code != 0 && !refused {
		t.Fatalf("calibrate exit %d: %s", code, stderr)
	}
	if !refused && (!strings.Contains(stdout, "holdout: 12 held-out throughputs") && !strings.Contains(stdout, "holdout: not scored, disturbed") ||
		!strings.Contains(stdout, "(best sample)") || !strings.Contains(stdout, "configurations at least 50% memory-bound")) {
		t.Errorf("output:\n%s", stdout)
	}
	ms, errs := measure.ReadFile(runs)
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	var order [2][]string
	sets := map[string]int{}
	for _, m := range ms {
		if m.Kind != measure.Dispatcher {
			continue
		}
		sets[m.Knobs["set"]]++
		r := m.Knobs["round"]
		if r == "1" || r == "2" {
			i := int(r[0] - '1')
			order[i] = append(order[i], string(m.Plan.Mode)+" "+strings.Trim(strings.Join(strings.Fields(fmt.Sprint(m.Plan.Fracs)), ","), "[]"))
		}
	}
	// Quick: 4 plans on the workload's own prompt and 4 on the decode-like
	// and prefill-like shapes; held out: 7 and 5.
	if sets["fit"] != 16 || sets["heldout"] != 24 {
		t.Errorf("runs per set: %v, want 16 fit (8 points x 2 rounds) and 24 held out", sets)
	}
	if len(order[0]) != 20 || strings.Join(order[0], ";") == strings.Join(order[1], ";") {
		t.Errorf("rounds not shuffled apart:\n%v\n%v", order[0], order[1])
	}
	if refused {
		return
	}
	soc, err := model.LoadSoCFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if soc.Provenance == nil || soc.Provenance.Runs != 16 || !strings.Contains(soc.Provenance.Source, "holding out set=heldout") {
		t.Errorf("provenance %+v", soc.Provenance)
	}
	// validate --holdout without --soc refits from calibrate's own prior:
	// calibrate's held-out line.
	out, errOut, code := runCLI(t, "validate", "--measurements", runs, "--holdout", "set=heldout", "--stat", "best")
	if code != 0 || heldLine(out) == "" || heldLine(out) != heldLine(stdout) {
		t.Errorf("validate --holdout without --soc (exit %d): %q, calibrate's %q\n%s", code, heldLine(out), heldLine(stdout), errOut)
	}
}

// heldLine is the line of a fit's output that scores its held-out
// throughputs ("holdout: 5 held-out throughputs, MAPE 4.80%, ..."), ""
// if there is none.
func heldLine(out string) string { return lineWith(out, " held-out throughput") }

func TestNoiseLine(t *testing.T) {
	run := func(frac float64, samples ...float64) measure.Measurement {
		m := measure.Measurement{Schema: measure.Schema, Kind: measure.LlamaBench, Workload: "w", Unit: "t/s", Status: "ok",
			Plan: &model.Plan{Mode: "token", Engines: []string{"big", "little"}, Fracs: []float64{1 - frac, frac}, Threads: []int{1, 1}}, Samples: samples}
		m.Summarize()
		return m
	}
	noisy := []measure.Measurement{run(0.1, 200, 205, 300), run(0.1, 210, 206, 204), run(0.2, 100, 99, 101)}
	got := cli.NoiseLine(noisy, fit.Median)
	want := "noise: a configuration's median run is 0.69–0.99 of its fastest sample (0.99 typical, 2 configurations)"
	if got != want {
		t.Errorf("noiseLine = %q, want %q", got, want)
	}
	noisy = append(noisy, run(0.3, 60, 90, 61))
	if got := cli.NoiseLine(noisy, fit.Median); !strings.HasSuffix(got, "(0.69 typical, 3 configurations); on a shared host, try --stat best (validate --holdout compares the two)") {
		t.Errorf("noisy host: %q", got)
	}
	if got := cli.NoiseLine(noisy, fit.Best); strings.Contains(got, "--stat best") {
		t.Errorf("already fitting the best: %q", got)
	}
	if got := cli.NoiseLine([]measure.Measurement{run(0.1, 200)}, fit.Median); got != "" {
		t.Errorf("one sample: %q", got)
	}
}

// fitLine is the line of a fit's output that gives its error ("10
// throughputs: RMS error 6.26%, MAPE 5.13% (...)"), "" if there is none.
func fitLine(out string) string { return lineWith(out, " throughputs: RMS error ") }

// lineWith is the first line of out that contains sub, "" if none does.
func lineWith(out, sub string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// calibrate --resume refuses a file measured on other clusters before it
// measures anything, and leaves the file as it was.
func TestCalibrateResumeOtherClusters(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.NumCPU() < 2 {
		t.Skip("needs Linux and two CPUs")
	}
	runs := filepath.Join(t.TempDir(), "runs.jsonl")
	line := `{"schema":"blsim/measurement/v1","id":"y","kind":"stream","unit":"GB/s","median":10,"cv":0,"status":"ok","host":{"clusters":[{"name":"big","cpus":[0]}]}}` + "\n"
	if err := os.WriteFile(runs, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "calibrate", "--cluster", "big=1", "--quick", "--resume", "--measurements", runs, "-o", filepath.Join(filepath.Dir(runs), "p.yaml"))
	if code == 0 || !strings.Contains(stderr, "--resume: "+runs+" holds runs measured on other clusters (big=0, record y) than this calibration's (big=1)") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(runs); string(b) != line {
		t.Errorf("the file changed:\n%s", b)
	}
}
