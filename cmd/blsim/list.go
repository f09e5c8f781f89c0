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
	return cmd
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
