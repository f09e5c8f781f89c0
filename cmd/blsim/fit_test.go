package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// writeRuns simulates a grid of plans on a perturbed rk3588 and writes them
// as a measurements file, with one corrupt line in the middle.
func writeRuns(t *testing.T, dir string) string {
	t.Helper()
	truth, _ := presets.SoC("rk3588")
	_ = truth.Set("engines.little.kernel_ops_per_cycle.q4", 7)
	yaml, err := os.ReadFile("testdata/small-moe.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "runs.jsonl")
	w, err := measure.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	p := fit.NewPredictor()
	i := 0
	for _, poll := range []int{0, 50} {
		for _, f := range []float64{0, 0.1, 0.2, 0.3, 0.4} {
			pl := model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(f), poll)
			m := measure.Measurement{ID: fmt.Sprint("r", i), Kind: measure.Dispatcher, Workload: "small-moe",
				WorkloadYAML: string(yaml), Plan: measure.PlanOf(pl), Unit: "t/s", Status: "ok", CV: 0.01}
			v, err := p.Predict(truth, &m)
			if err != nil {
				t.Fatal(err)
			}
			m.Median = v
			if err := w.Write(m); err != nil {
				t.Fatal(err)
			}
			i++
			if i == 3 {
				f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				f.WriteString("this line is not json\n")
				f.Close()
			}
		}
	}
	return path
}

func TestFitAndValidateCommands(t *testing.T) {
	dir := t.TempDir()
	runs := writeRuns(t, dir)
	out := filepath.Join(dir, "fitted.yaml")
	stdout, stderr, code := runCLI(t, "fit", "--measurements", runs, "--soc", "rk3588", "-o", out,
		"--free", "engines.little.kernel_ops_per_cycle.q4,engines.big.kernel_ops_per_cycle.q4")
	if code != 0 {
		t.Fatalf("fit exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "runs.jsonl:4") {
		t.Errorf("bad line not reported: %q", stderr)
	}
	if !strings.Contains(stdout, "engines.little.kernel_ops_per_cycle.q4") || !strings.Contains(stdout, "wrote "+out) {
		t.Errorf("fit output: %s", stdout)
	}
	fitted, err := model.LoadSoCFile(out)
	if err != nil {
		t.Fatalf("fitted profile does not load: %v", err)
	}
	if v, _ := fitted.Get("engines.little.kernel_ops_per_cycle.q4"); v < 6.8 || v > 7.2 {
		t.Errorf("fitted little q4 = %g, want 7", v)
	}
	if fitted.Provenance == nil || fitted.Provenance.Runs != 10 {
		t.Errorf("provenance = %+v", fitted.Provenance)
	}
	// rk3588's class rates are its core parts': the fit says it replaced
	// them, the profile's notes keep it, and --resolved calls them
	// calibration.
	replaced := "calibration replaced part values: engines.big.kernel_ops_per_cycle.q4 (part cortex-a76: 28 -> "
	if !strings.Contains(stdout, replaced) || !strings.Contains(stdout, "engines.little.kernel_ops_per_cycle.q4 (part cortex-a55: 9 -> 7.0") {
		t.Errorf("fit output does not say which part values it replaced: %s", stdout)
	}
	if !strings.Contains(strings.Join(fitted.Provenance.Notes, "\n"), replaced) {
		t.Errorf("provenance notes %q lack %q", fitted.Provenance.Notes, replaced)
	}
	if show, stderr, code := runCLI(t, "socs", "show", out, "--resolved"); code != 0 || !regexp.MustCompile(`\n\s+q4: [0-9.]+ # calibration: `).MatchString(show) {
		t.Errorf("socs show --resolved of the fit: exit %d, %s%s", code, show, stderr)
	}
	stdout, stderr, code = runCLI(t, "validate", "--measurements", runs, "--soc", out)
	if code != 0 {
		t.Fatalf("validate exit %d: %s", code, stderr)
	}
	// The profile was fitted on these very runs: in-sample, not held out.
	if !strings.Contains(stdout, "predict: 10 fitted points (in-sample") || strings.Contains(stdout, "held-out") {
		t.Errorf("validate output: %s", stdout)
	}
	stdout, _, code = runCLI(t, "validate", "--measurements", runs, "--soc", "rk3588", "--holdout", "poll=0")
	if code != 0 || !strings.Contains(stdout, "holdout: 5 held-out") {
		t.Errorf("holdout: %d %s", code, stdout)
	}
	// A prompt predict with the fitted profile works.
	if _, stderr, code := runCLI(t, "predict", "--soc", out, "--draws", "4"); code != 0 {
		t.Errorf("predict with fitted profile: %s", stderr)
	}
}

func TestFitValidateBadInput(t *testing.T) {
	dir := t.TempDir()
	runs := writeRuns(t, dir)
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, []byte("garbage\n"), 0o644)
	twoHosts := filepath.Join(dir, "two.jsonl")
	os.WriteFile(twoHosts, []byte(`{"schema":"blsim/measurement/v1","id":"a","kind":"kernel","unit":"x","median":1,"cv":0,"status":"ok","host":{"clusters":[{"name":"big","cpus":[0,1]}]}}
{"schema":"blsim/measurement/v1","id":"b","kind":"kernel","unit":"x","median":1,"cv":0,"status":"ok","host":{"clusters":[{"name":"big","cpus":[2,3]}]}}
`), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no soc, no clusters recorded", []string{"fit", "--measurements", runs, "-o", filepath.Join(dir, "x.yaml")}, "--soc: a prior profile is required: " + runs + " records no clusters"},
		{"no soc, two machines' clusters", []string{"fit", "--measurements", twoHosts, "-o", filepath.Join(dir, "x.yaml")}, "record b: its clusters (big=2-3) differ from record a's (big=0-1)"},
		{"no output", []string{"fit", "--measurements", runs, "--soc", "rk3588"}, "-o"},
		{"missing file", []string{"fit", "--measurements", filepath.Join(dir, "nope.jsonl"), "--soc", "rk3588", "-o", filepath.Join(dir, "x.yaml")}, "nope.jsonl"},
		{"nothing readable", []string{"fit", "--measurements", empty, "--soc", "rk3588", "-o", filepath.Join(dir, "x.yaml")}, "no readable"},
		{"bad free", []string{"fit", "--measurements", runs, "--soc", "rk3588", "-o", filepath.Join(dir, "x.yaml"), "--free", "engines.gpu.x"}, "--free"},
		{"empty free", []string{"fit", "--measurements", runs, "--soc", "rk3588", "-o", filepath.Join(dir, "x.yaml"), "--free", ""}, "--free: no parameter named"},
		{"unwritable", []string{"fit", "--measurements", runs, "--soc", "rk3588", "-o", filepath.Join(dir, "no", "x.yaml"), "--free", "handoff.futex_wake_us"}, "x.yaml"},
		{"loo and holdout", []string{"validate", "--measurements", runs, "--soc", "rk3588", "--loo", "--holdout", "x"}, "choose one"},
		{"validate no soc", []string{"validate", "--measurements", runs}, "--soc: a profile is required"},
		{"validate --holdout, no soc, no clusters recorded", []string{"validate", "--measurements", runs, "--holdout", "f=0.3"}, "records no clusters"},
		{"fit bad stat", []string{"fit", "--measurements", runs, "--soc", "rk3588", "-o", filepath.Join(dir, "x.yaml"), "--stat", "mean"}, "--stat"},
		{"validate bad stat", []string{"validate", "--measurements", runs, "--soc", "rk3588", "--stat", "max"}, `"max"`},
		{"holdout matches nothing", []string{"validate", "--measurements", runs, "--soc", "rk3588", "--holdout", "f=0.77"}, "no throughput matches"},
		{"holdout matches all", []string{"validate", "--measurements", runs, "--soc", "rk3588", "--holdout", "token"}, "none is left to fit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, tc.args...)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q, want mention of %q", code, stderr, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "x.yaml")); err == nil {
		t.Error("a failed fit left a profile behind")
	}
}

