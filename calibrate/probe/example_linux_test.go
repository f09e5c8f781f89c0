package probe_test

import (
	"fmt"

	"github.com/blsim/blsim/calibrate/probe"
)

// A pool of pinned workers; each reports the CPU it runs on.
func ExampleNewPool() {
	cpus, err := probe.AllowedCPUs()
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := probe.NewPool(cpus[:1], 0) // poll 0: idle workers sleep in the futex at once
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	var on int
	p.Run(func(worker int) { on, _ = probe.CurrentCPU() })
	fmt.Println("worker 0 on its cpu:", on == cpus[0])
	// Output: worker 0 on its cpu: true
}
