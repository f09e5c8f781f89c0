package predict_test

import (
	"fmt"
	"log"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
)

// Predict the seed experiment: Qwen3.5-35B-A3B, pp512, on the RK3588's
// four big and four little cores at poll 50, with the seed's token split
// (12% of the expert-op tokens on the little cluster), against the best
// split blsim finds.
func ExampleRun() {
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
	fmt.Printf("native: %.2f t/s\n", p.Native.TPS)
	if q, ok := p.Plan(model.TokenSplit, predict.Requested); ok {
		fmt.Printf("requested: %s split, little %.3f: %.2f t/s, %+.2f%%\n", q.Plan.Mode, q.Frac(), q.TPS, q.GainPct)
	}
	b := p.Best
	fmt.Printf("best: %s split, little %.3f: %.2f t/s\n", b.Plan.Mode, b.Frac(), b.TPS)
	fmt.Printf("gain: %+.2f%%, 90%% interval [%+.1f, %+.1f]%% (%s, %d runs)\n", b.GainPct, b.Interval.LoPct, b.Interval.HiPct, b.Interval.Method, b.Interval.Draws)
	fmt.Println("verdict:", b.Verdict)
	// Output:
	// native: 26.26 t/s
	// requested: token split, little 0.120: 26.28 t/s, +0.05%
	// best: token split, little 0.110: 26.44 t/s
	// gain: +0.68%, 90% interval [+0.2, +0.9]% (first-order, 16 runs)
	// verdict: PARITY
}