// fit --holdout writes the profile fitted on the rest and scores the
// held-out throughputs, in text and in JSON.
func TestFitHoldout(t *testing.T) {
	dir := t.TempDir()
	runs := writeRuns(t, dir)
	out := filepath.Join(dir, "fitted.yaml")
	free := "engines.little.kernel_ops_per_cycle.q4,engines.big.kernel_ops_per_cycle.q4"
	stdout, stderr, code := runCLI(t, "fit", "--measurements", runs, "--soc", "rk3588", "-o", out, "--free", free, "--holdout", "f=0.2,f=0.4")
	if code != 0 {
		t.Fatalf("fit exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "6 throughputs: RMS error") || !strings.Contains(stdout, "holdout: 4 held-out throughputs, MAPE 0.") {
		t.Errorf("fit --holdout output:\n%s", stdout)
	}
	fitted, err := model.LoadSoCFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if p := fitted.Provenance; p == nil || p.Runs != 6 || !strings.Contains(p.Source, "holding out f=0.2,f=0.4") {
		t.Errorf("provenance %+v", fitted.Provenance)
	}
	stdout, _, code = runCLI(t, "fit", "--measurements", runs, "--soc", "rk3588", "-o", out, "--free", free, "--holdout", "f=0.2", "--json")
	var got struct {
		Fit     struct{ Residuals []any }
		Holdout struct{ N int }
	}
	if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil || len(got.Fit.Residuals) != 8 || got.Holdout.N != 2 {
		t.Errorf("fit --holdout --json: %d %v %+v\n%s", code, err, got, stdout)
	}
	if _, stderr, code := runCLI(t, "fit", "--measurements", runs, "--soc", "rk3588", "-o", filepath.Join(dir, "none.yaml"), "--holdout", "f=0.9"); code == 0 || !strings.Contains(stderr, "no throughput matches") {
		t.Errorf("holdout matching nothing: %d %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.yaml")); err == nil {
		t.Error("a failed fit wrote a profile")
	}
}
