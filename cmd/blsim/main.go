// Command blsim predicts whether splitting MoE prefill across the big and
// little CPU clusters (or another engine) of a SoC raises throughput.
//
//	blsim predict                      # the seed: rk3588, qwen3.5-35b-a3b, pp512
//	blsim predict --soc ddr5 --sweep   # a what-if SoC, t/s over the fraction
//	blsim socs                         # the embedded presets
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
