package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, writing name.got on mismatch.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		_ = os.WriteFile(path+".got", got, 0o644)
		t.Errorf("output differs from %s; see %s.got", path, path)
	}
}

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"predict.stdout", []string{"predict"}},
		{"predict_poll0.stdout", []string{"predict", "--poll", "0", "--split", "token"}},
		{"predict_ddr5_sweep.stdout", []string{"predict", "--soc", "ddr5", "--split", "token", "--sweep"}},
		{"socs.stdout", []string{"socs"}},
		{"workloads.stdout", []string{"workloads"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runCLI(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			golden(t, tc.name, []byte(out))
		})
	}
}

func TestPredictJSON(t *testing.T) {
	out, errs, code := runCLI(t, "predict", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	type plan struct {
		Mode  string    `json:"mode"`
		Fracs []float64 `json:"fracs"`
		Poll  int       `json:"poll"`
	}
	var rep struct {
		Schema string `json:"schema"`
		Native struct {
			TPS          float64 `json:"tps"`
			DRAMUtilPeak float64 `json:"dram_util_peak"`
		} `json:"native"`
		Plans []struct {
			Kind    string  `json:"kind"`
			Plan    plan    `json:"plan"`
			TPS     float64 `json:"tps"`
			GainPct float64 `json:"gain_pct"`
			Verdict string  `json:"verdict"`
		} `json:"plans"`
		Best struct {
			Plan    plan    `json:"plan"`
			TPS     float64 `json:"tps"`
			Verdict string  `json:"verdict"`
		} `json:"best"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Native.TPS < 26.26*0.99 || rep.Native.TPS > 26.26*1.01 {
		t.Errorf("native.tps = %.3f, want 26.26 ± 1%%", rep.Native.TPS)
	}
	if rep.Native.DRAMUtilPeak < 0.93 || rep.Native.DRAMUtilPeak > 0.99 {
		t.Errorf("native.dram_util_peak = %.3f, want 0.93..0.99", rep.Native.DRAMUtilPeak)
	}
	if rep.Schema != "blsim/prediction/v1" {
		t.Errorf("schema %q", rep.Schema)
	}
	found := false
	for _, s := range rep.Plans {
		if s.Plan.Mode == "token" && s.Kind == "requested" {
			found = true
			if len(s.Plan.Fracs) != 2 || s.Plan.Fracs[1] != 0.12 || s.Plan.Poll != 50 || s.Verdict != "PARITY" {
				t.Errorf("requested token split = %+v, want frac 0.12 poll 50 PARITY", s)
			}
			if d := s.TPS/rep.Native.TPS - 1; d < -0.01 || d > 0.01 {
				t.Errorf("token split at 0.12 is %+.2f%% off native, want within 1%%", 100*d)
			}
		}
	}
	if !found {
		t.Error("no requested token split in JSON")
	}
	if rep.Best.TPS == 0 || rep.Best.Plan.Mode == "" || len(rep.Best.Plan.Fracs) != 2 {
		t.Errorf("best missing: %+v", rep.Best)
	}
}

func TestBadInput(t *testing.T) {
	skipShort(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("schema: blsim/soc/v1\nname: x\nbogus: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	neg, err := os.ReadFile("../../presets/socs/rk3588.yaml")
	if err != nil {
		t.Fatal(err)
	}
	negPath := filepath.Join(dir, "neg.yaml")
	if err := os.WriteFile(negPath, bytes.Replace(neg, []byte("sustained_gb_s: 21.0"), []byte("sustained_gb_s: -21.0"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	malformed := filepath.Join(dir, "malformed.yaml")
	if err := os.WriteFile(malformed, []byte("schema: [blsim\n  name: :\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown key", []string{"predict", "--soc", bad}, []string{"bad.yaml:3", "bogus", "unknown key"}},
		{"negative bandwidth", []string{"predict", "--soc", negPath}, []string{"neg.yaml:15", "dram.sustained_gb_s", "negative"}},
		{"malformed yaml", []string{"predict", "--soc", malformed}, []string{"malformed.yaml"}},
		{"missing file", []string{"predict", "--soc", filepath.Join(dir, "nope.yaml")}, []string{"--soc", "nope.yaml", "no such file"}},
		{"unknown preset", []string{"predict", "--soc", "rk9999"}, []string{"--soc", "rk9999", "rk3588"}},
		{"unknown workload", []string{"predict", "--workload", "llama"}, []string{"--workload", "llama"}},
		{"frac outside", []string{"predict", "--frac", "1.5"}, []string{"--frac", "1.5"}},
		{"frac garbage", []string{"predict", "--frac", "lots"}, []string{"--frac", "lots"}},
		{"poll outside", []string{"predict", "--poll", "101"}, []string{"--poll", "101"}},
		{"too many threads", []string{"predict", "--big-threads", "9"}, []string{"--big-threads", "9", "4 cores"}},
		{"zero threads", []string{"predict", "--little-threads", "0"}, []string{"--little-threads: 0 threads: want at least 1"}},
		{"busy without a sweep", []string{"predict", "--busy", "big=1"}, []string{"--busy", "thread sweep's pools"}},
		{"busy garbage", []string{"predict", "--threads-sweep", "--busy", "big"}, []string{"--busy", `"big": want engine=cores`}},
		{"busy too many", []string{"predict", "--threads-sweep", "--busy", "little=5"}, []string{"--busy", "little=5: little has 4 cores"}},
		{"placement without a sweep", []string{"predict", "--placement", "linux"}, []string{"--placement", "add -t or --threads-sweep"}},
		{"placement unknown", []string{"predict", "--threads-sweep", "--placement", "bsd"}, []string{"--placement", `"bsd"`, "linux, android, macos or windows"}},
		{"placement strict", []string{"predict", "--threads-sweep", "--placement", "strict"}, []string{"--placement", `"strict"`}},
		{"bad split", []string{"predict", "--split", "layer"}, []string{"--split", "layer"}},
		{"negative draws", []string{"predict", "--draws", "-1"}, []string{"--draws", "-1 is outside 0..10000"}},
		{"zero prompt", []string{"predict", "--prompt", "0"}, []string{"--prompt: 0: want at least 1"}},
		{"zero ubatch", []string{"predict", "--ubatch", "0"}, []string{"--ubatch: 0: want at least 1"}},
		{"too many ubatches", []string{"predict", "--prompt", "1048576", "--ubatch", "1"}, []string{"--prompt 1048576 --ubatch 1", "at most 4096"}},
		{"a device", []string{"predict", "--soc", "/dev/zero"}, []string{"--soc", "/dev/zero", "more than 1 MiB", "character device"}},
		{"unknown flag", []string{"predict", "--bogus"}, []string{"bogus"}},
		{"unknown command", []string{"frobnicate"}, []string{"frobnicate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runCLI(t, tc.args...)
			if code == 0 {
				t.Fatalf("exit 0, want non-zero; stdout %q", out)
			}
			if strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("error is not one line: %q", errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("error %q does not mention %q", errs, w)
				}
			}
		})
	}
}

func TestPredictFlagsParse(t *testing.T) {
	var got *predictOptions
	cmd := newPredictCmd(nil, nil, func(o *predictOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--soc", "ddr5", "--frac", "auto", "--poll", "0", "--big-threads", "2", "--sweep", "--json"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.SoC != "ddr5" || got.Workload != "qwen3.5-35b-a3b" || got.Split != "both" || got.Frac != "auto" || got.Poll != "0" ||
		!got.Sweep || !got.JSON || got.Draws != 0 {
		t.Errorf("options = %+v", *got)
	}
	q, err := got.Request()
	if err != nil {
		t.Fatal(err)
	}
	// --big-threads given, --little-threads not: the second engine's
	// default (0); no split requested; every mode.
	if q.SoC.Name != "ddr5" || !slices.Equal(q.Threads, []int{2, 0}) || q.Fracs != nil || q.Modes != nil || q.Poll != 0 || q.Draws != 0 {
		t.Errorf("request = %+v", q)
	}
}

// A profile calibrated on a machine with one core per cluster predicts,
// plots and reports without thread flags: each engine runs min(4, its
// cores) threads unless told otherwise.
func TestThreadsDefaultToCores(t *testing.T) {
	soc := filepath.Join("..", "..", "calibrate", "fit", "testdata", "vm-prior.yaml")
	stdout, stderr, code := runCLI(t, "predict", "--soc", soc, "--workload", "synthetic-moe", "--json")
	if code != 0 || !strings.Contains(stdout, `"threads": [`) {
		t.Fatalf("predict: %d %s %s", code, stdout, stderr)
	}
	if !strings.Contains(strings.Join(strings.Fields(stdout), ""), `"threads":[1,1]`) {
		t.Errorf("predict did not run 1+1 threads:\n%s", stdout)
	}
	if _, stderr, code := runCLI(t, "predict", "--soc", soc, "--workload", "synthetic-moe", "--big-threads", "2"); code == 0 || !strings.Contains(stderr, "--big-threads: 2 threads") {
		t.Errorf("explicit --big-threads 2 on a 1-core engine: %d %s", code, stderr)
	}
	if out, err := runPlot("timeline", "--soc", soc, "--workload", "synthetic-moe", "-o", filepath.Join(t.TempDir(), "t.svg")); err != nil {
		t.Errorf("plot timeline: %q %v", out, err)
	}
}

// refusedForLoad reports whether a calibrate or fit that exited non-zero
// refused because other processes disturbed its runs (fit.InterferenceError):
// the load of the machine the test runs on, which a test of live runs
// cannot control. The refusal is then the behaviour asserted: it names
// the interference, never the model.
func refusedForLoad(t *testing.T, code int, stderr string) bool {
	t.Helper()
	if code == 0 || !strings.Contains(stderr, "other processes disturbed the runs") {
		return false
	}
	if strings.Contains(stderr, "the model and the measurements disagree") {
		t.Errorf("a refusal for interference blames the model:\n%s", stderr)
	}
	t.Logf("refused, the machine being loaded (the behaviour asserted): %s", stderr)
	return true
}
