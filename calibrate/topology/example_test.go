package topology_test

import (
	"fmt"
	"log"

	"github.com/blsim/blsim/calibrate/topology"
)

// Discover on a captured RK3588 tree; on a live machine pass "/".
func ExampleDiscover() {
	topo, err := topology.Discover("testdata/rk3588")
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range topo.Clusters {
		fmt.Printf("%s=%s %s %d MHz, L2 %d KiB/core, shared %d KiB\n",
			c.Name, topology.FormatCPUList(c.CPUs), c.CoreType, c.MaxFreqKHz/1000, c.L2KiBPerCore, c.SharedCacheKiB)
	}
	govs, err := topology.Governors("testdata/rk3588")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(topology.NonPerformance(govs)), "governor warnings")
	// Output:
	// big=4-7 Cortex-A76 2304 MHz, L2 512 KiB/core, shared 3072 KiB
	// little=0-3 Cortex-A55 1800 MHz, L2 128 KiB/core, shared 3072 KiB
	// 2 governor warnings
}

// Override replaces the discovered clusters with the user's --cluster
// flags, checking them against the online CPUs and the affinity mask.
func ExampleOverride() {
	topo, err := topology.Discover("testdata/rk3588")
	if err != nil {
		log.Fatal(err)
	}
	allowed := []int{0, 1, 2, 3, 4, 5, 6, 7} // probe.AllowedCPUs() on Linux
	topo, err = topology.Override(topo, []string{"big=4-5", "little=0"}, allowed)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range topo.Clusters {
		fmt.Println(c.Name, topology.FormatCPUList(c.CPUs), c.CoreType)
	}
	_, err = topology.Override(topo, []string{"big=4-9"}, allowed)
	fmt.Println(err)
	// Output:
	// big 4-5 Cortex-A76
	// little 0 Cortex-A55
	// cluster "big=4-9": cpus 8-9 are not online (online: 0-7)
}

func ExampleParseCPUList() {
	cpus, err := topology.ParseCPUList("0-3,6,8-9")
	fmt.Println(cpus, err, topology.FormatCPUList(cpus))
	// Output: [0 1 2 3 6 8 9] <nil> 0-3,6,8-9
}
