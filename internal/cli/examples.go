package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
)

// Examples are the --help examples of commands whose definition has none,
// by command path: every command a user runs shows some (a test in
// cmd/blsim checks it, and parses each line).
var Examples = map[string]string{
	"blsim bench": `  blsim bench                                          # native, big=1 little=0 on 2 CPUs
  blsim bench --split token --frac 0.3 -o md
  ORK_MOE_BIGLITTLE=1 ORK_BL_SPLIT=expert blsim bench -o jsonl -r 3
  blsim bench --cluster big=4-7 --cluster little=0-3 --fit-llc -o json`,
	"blsim calibrate": `  blsim calibrate -o board.yaml --measurements runs.jsonl --plans fit+heldout --shuffle
  blsim calibrate --cluster big=1 --cluster little=0 --quick -o vm.yaml
  blsim calibrate --cluster big=0-1 --quick -o one-pool.yaml
  blsim calibrate --resume --measurements runs.jsonl -o board.yaml
  blsim calibrate --bench 'llama-bench -m model.gguf -n 0 -r 3 -o jsonl' --gguf model.gguf \
    --soc board.yaml -o fitted.yaml --measurements bench.jsonl \
    --arg -t=1,2 --arg -p=64,256 --arg -ub=16,64 --arg --poll=0,50 \
    --rounds 3 --shuffle --holdout "t=2 pp256"`,
	"blsim check public": `  blsim check public
  blsim check public --family pi -o md`,
	"blsim fit": `  blsim fit --measurements runs.jsonl --soc rk3588 -o fitted.yaml
  blsim fit --measurements bench.jsonl --soc prior.yaml --holdout "t=2 pp256" -o fitted.yaml
  blsim fit --measurements grid.jsonl --soc prior.yaml --stat best -o fitted.yaml
  blsim fit --measurements calib.jsonl --holdout set=heldout --stat best -o refit.yaml`,
	"blsim parts": `  blsim parts
  blsim parts --json`,
	"blsim parts show": `  blsim parts show cortex-a76`,
	"blsim socs": `  blsim socs
  blsim socs --json`,
	"blsim socs new": `  blsim socs new --cluster 4xcortex-a76@2.4 --cluster 4xcortex-a55@1.8 --dram lpddr4x-4224x64 --l3-mib 3 -o mine.yaml
  blsim socs new --name opi5 --cluster big=4xcortex-a76@2.4:4-7 --cluster little=4xcortex-a55@1.8:0-3 --dram lpddr5-4800x64
  blsim predict --soc mine.yaml`,
	"blsim socs show": `  blsim socs show rk3588 > mine.yaml
  blsim socs show mine.yaml --resolved`,
	"blsim validate": `  blsim validate --soc fitted.yaml --measurements held.jsonl
  blsim validate --soc prior.yaml --measurements bench.jsonl --holdout "t=2 pp256,t=1 pp64 ub=16"
  blsim validate --soc fitted.yaml --measurements runs.jsonl --loo --stat best
  blsim validate --soc fitted.yaml --measurements held.jsonl -o csv`,
	"blsim workloads": `  blsim workloads
  blsim workloads --json`,
	"blsim workloads from-gguf": `  blsim workloads from-gguf model.gguf -o model.yaml
  blsim workloads from-gguf Qwen3-30B-A3B-Q4_K_M-00001-of-00002.gguf`,
	"blsim workloads new": `  blsim workloads new llama-3.1-8b --scheme Q4_K_M -o llama8b.yaml
  blsim workloads new --config config.json --scheme Q8_0 --show
  blsim predict --workload llama8b.yaml --threads-sweep`,
	"blsim workloads show": `  blsim workloads show qwen3.5-35b-a3b > mine.yaml
  blsim workloads show --gguf model.gguf`,
}

// AddExamples sets Examples on root's commands that have none, and
// returns an error naming any path in Examples that is not a command.
func AddExamples(root *cobra.Command, examples map[string]string) error {
	seen := map[string]bool{}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if ex, ok := examples[c.CommandPath()]; ok {
			seen[c.CommandPath()] = true
			if c.Example == "" {
				c.Example = ex
			}
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	var missing []string
	for p := range examples {
		if !seen[p] {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("examples for commands that do not exist: %s", strings.Join(missing, ", "))
	}
	return nil
}
