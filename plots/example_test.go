package plots_test

import (
	"fmt"
	"log"

	"github.com/blsim/blsim/plots"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
)

// Draw the seed's split curve: a prediction with a sweep of the little
// cluster's share (predict.Request.Sweep) is the figure's data, so its
// legend says what the prediction's table prints. Save or Write renders it.
func ExampleSplitCurve() {
	soc, err := presets.LoadSoC("rk3588")
	if err != nil {
		log.Fatal(err)
	}
	wl, err := presets.LoadWorkload("qwen3.5-35b-a3b")
	if err != nil {
		log.Fatal(err)
	}
	p, err := predict.Run(predict.Request{SoC: soc, Workload: wl, Poll: 50, Sweep: true})
	if err != nil {
		log.Fatal(err)
	}
	d, err := plots.SplitOf(p, nil)
	if err != nil {
		log.Fatal(err)
	}
	fig, err := plots.SplitCurve(d)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(fig.Title)
	for _, e := range fig.Legend {
		fmt.Println(e.Label)
	}
	// Output:
	// qwen3.5-35b-a3b on rk3588: pp512 by split (big 4 + little 4 threads, poll 50)
	// native (big only)
	// token split
	// expert split
	// best token split 0.110: +0.68% [+0.2, +0.9]% PARITY
	// best expert split 0.107: +0.40% [+0.2, +0.6]% PARITY
}
