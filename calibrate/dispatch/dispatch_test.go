package dispatch

import (
	"math/bits"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"gonum.org/v1/gonum/stat"
)

func synthetic(t testing.TB) *model.Workload {
	t.Helper()
	w, err := presets.Workload(SyntheticName)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// needCPUs skips unless the process may run on cpus.
func needCPUs(t testing.TB, cpus ...int) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("pinned pools need Linux")
	}
	allowed, err := probe.AllowedCPUs()
	if err != nil {
		t.Skip(err)
	}
	for _, c := range cpus {
		if !slices.Contains(allowed, c) {
			t.Skipf("cpu %d not allowed (have %v)", c, allowed)
		}
	}
}

func TestTiming(t *testing.T) {
	if os.Getenv("DISPATCH_TIMING") == "" {
		t.Skip("set DISPATCH_TIMING=1")
	}
	needCPUs(t, 0, 1)
	m, err := NewModel(synthetic(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("weights %.1f MiB", float64(m.WeightBytes())/(1<<20))
	cpus := map[string][]int{"big": {1}, "little": {0}}
	for _, p := range []model.Plan{
		model.NewNative("big", 1, 0),
		model.NewNative("big", 1, 50),
		model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{1, 1}, model.SharesOf(0.3), 0),
		model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{1, 1}, model.SharesOf(0.3), 50),
		model.NewPlan(model.ExpertSplit, []string{"big", "little"}, []int{1, 1}, model.SharesOf(0.3), 0),
		model.NewPlan(model.ExpertSplit, []string{"big", "little"}, []int{1, 1}, model.SharesOf(0.3), 50),
	} {
		res, err := m.Run(Config{Plan: p, CPUs: cpus, Repeats: 5, Warmup: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-28s %v  %.1f t/s", p, res.Samples, stat.Mean(res.TPS, nil))
	}
}

// tiny is a small synthetic workload: quick to run in tests.
func tiny(t testing.TB) *model.Workload {
	w := synthetic(t)
	w.Model.Layers = 1
	w.Model.MoE.ExpertFFN = 64
	w.Model.Vocab = 256
	w.Run.PromptTokens = 40 // two ubatches, the second partial
	w.Run.Ubatch = 24
	return w
}

func TestRouteDeterministicDistinct(t *testing.T) {
	const n, E, K = 200, 64, 4
	a := Route(9, 0, 3, n, E, K)
	if !slices.Equal(a, Route(9, 0, 3, n, E, K)) {
		t.Fatal("routing not deterministic")
	}
	if slices.Equal(a, Route(10, 0, 3, n, E, K)) || slices.Equal(a, Route(9, 0, 4, n, E, K)) {
		t.Fatal("routing ignores seed or layer")
	}
	count := make([]int, E)
	for tok := range n {
		sel := a[tok*K : (tok+1)*K]
		var seen uint64
		for _, e := range sel {
			if e < 0 || e >= E {
				t.Fatalf("token %d: expert %d", tok, e)
			}
			if seen&(1<<e) != 0 {
				t.Fatalf("token %d: experts %v not distinct", tok, sel)
			}
			seen |= 1 << e
			count[e]++
		}
		if bits.OnesCount64(seen) != K {
			t.Fatal("wrong count")
		}
	}
	for e, c := range count { // uniform: mean 12.5 per expert
		if c == 0 || c > 40 {
			t.Errorf("expert %d routed %d times", e, c)
		}
	}
}

func TestPartitionsCoverEverySlot(t *testing.T) {
	const n, E, K = 50, 16, 2
	groups := bySlot(Route(1, 0, 0, n, E, K), E)
	for _, parts := range [][]partition{
		{tokenPartition(groups, K, 0, n)},
		{tokenPartition(groups, K, 0, 35), tokenPartition(groups, K, 35, n)},
		{expertPartition(groups, K, 0, 11), expertPartition(groups, K, 11, E)},
	} {
		seen := make([]int, n*K)
		for _, p := range parts {
			j := 0
			for _, ew := range p.work {
				if ew.base != j {
					t.Fatalf("base %d, want %d", ew.base, j)
				}
				j += len(ew.slots)
				for _, s := range ew.slots {
					seen[s]++
				}
			}
			if j != p.pairs {
				t.Fatalf("pairs %d, counted %d", p.pairs, j)
			}
		}
		for s, c := range seen {
			if c != 1 {
				t.Fatalf("slot %d covered %d times", s, c)
			}
		}
	}
}

// TestSplitsKeepTheMath: every plan computes bit-identical outputs.
func TestSplitsKeepTheMath(t *testing.T) {
	needCPUs(t, 0, 1)
	m, err := NewModel(tiny(t), 3)
	if err != nil {
		t.Fatal(err)
	}
	run := func(p model.Plan, cpus map[string][]int) Result {
		t.Helper()
		res, err := m.Run(Config{Plan: p, CPUs: cpus, Seed: 5, Checksum: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	one := map[string][]int{"big": {1}, "little": {0}}
	native := run(model.NewNative("big", 1, 0), one)
	if len(native.Checksums) != native.Ops || native.Ops == 0 {
		t.Fatalf("%d checksums for %d ops", len(native.Checksums), native.Ops)
	}
	nonzero := 0
	for _, c := range native.Checksums {
		if c != 0 {
			nonzero++
		}
	}
	if nonzero < 5 {
		t.Fatalf("checksums %v", native.Checksums)
	}
	for _, tc := range []struct {
		p    model.Plan
		cpus map[string][]int
	}{
		{model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{1, 1}, model.SharesOf(0), 0), one},
		{model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{1, 1}, model.SharesOf(0.3), 0), one},
		{model.NewPlan(model.ExpertSplit, []string{"big", "little"}, []int{1, 1}, model.SharesOf(0.3), 10), one},
		{model.NewPlan(model.ExpertSplit, []string{"big", "little"}, []int{1, 1}, model.SharesOf(1), 0), one},
		{model.NewNative("all", 2, 0), map[string][]int{"all": {0, 1}}},
	} {
		res := run(tc.p, tc.cpus)
		if !slices.Equal(res.Checksums, native.Checksums) {
			t.Errorf("%v: outputs differ from native", tc.p)
		}
	}
	// Another routing seed changes the expert outputs.
	res, err := m.Run(Config{Plan: model.NewNative("big", 1, 0), CPUs: one, Seed: 6, Checksum: true})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(res.Checksums, native.Checksums) {
		t.Error("routing seed has no effect")
	}
}

func TestRunUsesBothEngines(t *testing.T) {
	needCPUs(t, 0, 1)
	// Two layers: with one, the only expert ops are the last layer's one
	// token, which a half share leaves on the main engine alone.
	w := tiny(t)
	w.Model.Layers = 2
	m, err := NewModel(w, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(Config{Plan: model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{1, 1}, model.SharesOf(0.5), 20),
		CPUs: map[string][]int{"big": {1}, "little": {0}}, Repeats: 2, Warmup: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) != 2 || len(res.TPS) != 2 || stat.Mean(res.TPS, nil) <= 0 {
		t.Fatalf("result %+v", res)
	}
	if !slices.Equal(res.WorkerCPUs[0], []int{1}) || !slices.Equal(res.WorkerCPUs[1], []int{0}) {
		t.Fatalf("workers ran on %v, want [[1] [0]]", res.WorkerCPUs)
	}
	if len(res.ExpertTime) != 2 || res.ExpertTime[0] <= 0 || res.ExpertTime[1] <= 0 {
		t.Fatalf("expert time %v", res.ExpertTime)
	}
}

func TestConfigErrors(t *testing.T) {
	w := tiny(t)
	m, err := NewModel(w, 1)
	if err != nil {
		t.Fatal(err)
	}
	one := map[string][]int{"big": {1}, "little": {0}}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Plan: model.Plan{Mode: "weird", Engines: []string{"big"}, Threads: []int{1}}, CPUs: one}, "unknown split mode"},
		{Config{Plan: model.NewNative("big", 2, 0), CPUs: one}, "2 threads in the plan but 1 CPUs"},
		{Config{Plan: model.NewNative("mid", 1, 0), CPUs: one}, `no CPUs given for engine "mid"`},
		{Config{Plan: model.NewNative("big", 1, 101), CPUs: one}, "poll 101"},
		{Config{Plan: model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{1, 1}, model.SharesOf(1.5), 0), CPUs: one}, "fractions"},
		{Config{Plan: model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{1, 1}, model.SharesOf(0.2), 0), CPUs: map[string][]int{"big": {0}, "little": {0}}}, "cpu 0 given to engine"},
		{Config{Plan: model.NewNative("big", 1, 0), CPUs: one, Repeats: -1}, "negative"},
	} {
		_, err := m.Run(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.cfg.Plan, err, tc.want)
		}
	}
	bad := tiny(t)
	bad.Model.BitsPerWeight.ExpertsUp = 6.5625
	if _, err := NewModel(bad, 1); err == nil || !strings.Contains(err.Error(), "kernel class q6 is not implemented") {
		t.Errorf("q6: %v", err)
	}
	bad = tiny(t)
	bad.Model.Hidden = 1000
	if _, err := NewModel(bad, 1); err == nil || !strings.Contains(err.Error(), "not a multiple of 32") {
		t.Errorf("width: %v", err)
	}
	bad = tiny(t)
	bad.Run.PromptTokens, bad.Run.GenTokens = 0, 16
	if _, err := NewModel(bad, 1); err == nil || !strings.Contains(err.Error(), "times prompt processing (pp), not generated tokens (pp0, tg16)") {
		t.Errorf("tg: %v", err)
	}
}

