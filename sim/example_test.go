package sim_test

import (
	"fmt"
	"log"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/sim"
)

// ExampleRun predicts the seed experiment's native prefill: Qwen3.5-35B-A3B,
// pp512, on the RK3588's four big cores at poll 50.
func ExampleRun() {
	soc, err := presets.SoC("rk3588")
	if err != nil {
		log.Fatal(err)
	}
	wl, err := presets.Workload("qwen3.5-35b-a3b")
	if err != nil {
		log.Fatal(err)
	}
	r, err := sim.Run(soc, wl, model.NewNative("big", 4, 50))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("native: %.2f t/s\n", r.TPS)
	// Output: native: 26.26 t/s
}

// Find the little cluster's share of the seed's token split that
// maximises throughput, and compare it with native.
func ExampleBest() {
	soc, err := presets.SoC("rk3588")
	if err != nil {
		log.Fatal(err)
	}
	wl, err := presets.Workload("qwen3.5-35b-a3b")
	if err != nil {
		log.Fatal(err)
	}
	native, err := sim.Run(soc, wl, model.NewNative("big", 4, 50))
	if err != nil {
		log.Fatal(err)
	}
	// The plan's fraction is ignored: Best searches it.
	best, r, err := sim.Best(soc, wl, model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(0), 50))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("best little share: %.3f\n", best.Fracs[1])
	fmt.Printf("%.2f t/s against native's %.2f (%+.2f%%)\n", r.TPS, native.TPS, 100*(r.TPS/native.TPS-1))
	// Output:
	// best little share: 0.110
	// 26.44 t/s against native's 26.26 (+0.68%)
}

// Share the seed's routed-expert tokens over the RK3588's big cores and
// its NPU: BestN searches the shares of every engine of the plan.
func ExampleBestN() {
	soc, err := presets.SoC("rk3588-npu")
	if err != nil {
		log.Fatal(err)
	}
	wl, err := presets.Workload("qwen3.5-35b-a3b")
	if err != nil {
		log.Fatal(err)
	}
	native, err := sim.Run(soc, wl, model.NewNative("big", 4, 50))
	if err != nil {
		log.Fatal(err)
	}
	p := model.Plan{Mode: model.TokenSplit, Engines: []string{"big", "npu"}, Threads: []int{4, 3}, Poll: 50}
	best, r, err := sim.BestN(soc, wl, p)
	if err != nil {
		log.Fatal(err)
	}
	for i, e := range best.Engines {
		fmt.Printf("%s: %.2f\n", e, best.Fracs[i])
	}
	fmt.Printf("%.1f t/s against native's %.1f (%+.0f%%)\n", r.TPS, native.TPS, 100*(r.TPS/native.TPS-1))
	// Output:
	// big: 0.24
	// npu: 0.76
	// 30.7 t/s against native's 26.3 (+17%)
}

// ExampleRun_decode predicts llama-bench's tg128 (-p 0 -n 128) of the seed's
// model on the RK3588's four big cores: one token per graph, each reading
// its active weights and KV cache from DRAM.
func ExampleRun_decode() {
	soc, err := presets.SoC("rk3588")
	if err != nil {
		log.Fatal(err)
	}
	wl, err := presets.Workload("qwen3.5-35b-a3b")
	if err != nil {
		log.Fatal(err)
	}
	wl.Run.PromptTokens, wl.Run.GenTokens = 0, 128
	r, err := sim.Run(soc, wl, model.NewNative("big", 4, 50))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("tg128: %.2f t/s, %.0f%% of the time waiting on memory (%.0f%% on DRAM, %.0f%% at big's own cap)\n",
		r.TPS, 100*(r.Bound.DRAM+r.Bound.EngineCap), 100*r.Bound.DRAM, 100*r.Bound.EngineCap)
	// Output: tg128: 6.38 t/s, 71% of the time waiting on memory (68% on DRAM, 3% at big's own cap)
}

// ExampleRun_pool predicts stock llama.cpp's default -t 8 on the RK3588:
// one ggml thread pool over the four big and the four little cores, every
// op divided among all eight threads, against -t 4 on the big cores. The
// seed's weights (Q8_0, Q4_K, Q6_K) are all repacked on these cores, so
// most ops run in fixed slices per thread and the little cores gate them.
func ExampleRun_pool() {
	soc, err := presets.SoC("rk3588")
	if err != nil {
		log.Fatal(err)
	}
	wl, err := presets.Workload("qwen3.5-35b-a3b")
	if err != nil {
		log.Fatal(err)
	}
	t4, err := sim.Run(soc, wl, model.NewPool([]string{"big"}, []int{4}, 50))
	if err != nil {
		log.Fatal(err)
	}
	t8, err := sim.Run(soc, wl, model.NewPool([]string{"big", "little"}, []int{4, 4}, 50))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("-t 4: %.2f t/s, -t 8: %.2f t/s (%.2fx)\n", t4.TPS, t8.TPS, t8.TPS/t4.TPS)
	fmt.Printf("%d of %d ops in fixed slices\n", t8.Pool.StaticOps, t8.Pool.Ops)
	// Output:
	// -t 4: 26.26 t/s, -t 8: 18.50 t/s (0.70x)
	// 392 of 441 ops in fixed slices
}
