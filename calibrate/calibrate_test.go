package calibrate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

func twoEngines() []Engine {
	return NewEngines([]topology.Cluster{
		{Name: "big", CPUs: []int{1}, MaxFreqKHz: 2000000, L2KiBPerCore: 512, SharedCacheKiB: 4096},
		{Name: "little", CPUs: []int{0}, L2KiBPerCore: 128},
	})
}

func TestPriorFromMicrobenchmarks(t *testing.T) {
	ms := []measure.Measurement{
		{ID: "a", Param: "engines.big.bandwidth_max_gb_s", Median: 12, CV: 0.01, Status: "ok"},
		{ID: "b", Param: "engines.big.kernel_ops_per_cycle.q4", Median: 3, CV: 0.2, Status: "ok"},
		{ID: "c", Param: "dram.sustained_gb_s", Median: 20, CV: 0.02, Status: "ok"},
		{ID: "d", Param: "handoff.futex_wake_us", Median: 40, CV: 0.1, Status: "ok"},
		{ID: "e", Param: "handoff.futex_wake_us", Median: 0, Status: "failed"},
		{ID: "f", Param: "engines.big.kernel_ops_per_cycle.q8", Median: 4, CV: 0.01, Status: "ok"},
		{ID: "g", Param: "engines.big.gemv_efficiency", Median: 0.8, CV: 0.01, Status: "ok"},
		{ID: "h", Param: "engines.little.gemv_efficiency", Median: 1, CV: 0.01, Status: "ok"},
		{ID: "i", Param: "handoff.timeslice_us", Median: 3700, CV: 0.05, Status: "ok", Host: &measure.Host{Arch: "arm64"}},
	}
	s := Prior("box", twoEngines(), ms, nil)
	// No record says at what idle the sleep exit was measured: a wake
	// past the spin window pays it all. A futex_wake_idle record does.
	if s.Handoff.SleepExitAfterUS != 0 {
		t.Errorf("no futex_wake_idle record: sleep exit after %g µs, want 0", s.Handoff.SleepExitAfterUS)
	}
	idle := append([]measure.Measurement{{ID: "j", Kind: measure.FutexWake, Param: "handoff.sleep_exit_us", Median: 80, CV: 0.5, Status: "ok", Knobs: map[string]string{"idle_ms": "10"}}}, ms...)
	if a := Prior("box", twoEngines(), idle, nil); a.Handoff.SleepExitAfterUS != 10000 || a.Handoff.SleepExitUS != 80 {
		t.Errorf("futex_wake_idle after 10 ms: sleep exit %g µs after %g µs, want 80 after 10000", a.Handoff.SleepExitUS, a.Handoff.SleepExitAfterUS)
	}
	// The time slice is measured; an arm64 host's llama.cpp runs no
	// attention through llamafile's sgemm, an amd64 one's does.
	if s.Handoff.TimesliceUS != 3700 || s.Engines[0].SgemmHeadBarriers {
		t.Errorf("timeslice %g µs, sgemm head barriers %v on arm64", s.Handoff.TimesliceUS, s.Engines[0].SgemmHeadBarriers)
	}
	amd := append([]measure.Measurement(nil), ms...)
	amd[len(amd)-1].Host = &measure.Host{Arch: "amd64"}
	if a := Prior("box", twoEngines(), amd, nil); !a.Engines[0].SgemmHeadBarriers || !a.Engines[1].SgemmHeadBarriers {
		t.Error("amd64 host: no sgemm head barriers")
	}
	// The q8 kernel measured its own rate, the type keys follow their
	// classes, and a gemv efficiency below 1 is the engine's (1 is no
	// penalty: left unset).
	if e := s.Engines[0]; e.KernelOpsPerCycle["q8"] != 4 || e.KernelOpsPerCycle["q8_0"] != 4 || e.KernelOpsPerCycle["q4_0"] != 3 || e.GemvEfficiency != 0.8 {
		t.Errorf("big: rates %v, gemv %g", e.KernelOpsPerCycle, e.GemvEfficiency)
	}
	if e := s.Engines[1]; e.KernelOpsPerCycle["q8"] != e.KernelOpsPerCycle["q4"] || e.GemvEfficiency != 0 {
		t.Errorf("little (q8 not measured: q4's): rates %v, gemv %g", e.KernelOpsPerCycle, e.GemvEfficiency)
	}
	if err := s.Validate(); err != nil {
		t.Fatalf("prior does not validate: %v", err)
	}
	for path, want := range map[string]float64{
		"engines.big.bandwidth_max_gb_s":      12,
		"engines.big.kernel_ops_per_cycle.q4": 3,
		"dram.sustained_gb_s":                 20,
		"handoff.futex_wake_us":               40,
		"engines.little.clock_ghz":            1, // no cpufreq: rates per GHz read as GOPS
		"engines.big.clock_ghz":               2,
		"engines.big.l2_kib_per_core":         512,
	} {
		if got, _ := s.Get(path); got != want {
			t.Errorf("%s = %g, want %g", path, got, want)
		}
	}
	if u := s.Uncertainty["engines.big.kernel_ops_per_cycle.q4"]; u < 1.79 || u > 1.81 {
		t.Errorf("noisy kernel's prior sigma = %g, want 3*cv*value = 1.8", u)
	}
	if u := s.Uncertainty["engines.big.bandwidth_max_gb_s"]; math.Abs(u-1.2) > 1e-9 {
		t.Errorf("clean stream's prior sigma = %g, want the 10%% floor 1.2", u)
	}
}

