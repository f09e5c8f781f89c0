package runner_test

import (
	"fmt"

	"github.com/blsim/blsim/calibrate/runner"
)

// Two rounds over a four-point grid, each in an order of its own (the same
// on every run, so --resume finds its place).
func ExampleSchedule() {
	a, _ := runner.ParseEnvAxis("ORK_BL_LITTLE_FRAC=0.1,0.2,0.3,0.4")
	g := runner.Grid{Command: []string{"llama-bench"}, Env: []runner.Axis{a}}
	for _, p := range runner.Schedule(g.Points(), 2, true) {
		fmt.Println(p.Knobs["ORK_BL_LITTLE_FRAC"], p.ID[len(p.ID)-7:])
	}
	// Output:
	// 0.2 round=1
	// 0.1 round=1
	// 0.3 round=1
	// 0.4 round=1
	// 0.2 round=2
	// 0.3 round=2
	// 0.4 round=2
	// 0.1 round=2
}
