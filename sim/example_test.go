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