func TestScaleToLLC(t *testing.T) {
	base := synthetic(t)
	expert, all := LayerBytes(base)
	if expert < 16<<20 || all <= expert {
		t.Fatalf("layer bytes %d expert, %d all", expert, all)
	}
	if e := expert * int64(base.Model.Layers); e < 32<<20 {
		t.Errorf("preset expert weights %d MiB: want more than a typical LLC", e>>20)
	}
	small := synthetic(t)
	ScaleToLLC(small, 3<<20, 0)
	if small.Model.Layers != base.Model.Layers {
		t.Errorf("3 MiB LLC: %d layers, want the preset's %d", small.Model.Layers, base.Model.Layers)
	}
	big := synthetic(t)
	ScaleToLLC(big, 260<<20, 0)
	if n := int64(big.Model.Layers); n*expert < 2*(260<<20) || n*all > DefaultMaxBytes || (n-1)*expert >= 2*(260<<20) {
		t.Errorf("260 MiB LLC: %d layers of %d bytes", n, expert)
	}
	capped := synthetic(t)
	ScaleToLLC(capped, 4<<30, 256<<20)
	if n := int64(capped.Model.Layers); n*all > 256<<20 || (n+1)*all <= 256<<20 {
		t.Errorf("capped: %d layers of %d bytes", n, all)
	}
	if err := big.Validate(); err != nil {
		t.Fatal(err)
	}
	if base.Model.Layers != synthetic(t).Model.Layers {
		t.Fatal("the preset was modified")
	}
}

