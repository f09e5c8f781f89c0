// Seed-verdict asks blsim's question of the seed experiment, as a library:
// on the RK3588 preset, does splitting Qwen3.5-35B-A3B's expert ops over the
// big and little clusters (12% little, poll 50) pay, and at which split best?
package main

import (
	"fmt"
	"log"

	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
)

func main() {
	soc, err := presets.LoadSoC("rk3588")
	if err != nil {
		log.Fatal(err)
	}
	wl, err := presets.LoadWorkload("qwen3.5-35b-a3b")
	if err != nil {
		log.Fatal(err)
	}
	p, err := predict.Run(predict.Request{SoC: soc, Workload: wl, Fracs: []float64{0.88, 0.12}, Poll: 50})
	if err != nil {
		log.Fatal(err)
	}
	b := p.Best
	fmt.Printf("%s: best %s split, %s %.3f, %+.2f%% [%+.1f, %+.1f]%%\n",
		b.Verdict, b.Plan.Mode, b.Plan.Engines[1], b.Frac(), b.GainPct, b.Interval.LoPct, b.Interval.HiPct)
}
