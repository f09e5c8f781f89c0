package sim

import (
	"fmt"
	"testing"

	"github.com/blsim/blsim/model"
)

// BenchmarkRunPP512 is one prediction as `blsim predict` makes it: the
// native pp512 run and one token split, Qwen3.5-35B-A3B on the RK3588.
func BenchmarkRunPP512(b *testing.B) {
	s := mustSoC(b, seedSoC)
	w := mustWorkload(b, seedWorkload)
	for b.Loop() {
		if _, err := Run(s, w, native(50)); err != nil {
			b.Fatal(err)
		}
		if _, err := Run(s, w, tokenSplit(0.12, 50)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunTG128 is one tg128 prediction (llama-bench -p 0 -n 128) as
// BenchmarkRunPP512 makes a pp512 one: native, and the seed's dispatcher as
// an expert split (a token split cannot divide one token). It must cost no
// more than BenchmarkRunPP512: the decode phase simulates two token graphs
// (three with two pools), not 128 (see runner.decode).
func BenchmarkRunTG128(b *testing.B) {
	s := mustSoC(b, seedSoC)
	w := *mustWorkload(b, seedWorkload)
	w.Run.PromptTokens, w.Run.GenTokens = 0, 128
	for b.Loop() {
		if _, err := Run(s, &w, native(50)); err != nil {
			b.Fatal(err)
		}
		if _, err := Run(s, &w, expertSplit(0.12, 50)); err != nil {
			b.Fatal(err)
		}
	}
}

// sweep10k builds 10,000 configurations: 25 fractions x 4 poll levels x 4
// thread counts x 25 DRAM bandwidths (what-if SoCs via Clone and Set).
func sweep10k(tb testing.TB) []Config {
	base := mustSoC(tb, seedSoC)
	var socs []*model.SoC
	for i := 0; i < 25; i++ {
		s := base.Clone()
		mustSet(tb, s, "dram.sustained_gb_s", 15+2*float64(i))
		socs = append(socs, s)
	}
	threads := [][2]int{{4, 4}, {4, 2}, {3, 4}, {2, 2}}
	cfgs := make([]Config, 0, 10000)
	for _, s := range socs {
		for _, th := range threads {
			for _, poll := range []int{0, 1, 50, 100} {
				for i := 0; i < 25; i++ {
					p := model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{th[0], th[1]}, model.SharesOf(0.02*float64(i)), poll)
					cfgs = append(cfgs, Config{SoC: s, Plan: p})
				}
			}
		}
	}
	if len(cfgs) != 10000 {
		tb.Fatalf("%d configurations", len(cfgs))
	}
	return cfgs
}

// BenchmarkSweep10k runs 10,000 configurations through Sweep (all cores).
func BenchmarkSweep10k(b *testing.B) {
	w := mustWorkload(b, seedWorkload)
	cfgs := sweep10k(b)
	for b.Loop() {
		if _, err := Sweep(w, cfgs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(cfgs)), "ns/config")
}

// scaleBench times one prediction (native + token split 0.12) of the seed
// workload edited by edit.
func scaleBench(b *testing.B, edit func(w *model.Workload)) {
	s := mustSoC(b, seedSoC)
	w := *mustWorkload(b, seedWorkload)
	edit(&w)
	for b.Loop() {
		if _, err := Run(s, &w, native(50)); err != nil {
			b.Fatal(err)
		}
		if _, err := Run(s, &w, tokenSplit(0.12, 50)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScalePrompt: cost against prompt length (ubatches of 512).
func BenchmarkScalePrompt(b *testing.B) {
	for _, n := range []int{512, 2048, 8192} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			scaleBench(b, func(w *model.Workload) { w.Run.PromptTokens = n })
		})
	}
}

// BenchmarkScaleExperts: cost against the number of routed experts.
func BenchmarkScaleExperts(b *testing.B) {
	for _, n := range []int{8, 64, 512} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			scaleBench(b, func(w *model.Workload) {
				w.Model.MoE.Experts = n
				w.Model.MoE.TopK = min(w.Model.MoE.TopK, n)
			})
		})
	}
}

// BenchmarkScaleLayers: cost against depth.
func BenchmarkScaleLayers(b *testing.B) {
	for _, n := range []int{24, 48, 96} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			scaleBench(b, func(w *model.Workload) { w.Model.Layers = n })
		})
	}
}
