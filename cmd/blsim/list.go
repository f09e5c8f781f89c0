package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/blsim/blsim/presets"
	"github.com/spf13/cobra"
)

type listEntry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

func newSoCsCmd(stdout io.Writer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "socs",
		Short: "List the embedded SoC presets",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			var out []listEntry
			for _, n := range presets.SoCNames() {
				s, err := presets.SoC(n)
				if err != nil {
					return err
				}
				out = append(out, listEntry{n, s.Description})
			}
			return printList(stdout, out, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(showCmd(stdout, "SoC profile", presets.SoCData))
	return cmd
}

// showCmd prints an embedded preset's YAML, to copy and edit: a board
// user with only the binary has no other copy.
func showCmd(stdout io.Writer, what string, data func(string) ([]byte, error)) *cobra.Command {
	return &cobra.Command{
		Use:   "show NAME",
		Short: "Print the embedded " + what + " NAME as YAML (to copy and edit)",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			b, err := data(args[0])
			if err != nil {
				return err
			}
			_, err = stdout.Write(b)
			return err
		},
	}
}

func newWorkloadsCmd(stdout io.Writer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "workloads",
		Short: "List the embedded workload presets",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			var out []listEntry
			for _, n := range presets.WorkloadNames() {
				w, err := presets.Workload(n)
				if err != nil {
					return err
				}
				out = append(out, listEntry{n, w.Description})
			}
			return printList(stdout, out, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(showCmd(stdout, "workload", presets.WorkloadData))
	return cmd
}

func printList(w io.Writer, list []listEntry, asJSON bool) error {
	if asJSON {
		return writeJSON(w, list)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range list {
		fmt.Fprintf(tw, "%s\t%s\n", e.Name, e.Description)
	}
	return tw.Flush()
}