func TestPlans(t *testing.T) {
	s := &Settings{Engines: twoEngines()}
	fitPlans, err := Points(s)
	// 11 listed; the native run of one thread at poll 0 and at poll 50 is
	// one run (Distinct).
	if err != nil || len(fitPlans) != 10 {
		t.Fatalf("fit grid: %d plans, %v", len(fitPlans), err)
	}
	s.Grid = "heldout"
	held, _ := Points(s)
	if len(held) < 7 {
		t.Errorf("held-out grid has %d plans, want at least 7", len(held))
	}
	seen := map[string]bool{}
	for _, p := range fitPlans {
		seen[p.String()] = true
	}
	for _, p := range held {
		if seen[p.String()] {
			t.Errorf("held-out plan %s is also in the fit grid", p)
		}
	}
	s.Grid = BothGrids
	both, err := Points(s)
	// The second engine alone at poll 0 (held out) runs what it runs at
	// poll 50 (fitted): one thread.
	if want := len(Distinct(append(append([]Point(nil), fitPlans...), held...))); err != nil || len(both) != want || want != len(fitPlans)+len(held)-1 {
		t.Errorf("fit+heldout: %d plans (%v), want %d", len(both), err, want)
	}
	s.Grid = "bogus"
	if _, err := Points(s); err == nil {
		t.Error("want an error for an unknown grid")
	}
}

// TestGridSpansIntensity: with an MoE workload, the grid runs the
// decode-like and prefill-like shapes too, fit and held out, and graphs of
// one token, and every point is distinct.
func TestGridSpansIntensity(t *testing.T) {
	w := syntheticWorkload(t, 8<<20)
	gemv, low, high := Shapes(w)
	per := func(r *model.Run) float64 {
		return float64(r.Ubatch*w.Model.MoE.TopK) / float64(w.Model.MoE.Experts)
	}
	if gemv == nil || low == nil || high == nil || per(gemv) > 0.1 || per(low) > 0.5 || per(high) < 16 {
		t.Fatalf("shapes %+v %+v %+v", gemv, low, high)
	}
	for _, r := range []*model.Run{gemv, low} {
		if touched := float64(r.PromptTokens/r.Ubatch) * (1 - math.Pow(1-per(r)/float64(r.Ubatch), float64(r.Ubatch))); touched < 1.5 {
			t.Errorf("decode-like prompt %d of ubatch %d walks the expert weights %.2f times: too few", r.PromptTokens, r.Ubatch, touched)
		}
	}
	oneCluster := NewEngines([]topology.Cluster{{Name: "big", CPUs: []int{0, 1}}})
	for _, engines := range [][]Engine{twoEngines(), oneCluster} {
		for _, quick := range []bool{false, true} {
			s := &Settings{Engines: engines, Workload: w, Grid: BothGrids, Quick: quick}
			pts, err := Points(s)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			count := map[string]int{}
			for _, p := range pts {
				key := p.String()
				if seen[key] {
					t.Errorf("%d engines, quick %v: %s twice", len(engines), quick, key)
				}
				seen[key] = true
				shape := "own"
				switch p.Run {
				case nil:
				default:
					shape = fmt.Sprintf("ub%d", p.Run.Ubatch)
				}
				count[p.Set+" "+shape]++
				if p.Alone {
					if p.Plan.Engines[0] != "little" || !strings.HasPrefix(key, "native little ") {
						t.Errorf("a run of the second engine alone is %s, named %q", p.Plan, key)
					}
					count["alone "+shape]++
				}
			}
			if len(engines) == 2 && !quick {
				// The second engine by itself over the regimes.
				for _, k := range []string{"alone own", "alone ub2", "alone ub8", "alone ub512"} {
					if count[k] == 0 {
						t.Errorf("no %s point (%v)", k, count)
					}
				}
			}
			for _, k := range []string{"fit own", "fit ub2", "fit ub8", "fit ub512", "heldout ub8", "heldout ub512"} {
				if count[k] == 0 {
					t.Errorf("%d engines, quick %v: no %s points (%v)", len(engines), quick, k, count)
				}
			}
			// Graphs of one token (TokenShape): fitted and held out.
			if count["fit ub1"] == 0 || count["heldout ub1"] == 0 {
				t.Errorf("%d engines, quick %v: one-token points %v", len(engines), quick, count)
			}
		}
	}
}

