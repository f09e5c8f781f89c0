package dispatch

import (
	"slices"
	"sync"
	"testing"

	"github.com/blsim/blsim/model"
)

// TestChunking follows ggml's MUL_MAT rules: 16×16 chunks (64 when a side
// is 1), one chunk per thread along the longer side when there are fewer
// than 4 per thread, or when chunking is off.
func TestChunking(t *testing.T) {
	for _, tc := range []struct {
		nr0, nr1, nth int
		static        bool
		want          chunks
	}{
		{1024, 64, 4, false, chunks{n0: 64, n1: 4, d0: 16, d1: 16}},
		{1024, 1, 4, false, chunks{n0: 16, n1: 1, d0: 64, d1: 1}},  // gemv: 64-row chunks
		{256, 2, 5, false, chunks{n0: 5, n1: 1, d0: 52, d1: 2}},    // 16 chunks < 4×5: by thread, rows
		{256, 2, 4, false, chunks{n0: 16, n1: 1, d0: 16, d1: 2}},   // 16 ≥ 4×4: chunks
		{16, 512, 4, false, chunks{n0: 1, n1: 32, d0: 16, d1: 16}}, // 32 chunks ≥ 16
		{16, 40, 4, false, chunks{n0: 1, n1: 4, d0: 16, d1: 10}},   // 3 chunks: by thread, tokens
		{1024, 64, 4, true, chunks{n0: 4, n1: 1, d0: 256, d1: 64}}, // arm64 MUL_MAT_ID
		{100, 3, 3, false, chunks{n0: 3, n1: 1, d0: 34, d1: 3}},    // uneven: the last chunk is short
	} {
		tc.want.nr0, tc.want.nr1 = tc.nr0, tc.nr1
		if got := chunking(tc.nr0, tc.nr1, tc.nth, tc.static); got != tc.want {
			t.Errorf("chunking(%d, %d, %d, %v) = %+v, want %+v", tc.nr0, tc.nr1, tc.nth, tc.static, got, tc.want)
		}
	}
}

// TestClaimCoversEveryCell: however threads race for chunks, every output
// cell is computed exactly once.
func TestClaimCoversEveryCell(t *testing.T) {
	for _, tc := range []struct{ nr0, nr1, nth int }{{1024, 64, 4}, {256, 2, 3}, {100, 3, 3}, {7, 5, 2}, {1, 1, 4}, {4096, 1, 8}} {
		c := chunking(tc.nr0, tc.nr1, tc.nth, false)
		var ctr counter
		ctr.v.Store(int32(tc.nth))
		seen := make([]int32, tc.nr0*tc.nr1)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for w := range tc.nth {
			wg.Add(1)
			go func() {
				defer wg.Done()
				claim(c, w, tc.nth, &ctr, func(i int) {
					r0, r1, t0, t1 := c.bounds(i)
					mu.Lock()
					for r := r0; r < r1; r++ {
						for k := t0; k < t1; k++ {
							seen[r*tc.nr1+k]++
						}
					}
					mu.Unlock()
				})
			}()
		}
		wg.Wait()
		for i, n := range seen {
			if n != 1 {
				t.Fatalf("%+v: cell %d computed %d times", tc, i, n)
			}
		}
	}
}

// TestHotLoopAllocatesNothing: the timed repeats allocate nothing, in
// every plan mode. Mallocs counts the runtime's own allocations too: on a
// loaded machine the scheduler may start an OS thread (a new M) while the
// workers sleep in the futex, a few objects once. So each plan gets three
// tries of eight prompts, and the fewest allocations must stay below one
// per prompt: an allocation in the hot loop costs at least one per prompt
// (in fact one per op) in every try.
func TestHotLoopAllocatesNothing(t *testing.T) {
	needCPUs(t, 0, 1)
	m, err := NewModel(tiny(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	const reps = 8
	one := map[string][]int{"big": {1}, "little": {0}}
	for _, p := range []model.Plan{
		model.NewNative("big", 1, 0),
		model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{1, 1}, model.SharesOf(0.4), 0),
		model.NewPlan(model.ExpertSplit, []string{"big", "little"}, []int{1, 1}, model.SharesOf(0.4), 20),
	} {
		fewest := uint64(1 << 62)
		for range 3 {
			res, err := m.Run(Config{Plan: p, CPUs: one, Repeats: reps, Warmup: 1})
			if err != nil {
				t.Fatal(err)
			}
			fewest = min(fewest, res.Allocs)
			if fewest == 0 {
				break
			}
		}
		if fewest >= reps {
			t.Errorf("%v: at least %d allocations in %d timed prompts, in each of 3 tries", p, fewest, reps)
		}
	}
}

// TestRunShape: Config.Run runs another prompt shape over the same
// weights, with the same math per token.
func TestRunShape(t *testing.T) {
	needCPUs(t, 0, 1)
	m, err := NewModel(tiny(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	one := map[string][]int{"big": {1}, "little": {0}}
	cfg := Config{Plan: model.NewNative("big", 1, 0), CPUs: one, Checksum: true, Run: &model.Run{PromptTokens: 8, Ubatch: 4}}
	a, err := m.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	shaped := tiny(t)
	shaped.Run = *cfg.Run
	if a.Tokens != 8 || a.Ops != len(shaped.Ops(0))+len(shaped.Ops(1)) {
		t.Fatalf("tokens %d, ops %d", a.Tokens, a.Ops)
	}
	cfg.Plan = model.NewPlan(model.ExpertSplit, []string{"big", "little"}, []int{1, 1}, model.SharesOf(0.5), 0)
	b, err := m.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Checksums, b.Checksums) {
		t.Error("an expert split of pp8 ub4 computes other outputs than native")
	}
	cfg.Run = &model.Run{PromptTokens: 0, Ubatch: 4}
	if _, err := m.Run(cfg); err == nil {
		t.Error("prompt 0 accepted")
	}
}
