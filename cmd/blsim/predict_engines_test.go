package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/sim"
)

// TestPredictEnginesNPU: `blsim predict --soc rk3588-npu --engines big,npu`
// prints the best NPU share, its gain and its verdict as the library
// predicts them (predict.Run of the same request, to print precision), and
// the NPU's share is worth it there: the best gives it work, and its gain
// is sure (WIN, interval above 0). The NPU splits by tokens only.
func TestPredictEnginesNPU(t *testing.T) {
	out, errs, code := runCLI(t, "predict", "--soc", "rk3588-npu", "--engines", "big,npu", "--draws", "8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	s, err := presets.LoadSoC("rk3588-npu")
	if err != nil {
		t.Fatal(err)
	}
	w, err := presets.LoadWorkload("qwen3.5-35b-a3b")
	if err != nil {
		t.Fatal(err)
	}
	p, err := predict.Run(predict.Request{SoC: s, Workload: w, Engines: []string{"big", "npu"}, Fracs: []float64{0.88, 0.12}, Draws: 8, Poll: 50})
	if err != nil {
		t.Fatal(err)
	}
	b := p.Best
	if b.Verdict != sim.Win || !(b.GainPct > 0) || !(b.Interval.LoPct > 0) || b.Plan.Mode != model.TokenSplit || !(b.Plan.Fracs[1] > 0) {
		t.Errorf("the NPU's best split: %s %v, %+.2f%% %+v, %s; want a sure gain (WIN) with work on the NPU", b.Plan.Mode, b.Plan.Fracs, b.GainPct, b.Interval, b.Verdict)
	}
	head := fmt.Sprintf("verdict: %s (best: token split, big %.3f + npu %.3f, %+.2f%%", b.Verdict, b.Plan.Fracs[0], b.Plan.Fracs[1], b.GainPct)
	for _, want := range []string{"engines big (cpu) 4 + npu (npu) 3 threads", "token split, best", "token split, requested",
		"dispatcher only", head} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "expert split") {
		t.Errorf("the NPU splits by tokens only, but expert splits are printed:\n%s", out)
	}
}

