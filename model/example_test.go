package model_test

import (
	"fmt"
	"strings"

	"github.com/blsim/blsim/model"
)

func ExampleRouting_ExpectedTouched() {
	// Qwen3.5-35B-A3B routes each token to 8 of 256 experts.
	r := model.Routing{Experts: 256, TopK: 8}
	for _, n := range []float64{1, 16, 64, 512} {
		fmt.Printf("%.0f tokens touch %.1f experts\n", n, r.ExpectedTouched(n))
	}
	// Output:
	// 1 tokens touch 8.0 experts
	// 16 tokens touch 102.0 experts
	// 64 tokens touch 222.4 experts
	// 512 tokens touch 256.0 experts
}

func ExampleParseSoC() {
	_, err := model.ParseSoC([]byte(strings.Join([]string{
		"schema: blsim/soc/v1",
		"name: board",
		"dram:",
		"  peak_gb_s: 34",
		"  sustained_gb_s: 21",
		"  sharing: fair",
	}, "\n")), "board.yaml")
	fmt.Println(err)
	// Output:
	// board.yaml:6: dram.sharing: "fair" is not a sharing policy (known: maxmin, proportional)
}

func ExampleSoC_Get() {
	s, err := model.ParseSoC([]byte(tinySoC), "tiny.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	what := s.Clone()
	_ = what.Set("engines.big.kernel_ops_per_cycle.q4", 56)
	before, _ := s.Get("engines.big.kernel_ops_per_cycle.q4")
	after, _ := what.Get("engines.big.kernel_ops_per_cycle.q4")
	fmt.Println(before, after)
	fmt.Println(s.Params()[:3])
	// Output:
	// 28 56
	// [dram.peak_gb_s dram.sustained_gb_s engines.big.bandwidth_max_gb_s]
}

const tinySoC = `schema: blsim/soc/v1
name: tiny
dram: {peak_gb_s: 34, sustained_gb_s: 21, sharing: maxmin}
engines:
  - name: big
    kind: cpu
    cores: 4
    clock_ghz: 2.3
    kernel_ops_per_cycle: {q4: 28, q6: 22, q8: 22, f16: 14, f32: 8}
    moe_efficiency: 0.85
    scalar_ops_per_cycle: 2
    thread_scaling_loss: 0.03
    bandwidth_max_gb_s: 20
    l2_kib_per_core: 512
    shared_cache_kib: 3072
    cache_usable_frac: 0.5
    token_tile: 16
    expert_token_tile: 1
    mem_compute_overlap: 0.1
handoff: {signal_us: 3, spin_wake_us: 1.5, futex_wake_us: 60, sleep_exit_us: 2400,
  spin_window_us_per_poll: 60, spawn_us: 120, join_us: 20, forfeit_pct: 3, gather_us: 30,
  graph_splits_per_layer: 10, graph_split_gap_us: 15, split_absorbs_graph_splits: 8}
`
