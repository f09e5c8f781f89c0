package model_test

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

func TestPoolPlanValidate(t *testing.T) {
	s := presetSoCsOne(t, "rk3588") // big and little, 4 cores each
	npu := presetSoCsOne(t, "rk3588-npu")
	pool := func(f func(p *model.Plan)) model.Plan {
		p := model.NewPool([]string{"big", "little"}, []int{4, 4}, 50)
		f(&p)
		return p
	}
	for _, tc := range []struct {
		name string
		soc  *model.SoC
		plan model.Plan
		want []string // fragments of the error; none: valid
	}{
		{"big and little", s, model.NewPool([]string{"big", "little"}, []int{4, 4}, 50), nil},
		{"one cluster", s, model.NewPool([]string{"big"}, []int{4}, 0), nil},
		{"fewer threads than cores", s, model.NewPool([]string{"little", "big"}, []int{1, 2}, 100), nil},
		{"oversubscribed", s, model.NewPool([]string{"big"}, []int{5}, 50), nil},
		{"busy cores", s, pool(func(p *model.Plan) { p.BusyCores = []int{0, 4} }), nil},
		{"fractions ignored", s, pool(func(p *model.Plan) { p.Fracs = []float64{0.3} }), nil},
		{"busy count", s, pool(func(p *model.Plan) { p.BusyCores = []int{1} }), []string{"2 engines but 1 busy-core counts"}},
		{"busy above cores", s, pool(func(p *model.Plan) { p.BusyCores = []int{0, 5} }), []string{`"little"`, "5 busy cores", "4 cores"}},
		{"busy negative", s, pool(func(p *model.Plan) { p.BusyCores = []int{-1, 0} }), []string{`"big"`, "-1 busy cores"}},
		{"no threads", s, pool(func(p *model.Plan) { p.Threads = []int{4, 0} }), []string{`"little"`, "0 threads"}},
		{"too many threads", s, model.NewPool([]string{"big"}, []int{model.MaxPoolThreads + 1}, 50), []string{"513 threads", "at most 512"}},
		{"thread count mismatch", s, pool(func(p *model.Plan) { p.Threads = []int{4} }), []string{"2 engines but 1 thread counts"}},
		{"duplicate engine", s, model.NewPool([]string{"big", "big"}, []int{2, 2}, 50), []string{`"big"`, "listed twice"}},
		{"unknown engine", s, model.NewPool([]string{"big", "mid"}, []int{2, 2}, 50), []string{`"mid"`}},
		{"accelerator", npu, model.NewPool([]string{"big", "npu"}, []int{4, 1}, 50), []string{`"npu"`, "cannot be in a pool"}},
		{"poll", s, pool(func(p *model.Plan) { p.Poll = 101 }), []string{"poll 101"}},
		{"no engines", s, model.Plan{Mode: model.PoolPlan}, []string{"no engines"}},
		{"busy cores on a split", s, func() model.Plan {
			p := model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(0.1), 50)
			p.BusyCores = []int{0, 1}
			return p
		}(), []string{"busy cores are for a pool plan"}},
		{"native still capped at its cores", s, model.NewNative("big", 5, 50), []string{"5 threads", "4 cores"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.plan.Validate(tc.soc)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("valid plan rejected: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted %+v", tc.plan)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "plan: ") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line with the plan: prefix", err)
			}
		})
	}
}

func TestPoolPlanString(t *testing.T) {
	p := model.NewPool([]string{"big", "little"}, []int{4, 4}, 50)
	if got, want := p.String(), "pool poll=50 t=4+4"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	p.BusyCores = []int{0, 1}
	if got, want := p.String(), "pool poll=50 t=4+4 busy=0+1"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if p.PoolThreads() != 8 || p.Busy(1) != 1 || model.NewPool([]string{"big"}, []int{3}, 0).Busy(0) != 0 {
		t.Errorf("PoolThreads %d, Busy %d", p.PoolThreads(), p.Busy(1))
	}
}

// TestOversubscription: threads and busy tasks beyond the cores share
// them fairly; within the cores every thread has one.
func TestOversubscription(t *testing.T) {
	e := &model.Engine{Cores: 4, ThreadScalingLoss: 0.03}
	for _, tc := range []struct {
		threads, busy int
		over          bool
		cores         float64
		queue         int
	}{
		{4, 0, false, 4, 1}, {3, 1, false, 3, 1}, {1, 0, false, 1, 1},
		{5, 0, true, 4, 2}, {8, 0, true, 4, 2}, {9, 0, true, 4, 3},
		{4, 1, true, 3.2, 2}, {4, 4, true, 2, 2},
	} {
		if got := e.Oversubscribed(tc.threads, tc.busy); got != tc.over {
			t.Errorf("%d threads + %d busy: oversubscribed %v, want %v", tc.threads, tc.busy, got, tc.over)
		}
		if got := e.RunningCores(tc.threads, tc.busy); math.Abs(got-tc.cores) > 1e-12 {
			t.Errorf("%d threads + %d busy: %g cores' worth, want %g", tc.threads, tc.busy, got, tc.cores)
		}
		if got := e.RunQueue(tc.threads, tc.busy); got != tc.queue {
			t.Errorf("%d threads + %d busy: run queue %d, want %d", tc.threads, tc.busy, got, tc.queue)
		}
	}
	for n := 1; n <= 64; n++ {
		if e.ThreadRateCores(float64(n)) != e.ThreadRate(n) {
			t.Errorf("ThreadRateCores(%d) %v != ThreadRate %v", n, e.ThreadRateCores(float64(n)), e.ThreadRate(n))
		}
	}
	h := model.Handoff{}
	if h.TimesliceS() != model.DefaultTimesliceUS*1e-6 {
		t.Errorf("default time slice %g s", h.TimesliceS())
	}
	h.TimesliceUS = 1500
	if h.TimesliceS() != 1.5e-3 {
		t.Errorf("time slice %g s, want 1.5 ms", h.TimesliceS())
	}
}

