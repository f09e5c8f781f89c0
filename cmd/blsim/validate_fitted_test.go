package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
)

// remeasure writes the runs of path again, as a later measurement of the
// same configurations would be: the same IDs, other values.
func remeasure(t *testing.T, path string) string {
	t.Helper()
	ms, _ := measure.ReadFile(path)
	out := filepath.Join(filepath.Dir(path), "again.jsonl")
	w, err := measure.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, m := range ms {
		m.Median *= 1.01
		m.Time = "2030-01-01T00:00:00Z"
		if err := w.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// validate says "fitted points" for the throughputs a profile was fitted
// on and "held-out" for the others, each group with its own MAPE, and
// says so when an older profile does not record its runs.
func TestValidateFittedOrHeldOut(t *testing.T) {
	dir := t.TempDir()
	runs := writeRuns(t, dir)
	free := "engines.little.kernel_ops_per_cycle.q4,engines.big.kernel_ops_per_cycle.q4"
	all := filepath.Join(dir, "all.yaml")
	part := filepath.Join(dir, "part.yaml")
	if _, stderr, code := runCLI(t, "fit", "--measurements", runs, "--soc", "rk3588", "-o", all, "--free", free); code != 0 {
		t.Fatalf("fit: %s", stderr)
	}
	if _, stderr, code := runCLI(t, "fit", "--measurements", runs, "--soc", "rk3588", "-o", part, "--free", free, "--holdout", "f=0.2,f=0.4"); code != 0 {
		t.Fatalf("fit --holdout: %s", stderr)
	}
	again := remeasure(t, runs)
	data, err := os.ReadFile(all)
	if err != nil {
		t.Fatal(err)
	}
	// A profile fitted before blsim listed its runs: no fitted_runs.
	old := filepath.Join(dir, "old.yaml")
	stripped := regexp.MustCompile(`(?m)^  fitted_runs:\n(    - .*\n)+`).ReplaceAll(data, nil)
	if len(stripped) == len(data) {
		t.Fatalf("no fitted_runs in the profile:\n%s", data)
	}
	if err := os.WriteFile(old, stripped, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, soc, ms string
		want, not     []string
	}{
		{"own runs", all, runs,
			[]string{"predict: 10 fitted points (in-sample: the profile was fitted on these throughputs, so their error is not held out), MAPE "},
			[]string{"held-out", "held out\t"}},
		{"runs measured again", all, again,
			[]string{"predict: 10 held-out throughputs, MAPE "},
			[]string{"fitted"}},
		{"some fitted", part, runs,
			[]string{"predict: 6 fitted points (in-sample", "predict: 4 held-out throughputs, MAPE ", "worst  ", "  set  ", "  fitted  ", "  held out  "},
			nil},
		{"a preset", "rk3588", runs,
			[]string{"predict: 10 held-out throughputs, MAPE "},
			[]string{"fitted"}},
		{"an older fit", old, runs,
			[]string{"predict: 10 throughputs, held out only if measured after the fit (the profile does not record the runs it was fitted on), MAPE "},
			[]string{"held-out", "fitted points"}},
	} {
		stdout, stderr, code := runCLI(t, "validate", "--measurements", tc.ms, "--soc", tc.soc)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", tc.name, code, stderr)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: no %q in\n%s", tc.name, w, stdout)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(stdout, n) {
				t.Errorf("%s: %q in\n%s", tc.name, n, stdout)
			}
		}
	}
	// --holdout refits without what it scores: held out, even on a
	// profile fitted on those runs.
	stdout, _, code := runCLI(t, "validate", "--measurements", runs, "--soc", all, "--holdout", "poll=0")
	if code != 0 || !strings.Contains(stdout, "holdout: 5 held-out throughputs") || strings.Contains(stdout, "fitted") {
		t.Errorf("validate --holdout: %d\n%s", code, stdout)
	}
}