// TestPredictEnginesJSON: three clusters, --json: each engine's share,
// summing to 1, the gain and the verdict.
func TestPredictEnginesJSON(t *testing.T) {
	out, errs, code := runCLI(t, "predict", "--soc", "cix-p1", "--split", "token", "--engines", "big,mid,little", "--draws", "8", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Engines []string `json:"engines"`
		Threads []int    `json:"threads"`
		Best    struct {
			Kind string `json:"kind"`
			Plan struct {
				Fracs []float64 `json:"fracs"`
			} `json:"plan"`
			GainPct float64 `json:"gain_pct"`
			Verdict string  `json:"verdict"`
		} `json:"best"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Engines, ",") != "big,mid,little" || len(rep.Best.Plan.Fracs) != 3 {
		t.Fatalf("engines %v fracs %v", rep.Engines, rep.Best.Plan.Fracs)
	}
	// Each fraction a share; the best need not give every cluster one:
	// with cix-p1's sustained DRAM from the O6's whole-chip read, the
	// A520s' share of a token split costs more than it brings (0.000 at
	// 51.86 t/s against 51.44 with 0.106), so two clusters at least.
	sum, taking := 0.0, 0
	for _, f := range rep.Best.Plan.Fracs {
		sum += f
		if !(f >= 0 && f <= 1) {
			t.Errorf("fraction %g: not a share", f)
		}
		if f > 0 {
			taking++
		}
	}
	if taking < 2 {
		t.Errorf("fractions %v: a split needs two clusters taking a share", rep.Best.Plan.Fracs)
	}
	if sum < 0.999 || sum > 1.001 || rep.Best.Kind != "best" || rep.Best.Verdict != "WIN" || !(rep.Best.GainPct > 5) {
		t.Errorf("best %+v (sum %g)", rep.Best, sum)
	}
}

// TestPredictEnginesTwoCPU: --engines naming two CPU clusters is the
// two-engine path: the same output as without it.
func TestPredictEnginesTwoCPU(t *testing.T) {
	a, _, ca := runCLI(t, "predict", "--split", "token", "--draws", "8")
	b, errs, cb := runCLI(t, "predict", "--split", "token", "--draws", "8", "--engines", "big,little")
	if ca != 0 || cb != 0 {
		t.Fatalf("exit %d %d: %s", ca, cb, errs)
	}
	if a != b {
		t.Errorf("--engines big,little changed the output:\n%s\nvs\n%s", a, b)
	}
}

// TestPredictEnginesErrors: bad --engines, --engine-threads, --frac and
// --sensitivity give a one-line error and a non-zero exit.
func TestPredictEnginesErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown engine", []string{"--soc", "rk3588-npu", "--engines", "big,gpu"}, `no engine "gpu" (have big, little, npu)`},
		{"one engine", []string{"--soc", "rk3588-npu", "--engines", "big"}, "names one engine"},
		{"twice", []string{"--soc", "rk3588-npu", "--engines", "big,npu,big"}, `engine "big" listed twice`},
		{"npu first", []string{"--soc", "rk3588-npu", "--engines", "npu,big"}, `"npu" is an accelerator`},
		{"npu by experts", []string{"--soc", "rk3588-npu", "--engines", "big,npu", "--split", "expert"}, `--split: engine "npu" cannot take a share of the expert split`},
		{"fractions above 1", []string{"--soc", "rk3588-npu", "--engines", "big,little,npu", "--frac", "0.5,0.6"}, "shares sum to 1.1"},
		{"fraction count", []string{"--soc", "rk3588-npu", "--engines", "big,little,npu", "--frac", "0.5"}, "1 values for 2 engines"},
		{"bad fraction", []string{"--soc", "cix-p1", "--engines", "big,mid,little", "--frac", "0.2,x"}, `"x" is not auto or a number`},
		{"threads count", []string{"--soc", "rk3588-npu", "--engines", "big,npu", "--engine-threads", "4"}, "1 values for 2 engines"},
		{"threads too many", []string{"--soc", "rk3588-npu", "--engines", "big,npu", "--engine-threads", "4,4"}, `4 threads for engine "npu", but it has 3 cores`},
		{"little threads on npu", []string{"--soc", "rk3588-npu", "--engines", "big,npu", "--little-threads", "4"}, `4 threads for engine "npu", but it has 3 cores`},
		{"threads and big-threads", []string{"--engine-threads", "4,4", "--big-threads", "2"}, "--engine-threads: give it or --big-threads"},
		{"threads beyond the default engines", []string{"--engine-threads", "4,4,4"}, "--engine-threads: 3 values for 2 engines"},
		{"sensitivity without accelerator", []string{"--soc", "cix-p1", "--engines", "big,mid,little", "--sensitivity"}, "needs an accelerator"},
		{"sensitivity without engines", []string{"--soc", "rk3588-npu", "--sensitivity"}, "--sensitivity: needs an accelerator among the engines (big, little are CPU clusters)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, code := runCLI(t, append([]string{"predict"}, tc.args...)...)
			if code == 0 {
				t.Fatalf("exit 0; want an error containing %q", tc.want)
			}
			if !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
				t.Errorf("stderr %q: want one line containing %q", errs, tc.want)
			}
		})
	}
}

// TestPredictNPUSensitivity: --sensitivity prints the sweep over the NPU's
// throughput and submit latency and where the split turns from LOSS to WIN.
func TestPredictNPUSensitivity(t *testing.T) {
	out, errs, code := runCLI(t, "predict", "--soc", "rk3588-npu", "--engines", "big,npu", "--frac", "auto", "--draws", "4", "--sensitivity", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Sensitivity struct {
			TOPS     []float64 `json:"tops"`
			SubmitUS []float64 `json:"submit_us"`
		} `json:"sensitivity"`
		Fixed []struct {
			SubmitUS float64 `json:"submit_us"`
			Lo       float64 `json:"lo_tops"`
			Hi       float64 `json:"hi_tops"`
		} `json:"win_boundary_fixed"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(rep.Sensitivity.TOPS) != 7 || len(rep.Sensitivity.SubmitUS) != 5 || len(rep.Fixed) != 5 {
		t.Fatalf("grid %d x %d, %d boundaries", len(rep.Sensitivity.TOPS), len(rep.Sensitivity.SubmitUS), len(rep.Fixed))
	}
	if b := rep.Fixed[0]; !(b.Lo > 0.05 && b.Hi < 0.3 && b.Lo < b.Hi) {
		t.Errorf("LOSS->WIN at 250 µs between %g and %g TOPS; want about 0.1-0.2", b.Lo, b.Hi)
	}
}

// TestPredictThreadsWithoutEngines: --engine-threads applies to the SoC's first
// two engines when --engines is not given, as everywhere engines are.
func TestPredictThreadsWithoutEngines(t *testing.T) {
	out, errs, code := runCLI(t, "predict", "--engine-threads", "4,2", "--draws", "4", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Engines []string `json:"engines"`
		Threads []int    `json:"threads"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Engines, ",") != "big,little" || len(rep.Threads) != 2 || rep.Threads[0] != 4 || rep.Threads[1] != 2 {
		t.Errorf("engines %v threads %v, want big,little at 4,2", rep.Engines, rep.Threads)
	}
}

// TestPredictEnginesEveryCluster: --engines takes every CPU cluster of the
// presets with more than three (issue 25): the Snapdragon 8 Gen 3's four
// (X4, A720 at 3.2, A720 at 3.0, A520) and the Dimensity 9300's three (X4
// at 3.25, X4 at 2.85, A720); the best plan gives one share per cluster,
// summing to 1.
func TestPredictEnginesEveryCluster(t *testing.T) {
	for soc, engines := range map[string]string{"snapdragon-8-gen3": "prime,big,mid,little", "dimensity-9300": "prime,big,little"} {
		out, errs, code := runCLI(t, "predict", "--soc", soc, "--split", "token", "--engines", engines, "--draws", "8", "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", soc, code, errs)
		}
		var rep struct {
			Engines []string `json:"engines"`
			Best    struct {
				Plan struct {
					Fracs []float64 `json:"fracs"`
				} `json:"plan"`
				Verdict string `json:"verdict"`
			} `json:"best"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		n := strings.Count(engines, ",") + 1
		sum := 0.0
		for _, f := range rep.Best.Plan.Fracs {
			sum += f
		}
		if strings.Join(rep.Engines, ",") != engines || len(rep.Best.Plan.Fracs) != n || sum < 0.999 || sum > 1.001 || rep.Best.Verdict == "" {
			t.Errorf("%s: engines %v, best %+v (sum %g), want %d shares summing to 1", soc, rep.Engines, rep.Best, sum, n)
		}
	}
}