// TestRepacked: a listed type is repacked; with no list (or no type), a
// MUL_MAT_ID on an engine whose expert_token_tile is 1 is (the repacked
// path's gemv per routed token), other ops are not.
func TestRepacked(t *testing.T) {
	dense := &model.Op{Kind: model.Matmul, Tensor: "attention"}
	experts := &model.Op{Kind: model.ExpertMatmul, Tensor: "experts_gate_up"}
	for _, tc := range []struct {
		name   string
		list   []string
		tile   int
		op     *model.Op
		typ    string
		repack bool
	}{
		{"listed", []string{"q4_0"}, 16, dense, "q4_0", true},
		{"not listed", []string{"q4_0"}, 1, dense, "q4_k", false},
		{"expert not listed", []string{"q4_0"}, 1, experts, "q4_k", false},
		{"expert listed", []string{"q4_k"}, 16, experts, "q4_k", true},
		{"no list, gemv experts", nil, 1, experts, "q4_k", true},
		{"no list, tiled experts", nil, 16, experts, "q4_k", false},
		{"list, type unknown", []string{"q4_0"}, 1, experts, "", true},
		{"no list, dense", nil, 1, dense, "q4_0", false},
	} {
		e := &model.Engine{RepackedTypes: tc.list, ExpertTokenTile: tc.tile}
		w := &model.Workload{}
		if tc.typ != "" {
			w.Model.Types = map[string]string{tc.op.Tensor: tc.typ}
		}
		if got := e.Repacked(w, tc.op); got != tc.repack {
			t.Errorf("%s: repacked %v, want %v", tc.name, got, tc.repack)
		}
	}
	w := &model.Workload{Model: model.Arch{Types: map[string]string{"attention": "q8_0"}}}
	if got := w.TensorType(dense); got != "q8_0" {
		t.Errorf("TensorType %q, want q8_0", got)
	}
	if got := w.TensorType(&model.Op{Kind: model.Scalar}); got != "" {
		t.Errorf("TensorType of a scalar op %q", got)
	}
}

// TestPoolProfileFields: repacked_types and timeslice_us parse strictly,
// round-trip, and are cloned; errors name the field.
func TestPoolProfileFields(t *testing.T) {
	// The preset's own lists left out, so that each case sets its own.
	edit := func(old, new string) []byte {
		return npuYAML(t, func(s string) string {
			return replaceOnce(t, old, new)(strings.ReplaceAll(s, "    repacked_types: [q4_0, iq4_nl, q8_0, q4_k, q5_k, q6_k, mxfp4]\n", ""))
		})
	}
	little := "    kind: cpu\n    core_type: Cortex-A55\n"
	s, err := model.ParseSoC(edit(little, little+"    repacked_types: [q4_0, iq4_nl]\n"), "ok.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Engines[1].RepackedTypes; len(got) != 2 || got[1] != "iq4_nl" {
		t.Errorf("repacked_types %v", got)
	}
	c := s.Clone()
	c.Engines[1].RepackedTypes[0] = "q8_0"
	if s.Engines[1].RepackedTypes[0] != "q4_0" {
		t.Error("Clone shares repacked_types")
	}
	out, err := model.MarshalSoC(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := model.ParseSoC(out, "back.yaml")
	if err != nil || !socEqual(s, back) {
		t.Errorf("round trip: %v", err)
	}
	if ts, err := model.ParseSoC(edit("  join_us: 20\n", "  join_us: 20\n  timeslice_us: 3000\n"), "ts.yaml"); err != nil || ts.Handoff.TimesliceS() != 3e-3 {
		t.Errorf("timeslice_us: %v", err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"bad name", edit(little, little+"    repacked_types: [Q4_0]\n"), `engines[1].repacked_types[0]: "Q4_0" is not a GGML type name`},
		{"twice", edit(little, little+"    repacked_types: [q4_0, q4_0]\n"), `engines[1].repacked_types[1]: "q4_0" listed twice`},
		{"empty", edit(little, little+"    repacked_types: []\n"), "engines[1].repacked_types: empty"},
		{"accelerator", edit("    kind: npu\n", "    kind: npu\n    repacked_types: [q4_0]\n"), "engines[2].repacked_types: only for CPU clusters"},
		{"not a list", edit(little, little+"    repacked_types: q4_0\n"), "repacked_types"},
		{"timeslice negative", edit("  join_us: 20\n", "  join_us: 20\n  timeslice_us: -1\n"), "handoff.timeslice_us: -1 is negative"},
		{"timeslice misspelt", edit("  join_us: 20\n", "  join_us: 20\n  time_slice_us: 3000\n"), "time_slice_us"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := model.ParseSoC(tc.data, "pool.yaml")
			if err == nil {
				t.Fatalf("no error; want %q", tc.want)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "pool.yaml:") {
				t.Errorf("error %q, want one line naming %q", msg, tc.want)
			}
		})
	}
}