// TestDistinct: points that run the same thing are one point, whatever a
// knob that cannot change the run says: a one-thread pool's poll level.
// A cluster of one CPU has no held-out plans of its own: they differ from
// the fitted ones only in poll.
func TestDistinct(t *testing.T) {
	one := NewEngines([]topology.Cluster{{Name: "big", CPUs: []int{3}}})
	w := syntheticWorkload(t, 8<<20)
	fit, _ := Points(&Settings{Engines: one, Workload: w})
	both, _ := Points(&Settings{Engines: one, Workload: w, Grid: BothGrids})
	if len(both) != len(fit) {
		t.Errorf("one CPU: fit+heldout %d points, fit %d: want the held-out ones to collapse into the fitted", len(both), len(fit))
	}
	polls := map[string]bool{}
	for _, p := range fit {
		if p.Plan.Threads[0] != 1 {
			t.Errorf("%s on one CPU", p)
		}
		k := fmt.Sprint(p.Run, p.Stream) // an f32 point runs weights of its own
		if polls[k] {
			t.Errorf("%s: a second poll level of one thread", p)
		}
		polls[k] = true
	}
	if two := len(Distinct(fit)); two != len(fit) {
		t.Errorf("Distinct of distinct points dropped %d", len(fit)-two)
	}
	pl := model.NewNative("big", 2, 0)
	pts := []Point{{Plan: pl}, {Plan: model.NewNative("big", 2, 50)}, {Plan: pl}}
	if got := Distinct(pts); len(got) != 2 {
		t.Errorf("two threads at poll 0 and 50 are two runs: Distinct kept %d of 3", len(got))
	}
}

