package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/fit"
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

// The identification note says "its value is the prior's" only for a
// parameter the fit left there, and says where one that moved went.
func TestIdentificationNote(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    fit.ParamFit
		want string
	}{
		{"identified", fit.ParamFit{Path: "x", Prior: 4.27, PriorSigma: 1, Value: 1.44, Sigma: 0.1, Identifiable: true}, ""},
		{"left at the prior", fit.ParamFit{Path: "x", Prior: 4.27, PriorSigma: 1, Value: 4.27, Sigma: 1},
			"x is not identifiable from these measurements: its value is the prior's"},
		{"moved with another", fit.ParamFit{Path: "x", Prior: 4.27, PriorSigma: 1, Value: 1.44, Sigma: 0.5, CoupledWith: []string{"y", "z"}},
			"x is not identifiable on its own: moved from 4.27 to 1.44 together with y, z (the runs fix only a combination of them)"},
		{"narrowed by another", fit.ParamFit{Path: "x", Prior: 4.27, PriorSigma: 1, Value: 4.27, Sigma: 0.4, CoupledWith: []string{"y"}},
			"x is not identifiable on its own: the runs fix it only together with y; its value stayed the prior's 4.27, its σ narrowed from 1 to 0.4"},
		{"moved alone", fit.ParamFit{Path: "x", Prior: 4.27, PriorSigma: 1, Value: 1.44, Sigma: 1, AtBound: "lower"},
			"x is weakly identified: the fit moved it from 4.27 to 1.44, its lower bound, where no run depends on it any more: the runs pushed it there but do not pin it (σ 1, the prior's 1)"},
	} {
		p := tc.p
		p.Identification = fit.IdentificationOf(p)
		got := identificationNote(p)
		if got != tc.want {
			t.Errorf("%s: note\n %q\nwant\n %q", tc.name, got, tc.want)
		}
		if p.Moved() && strings.Contains(got, "its value is the prior's") {
			t.Errorf("%s: moved from %g to %g, yet the note says the value is the prior's", tc.name, p.Prior, p.Value)
		}
		// The fit's table and summary say the same.
		var b strings.Builder
		if err := writeFitText(&b, &fit.Result{Params: []fit.ParamFit{p}, Status: "FunctionConverged"}, ""); err != nil {
			t.Fatal(err)
		}
		if p.Moved() && strings.Contains(b.String(), "their values are the priors'") {
			t.Errorf("%s: moved, yet the summary says the prior's:\n%s", tc.name, b.String())
		}
		if tc.want != "" && p.Identification != fit.PriorOnly && !strings.Contains(b.String(), tc.want) {
			t.Errorf("%s: fit text lacks the note:\n%s", tc.name, b.String())
		}
	}
}
