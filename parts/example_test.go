package parts_test

import (
	"fmt"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/parts"
)

// A SoC from its spec sheet: two clusters of named cores, the memory's
// type, bus and rate; the parts give the rest, each value with its source.
func Example() {
	s, res, err := model.ResolveSoC([]byte(spec), "my.yaml")
	if err != nil {
		panic(err)
	}
	big := s.Engines[0]
	fmt.Printf("peak %.1f GB/s (%s)\n", s.DRAM.PeakGBs, res.Of("dram.peak_gb_s").Layer)
	fmt.Printf("big q4_k %g ops/cycle from %s\n", big.KernelOpsPerCycle["q4_k"], res.Of("engines.big.kernel_ops_per_cycle.q4_k").Part)
	fmt.Printf("big clock %g GHz from the %s, line %d\n", big.ClockGHz, res.Of("engines.big.clock_ghz").Layer, res.Of("engines.big.clock_ghz").Line)
	// Output:
	// peak 33.8 GB/s (part)
	// big q4_k 28 ops/cycle from cortex-a76
	// big clock 2.4 GHz from the file, line 6
}

// The one-line form blsim socs new takes.
func ExampleSheetSpec_SoC() {
	b, err := parts.SheetSpec{Name: "board", Clusters: []string{"4xcortex-a76@2.4", "4xcortex-a55@1.8"},
		DRAM: "lpddr4x-4224x64", L3MiB: 3}.SoC()
	if err != nil {
		panic(err)
	}
	fmt.Print(string(b))
	// Output:
	// schema: blsim/soc/v1
	// name: board
	// description: 4x cortex-a76 @2.4 + 4x cortex-a55 @1.8 GHz, lpddr4x-4224 x64
	// shared_cache_kib: 3072
	// dram: {type: lpddr4x, bus_bits: 64, mt_s: 4224}
	// engines:
	//   - {name: big, core: cortex-a76, cores: 4, clock_ghz: 2.4}
	//   - {name: little, core: cortex-a55, cores: 4, clock_ghz: 1.8}
}