// TestEmptyPartitionNotWoken counts pool wakes: an engine whose partition
// of an expert op has no whole unit (token or expert) is not woken for it,
// as the simulator has it (sim's runner.cut), and every plan still computes
// native's outputs. Two layers, ubatches of 24 and 16 tokens: 9 expert ops
// a prompt, 3 of them the last layer's one token (llama.cpp keeps only the
// prompt's last token there).
func TestEmptyPartitionNotWoken(t *testing.T) {
	needCPUs(t, 0, 1)
	w := tiny(t)
	w.Model.Layers = 2
	m, err := NewModel(w, 3)
	if err != nil {
		t.Fatal(err)
	}
	one := map[string][]int{"big": {1}, "little": {0}}
	const reps = 2
	run := func(p model.Plan) Result {
		t.Helper()
		res, err := m.Run(Config{Plan: p, CPUs: one, Repeats: reps, Seed: 5, Checksum: true})
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		return res
	}
	native := run(model.NewNative("big", 1, 0))
	const experts = 9
	dense := native.Ops - experts // matmul and scalar ops: the main pool's
	if len(native.Wakes) != 1 || native.Wakes[0] != reps*native.Ops {
		t.Fatalf("native: wakes %v, want [%d]", native.Wakes, reps*native.Ops)
	}
	split := func(mode model.Mode, f float64) model.Plan {
		return model.NewPlan(mode, []string{"big", "little"}, []int{1, 1}, model.SharesOf(f), 0)
	}
	for _, tc := range []struct {
		name     string
		p        model.Plan
		main, sc int // expert ops each engine is woken for, a prompt
	}{
		// 24, 16, 1 tokens to the main engine: round(n × (1 − f)).
		{"token share 0", split(model.TokenSplit, 0), 9, 0},
		{"token share under half a token", split(model.TokenSplit, 0.02), 9, 0},
		// 17+7, 11+5, 1+0: the one-token ops stay on the main engine.
		{"token 0.3", split(model.TokenSplit, 0.3), 9, 6},
		// 10+14, 6+10, 0+1: the one-token ops go to the second engine alone.
		{"token 0.6", split(model.TokenSplit, 0.6), 6, 9},
		{"token share 1", split(model.TokenSplit, 1), 0, 9},
		// 64 experts: round(64 × 0.995) = 64 to the main engine.
		{"expert share under half an expert", split(model.ExpertSplit, 0.005), 9, 0},
		{"expert 0.3", split(model.ExpertSplit, 0.3), 9, 9},
		{"expert share 1", split(model.ExpertSplit, 1), 0, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(tc.p)
			want := []int{reps * (dense + tc.main), reps * tc.sc}
			if !slices.Equal(res.Wakes, want) {
				t.Errorf("wakes %v, want %v (main: %d dense + %d expert ops, second: %d expert ops, %d repeats)",
					res.Wakes, want, dense, tc.main, tc.sc, reps)
			}
			if !slices.Equal(res.Checksums, native.Checksums) {
				t.Error("outputs differ from native")
			}
		})
	}
}
