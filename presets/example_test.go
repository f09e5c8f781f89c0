package presets_test

import (
	"fmt"
	"log"

	"github.com/blsim/blsim/presets"
)

// Load a SoC profile by preset name, or from a YAML file (here the
// preset's own copy under presets/socs, the one to copy and edit).
func ExampleLoadSoC() {
	soc, err := presets.LoadSoC("rk3588")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: DRAM %.1f GB/s sustained\n", soc.Name, soc.DRAM.SustainedGBs)
	for _, e := range soc.Engines {
		fmt.Printf("%s (%s): %d cores at %.1f GHz\n", e.Name, e.Kind, e.Cores, e.ClockGHz)
	}
	file, err := presets.LoadSoC("socs/rk3588.yaml")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("from the file:", file.Name)
	// Output:
	// rk3588: DRAM 21.0 GB/s sustained
	// big (cpu): 4 cores at 2.3 GHz
	// little (cpu): 4 cores at 1.8 GHz
	// from the file: rk3588
}