// TestOpTensors: every op with weights names its tensor class, a key of
// bits_per_weight and types; the others name none.
func TestOpTensors(t *testing.T) {
	keys := map[string]bool{"attention": true, "experts_gate_up": true, "experts_down": true,
		"shared": true, "dense_ffn": true, "router": true, "output": true}
	for _, name := range []string{"qwen3.5-35b-a3b", "gpt-oss-20b", "mixtral-8x7b"} {
		w := mustPreset(t, name)
		for _, ops := range [][]model.Op{w.Ops(0), w.TokenOps(0)} {
			for _, o := range ops {
				weights := o.Kind == model.Matmul || o.Kind == model.ExpertMatmul
				if weights != keys[o.Tensor] || (!weights && o.Tensor != "") {
					t.Errorf("%s %s (%s): tensor %q", name, o.Name, o.Kind, o.Tensor)
				}
			}
		}
	}
}

// TestCPUMask: a pool's --cpu-mask is each engine's first threads CPUs;
// without CPU ids for every core there is none; ids are checked.
func TestCPUMask(t *testing.T) {
	s := presetSoCsOne(t, "rk3588")
	for _, tc := range []struct {
		engines []string
		threads []int
		want    string
		ok      bool
	}{
		{[]string{"big"}, []int{4}, "0xf0", true},
		{[]string{"big"}, []int{2}, "0x30", true},
		{[]string{"big", "little"}, []int{4, 1}, "0xf1", true},
		{[]string{"big", "little"}, []int{4, 4}, "0xff", true},
		{[]string{"little"}, []int{3}, "0x7", true},
		{[]string{"big"}, []int{5}, "", false},
		{[]string{"mid"}, []int{1}, "", false},
	} {
		got, ok := s.CPUMask(tc.engines, tc.threads)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%v %v: %q %v, want %q %v", tc.engines, tc.threads, got, ok, tc.want, tc.ok)
		}
	}
	short := s.Clone()
	short.Engines[1].Cores = 8 // a what-if with more little cores than ids
	if err := short.Validate(); err != nil {
		t.Errorf("cores beyond the ids: %v", err)
	}
	if _, ok := short.CPUMask([]string{"little"}, []int{2}); ok {
		t.Error("a mask from 4 ids for 8 cores")
	}
	for _, tc := range []struct {
		edit func(*model.SoC)
		want string
	}{
		{func(s *model.SoC) { s.Engines[0].CPUs[1] = 4 }, "engines[0].cpus[1]: CPU 4 listed twice"},
		{func(s *model.SoC) { s.Engines[1].CPUs[0] = 5 }, "engines[1].cpus[0]: CPU 5 is also engine big's"},
		{func(s *model.SoC) { s.Engines[1].CPUs[2] = -1 }, "engines[1].cpus[2]: -1 is not a CPU id"},
	} {
		c := s.Clone()
		tc.edit(c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want %q", err, tc.want)
		}
	}
}

// TestRepackedByBits: a workload's named type decides; without one, the
// op's bits do when only listed types have them.
func TestRepackedByBits(t *testing.T) {
	dense := &model.Op{Kind: model.Matmul, Tensor: "attention"}
	for _, tc := range []struct {
		name   string
		list   []string
		bits   float64
		typ    string
		repack bool
	}{
		{"q8_0's bits, q8_0 listed", []string{"q8_0"}, 8.5, "", true},
		{"4.5 bits, all three listed", []string{"q4_0", "q4_k", "iq4_nl"}, 4.5, "", true},
		{"4.5 bits, q4_k not listed", []string{"q4_0", "iq4_nl"}, 4.5, "", false},
		{"4.25 bits: iq4_xs or mxfp4", []string{"mxfp4"}, 4.25, "", false},
		{"4.25 bits, both listed", []string{"mxfp4", "iq4_xs"}, 4.25, "", true},
		{"bits of no type", []string{"q8_0"}, 7, "", false},
		{"the named type wins", []string{"q8_0"}, 8.5, "q4_0", false},
		{"no list", nil, 8.5, "", false},
	} {
		w := &model.Workload{Model: model.Arch{BitsPerWeight: model.BitsPerWeight{Attention: tc.bits}}}
		if tc.typ != "" {
			w.Model.Types = map[string]string{"attention": tc.typ}
		}
		e := &model.Engine{RepackedTypes: tc.list, ExpertTokenTile: 16}
		if got := e.Repacked(w, dense); got != tc.repack {
			t.Errorf("%s: repacked %v, want %v", tc.name, got, tc.repack)
		}
	}
}
