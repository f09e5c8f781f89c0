package public_test

import (
	"os"

	"github.com/blsim/blsim/public"
)

// The Raspberry Pi rows, scored: what blsim check public --family pi
// prints.
func ExampleScore() {
	rows, err := public.Rows()
	if err != nil {
		panic(err)
	}
	rep, err := public.Score(rows, public.Options{Family: "pi"})
	if err != nil {
		panic(err)
	}
	for _, t := range rep.Targets {
		os.Stdout.WriteString(t.Name + "\n")
	}
	// Output:
	// absolute t/s MAPE %
	// within-sweep ratio MAPE %
	// sweeps whose best -t is right (within 5%)
}
