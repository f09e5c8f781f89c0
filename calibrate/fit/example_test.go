package fit_test

import (
	"fmt"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// Hold out one fraction of a llama-bench grid: by a word of the label, or
// by the knob that set it.
func ExampleHeldOut() {
	m := &measure.Measurement{ID: "bench-3e9b/round=2",
		Plan:  &model.Plan{Mode: "token", Engines: []string{"big", "little"}, Fracs: []float64{0.85, 0.15}, Threads: []int{4, 4}, Poll: 50},
		Knobs: map[string]string{"ORK_BL_LITTLE_FRAC": "0.15"}}
	fmt.Println(m.Label())
	fmt.Println(fit.HeldOut(m, []string{"f=0.15"}), fit.HeldOut(m, []string{"f=0.1"}), fit.HeldOut(m, []string{"ORK_BL_LITTLE_FRAC=0.15"}))
	// Output:
	// token f=0.15 poll=50
	// true false true
}

// On a shared machine, fit the fastest sample of each configuration.
func ExampleParseStat() {
	stat, err := fit.ParseStat("best")
	fmt.Println(stat, err)
	_, err = fit.ParseStat("mean")
	fmt.Println(err)
	// Output:
	// best <nil>
	// "mean" is not a statistic: median or best
}