func TestMeasureResumesAndRecordsFailures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	w, err := measure.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]int{}
	mk := func(id string, fail bool) Step {
		return Step{ID: id, Label: id, run: func() (measure.Measurement, error) {
			ran[id]++
			if fail {
				return measure.Measurement{Kind: measure.Stream}, errors.New("boom")
			}
			return measure.Measurement{ID: id, Kind: measure.Stream, Unit: "GB/s", Median: 5}, nil
		}}
	}
	steps := []Step{mk("a", false), mk("b", true), mk("c", false)}
	done := map[string]bool{"a": true}
	ms, err := measureSteps(context.Background(), steps, done, w, nil, nil, nil, nil)
	w.Close()
	if err != nil || len(ms) != 2 || ran["a"] != 0 {
		t.Fatalf("measured %d, ran %v, err %v", len(ms), ran, err)
	}
	read, errs := measure.ReadFile(path)
	if len(errs) != 0 || len(read) != 2 || read[0].Status != "failed" || read[0].Error != "boom" || read[1].Status != "ok" {
		t.Fatalf("file: %+v %v", read, errs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w, _ = measure.Create(path)
	defer w.Close()
	if _, err := measureSteps(ctx, steps, nil, w, nil, nil, nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestQuietCPUs: the CPUs others left alone in (nearly) every run pinned
// to them, when another was busy in most of its runs.
func TestQuietCPUs(t *testing.T) {
	run := func(used []int, other0, other1 float64) measure.Measurement {
		return measure.Measurement{Interference: &measure.Interference{WallS: 1, Used: used,
			CPUs: []measure.CPULoad{{CPU: 0, OwnPct: 50, OtherPct: other0}, {CPU: 1, OwnPct: 90, OtherPct: other1}}}}
	}
	var loaded []measure.Measurement
	for i := range 20 {
		other1 := 0.0
		if i == 3 {
			other1 = 9 // one run over, on the edge
		}
		loaded = append(loaded, run([]int{1, 0}, 50, other1), run([]int{1}, 50, 0))
	}
	if got := QuietCPUs(loaded); got != "1" {
		t.Errorf("busy loop on cpu0: QuietCPUs = %q, want 1", got)
	}
	quiet := []measure.Measurement{run([]int{1, 0}, 1, 0), run([]int{0}, 0, 0), {}}
	if got := QuietCPUs(quiet); got != "" {
		t.Errorf("nothing busy: QuietCPUs = %q", got)
	}
	if got := QuietCPUs([]measure.Measurement{run([]int{1, 0}, 50, 50)}); got != "" {
		t.Errorf("everything busy: QuietCPUs = %q", got)
	}
}

// syntheticWorkload is the synthetic-moe preset scaled to an LLC of llc
// bytes, as blsim bench --fit-llc scales it.
func syntheticWorkload(t *testing.T, llc int64) *model.Workload {
	t.Helper()
	w, err := presets.Workload(dispatch.SyntheticName)
	if err != nil {
		t.Fatal(err)
	}
	dispatch.ScaleToLLC(w, llc, 0)
	return w
}

// TestQuickRoundsSkipUnderLoad: a quick calibration runs its grid in
// QuickRounds shuffled rounds; when more than a quarter of the first
// round's dispatcher configurations stayed disturbed, the later rounds
// are not run (nor written, so that --resume takes them), and the
// progress says so once, naming the count. An explicit --rounds is kept
// as given, with no skip.
func TestQuickRoundsSkipUnderLoad(t *testing.T) {
	s := &Settings{Engines: twoEngines(), Quick: true, NoMicro: true}
	steps, err := Steps(s)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := Points(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != QuickRounds*len(pts) {
		t.Fatalf("%d steps for %d points: want %d rounds", len(steps), len(pts), QuickRounds)
	}
	if steps[0].skip != nil || steps[len(pts)].skip == nil || !strings.Contains(steps[len(pts)].ID, "round=2") {
		t.Errorf("round 1 must run, round 2 may be skipped: %s", steps[len(pts)].ID)
	}
	// The rounds are in orders of their own.
	same := true
	for i := range pts {
		a := strings.Replace(steps[i].ID, "round=1", "", 1)
		b := strings.Replace(steps[len(pts)+i].ID, "round=2", "", 1)
		same = same && a == b
	}
	if same {
		t.Errorf("round 2 runs the points in round 1's order: not shuffled")
	}
	one := &Settings{Engines: twoEngines(), Quick: true, NoMicro: true, Rounds: 2}
	if st, err := Steps(one); err != nil || len(st) != 2*len(pts) || st[len(pts)].skip != nil {
		t.Errorf("--rounds 2: %d steps, %v", len(st), err)
	}

	round1 := func(disturbed int) []measure.Measurement {
		var ms []measure.Measurement
		for i := range 8 {
			ms = append(ms, measure.Measurement{Kind: measure.Dispatcher, Knobs: map[string]string{"round": "1"},
				Interference: &measure.Interference{Disturbed: i < disturbed}})
		}
		// A microbenchmark, disturbed, does not count.
		return append(ms, measure.Measurement{Kind: measure.Stream, Interference: &measure.Interference{Disturbed: true}})
	}
	if why := loadedFirstRound(round1(2)); why != "" {
		t.Errorf("2 of 8 disturbed (a quarter): skipped, %q", why)
	}
	if why := loadedFirstRound(round1(3)); !strings.Contains(why, "3 of the first round's 8 configurations stayed disturbed") {
		t.Errorf("3 of 8 disturbed: %q", why)
	}

	// measureSteps skips, says it once, and writes nothing for the skipped.
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	w, err := measure.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	mk := func(id string, skip bool) Step {
		st := Step{ID: id, Label: id, run: func() (measure.Measurement, error) {
			ran++
			return measure.Measurement{ID: id, Kind: measure.Stream, Unit: "GB/s", Median: 5}, nil
		}}
		if skip {
			st.skip = func(taken []measure.Measurement) string { return fmt.Sprintf("after %d", len(taken)) }
		}
		return st
	}
	var lines []string
	progress := func(done, n int, label string, m *measure.Measurement) {
		if m != nil {
			lines = append(lines, fmt.Sprintf("%d/%d %s %s %s", done, n, label, m.Status, m.Error))
		}
	}
	ms, err := measureSteps(context.Background(), []Step{mk("a", false), mk("b", true), mk("c", true)}, nil, w, nil, progress, nil, nil)
	w.Close()
	if err != nil || len(ms) != 1 || ran != 1 {
		t.Fatalf("measured %d, ran %d, %v", len(ms), ran, err)
	}
	if len(lines) != 2 || lines[1] != "2/3 b skipped after 1" {
		t.Errorf("progress: %q", lines)
	}
	if read, _ := measure.ReadFile(path); len(read) != 1 {
		t.Errorf("%d records written, want the one run", len(read))
	}
}
