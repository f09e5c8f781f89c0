package main

import (
	"fmt"
	"io"

	"github.com/blsim/blsim/internal/buildinfo"
	"github.com/blsim/blsim/internal/cli"
	"github.com/blsim/blsim/internal/termsafe"
	"github.com/blsim/blsim/parts"
	"github.com/blsim/blsim/sim"
	"github.com/spf13/cobra"
)

// run executes the command line args, writing to stdout and stderr, and
// returns the exit code: 0 on success, 1 on any error (printed as one line).
func run(args []string, stdout, stderr io.Writer) int {
	stdout, stderr = termsafe.NewWriter(stdout), termsafe.NewWriter(stderr) // names from files print escaped
	root := newRootCmd(stdout, stderr)
	root.SetArgs(cli.LlamaBenchArgs(args))
	root.SetOut(stdout)
	root.SetErr(stderr)
	n0 := sim.Simulations()
	err := root.Execute()
	if stats, _ := root.PersistentFlags().GetBool("stats"); stats {
		fmt.Fprintf(stderr, "blsim: %d runs simulated\n", sim.Simulations()-n0)
	}
	if err != nil {
		fmt.Fprintf(stderr, "blsim: %s\n", cli.Line(err))
		return 1
	}
	return 0
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "blsim",
		Short: "Predict big/little (and other) splits of MoE prefill on heterogeneous SoCs",
		Long: `blsim calibrates a cost model of a SoC, simulates any split of the MoE
prefill work between its engines, and says whether it would raise throughput,
at which split, and what hardware would make it pay.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Version(),
	}
	root.SetVersionTemplate("{{.Version}}")
	root.PersistentFlags().Bool("stats", false, "after the command, print on stderr how many runs it simulated (what a prediction costs)")
	root.AddCommand(newCheckCmd(stdout), newPredictCmd(stdout, stderr, nil), newCalibrateCmd(stdout, stderr), newPlotCmd(stdout, stderr), newFitCmd(stdout, stderr),
		newValidateCmd(stdout, stderr), newBenchCmd(stdout, stderr), newReportCmd(stdout, stderr),
		newSoCsCmd(stdout), newWorkloadsCmd(stdout, stderr),
		listCmd(stdout, "parts", "part", "part (a core, a memory type or a runtime)", parts.Names, parts.Describe, parts.Data))
	cli.Finish(root, stdout, plotKinds)
	return root
}
