package predict

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

// TestBenchIsPredictsRow: a bench of the seed's one test is predict's
// own figures, the same computation: native 26.26 t/s, and the split's
// best is predict's best token split with its verdict.
func TestBenchIsPredictsRow(t *testing.T) {
	s, w := load(t, "rk3588")
	b, err := RunBench(BenchRequest{SoCs: []*model.SoC{s}, Workloads: []*model.Workload{w}, Gens: []int{0}, Draws: 8})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Rows) != 1 {
		t.Fatalf("%d rows, want 1", len(b.Rows))
	}
	r := b.Rows[0]
	p, err := Run(Request{SoC: s, Workload: w, Modes: []model.Mode{model.TokenSplit}, Poll: 50, Draws: 8})
	if err != nil {
		t.Fatal(err)
	}
	best, _ := p.Plan(model.TokenSplit, Best)
	if r.Test != "pp512" || r.NThreads != 4 || r.Where != "4 on big" || r.Poll != 50 || r.NUbatch != 512 ||
		fmt.Sprintf("%.2f", r.AvgTS) != "26.26" || r.AvgTS != p.Native.TPS {
		t.Errorf("row %+v; want pp512, 4 on big, poll 50, 26.26 t/s (predict's native %.4f)", r, p.Native.TPS)
	}
	if r.Split == nil || r.Split.AvgTS != best.TPS || r.Split.Verdict != best.Verdict || r.Split.GainPct != best.GainPct {
		t.Errorf("split %+v; want predict's best token split %+v", r.Split, best)
	}
}

// TestBenchRowsAreLlamaBenchs: every combination of the lists is a row,
// in llama-bench's order (threads, then poll, then the pp tests before
// the tg tests); -t is one pool's total, placed as the OS puts -t N.
func TestBenchRowsAreLlamaBenchs(t *testing.T) {
	s, w := load(t, "rk3588")
	b, err := RunBench(BenchRequest{SoCs: []*model.SoC{s}, Workloads: []*model.Workload{w},
		Prompts: []int{128, 512}, Gens: []int{16}, Threads: []int{4, 8}, Polls: []int{0, 50}, Draws: 4})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range b.Rows {
		got = append(got, fmt.Sprintf("%d/%d/%s", r.NThreads, r.Poll, r.Test))
		if !(r.AvgTS > 0) || r.Split == nil || !strings.HasPrefix(r.Where, "unpinned (linux): ") {
			t.Errorf("row %+v", r)
		}
		if r.Test == "tg16" && r.Split.Plan.Mode != model.ExpertSplit || r.Test != "tg16" && r.Split.Plan.Mode != model.TokenSplit {
			t.Errorf("%s: split mode %s", r.Test, r.Split.Plan.Mode)
		}
	}
	want := "4/0/pp128 4/0/pp512 4/0/tg16 4/50/pp128 4/50/pp512 4/50/tg16 8/0/pp128 8/0/pp512 8/0/tg16 8/50/pp128 8/50/pp512 8/50/tg16"
	if strings.Join(got, " ") != want {
		t.Errorf("rows %s\nwant %s", strings.Join(got, " "), want)
	}
	if r := b.Rows[6]; r.Where != "unpinned (linux): 4 on big, 4 on little" || r.Plan.PoolThreads() != 8 {
		t.Errorf("-t 8 on rk3588: %s (%d threads); want the OS's 4 on big, 4 on little", r.Where, r.Plan.PoolThreads())
	}
}

// TestBenchBadInput: lists a bench cannot run are errors naming the
// field, never ignored.
func TestBenchBadInput(t *testing.T) {
	s, w := load(t, "rk3588")
	base := BenchRequest{SoCs: []*model.SoC{s}, Workloads: []*model.Workload{w}, Draws: 2}
	for _, tc := range []struct {
		name string
		edit func(*BenchRequest)
		want string
	}{
		{"no test", func(q *BenchRequest) { q.Prompts, q.Gens = []int{0}, []int{0} }, "no test to predict"},
		{"poll", func(q *BenchRequest) { q.Polls = []int{50, 101} }, "101 is outside 0..100"},
		{"engine threads", func(q *BenchRequest) { q.EngineThreads = []int{4} }, "1 values for 2 engines: want 4,4"},
		{"too many engine threads", func(q *BenchRequest) { q.EngineThreads = []int{4, 9} }, `9 threads for engine "little"`},
		{"engine", func(q *BenchRequest) { q.Engines = []string{"big", "gpu"} }, "gpu"},
	} {
		q := base
		tc.edit(&q)
		if _, err := RunBench(q); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want %q", tc.name, err, tc.want)
		}
	}
}
