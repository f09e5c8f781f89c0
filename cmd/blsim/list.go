package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/blsim/blsim/gguf"
	"github.com/blsim/blsim/internal/cli"
	"github.com/blsim/blsim/presets"
	"github.com/spf13/cobra"
)

type listEntry struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

func newSoCsCmd(stdout io.Writer) *cobra.Command {
	cmd := listCmd(stdout, "socs", "SoC", "SoC profile", presets.SoCNames, presets.SoCDescription, presets.SoCData)
	cmd.AddCommand(newSoCNewCmd(stdout))
	return cmd
}

func newWorkloadsCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := listCmd(stdout, "workloads", "workload", "workload", presets.WorkloadNames, presets.WorkloadDescription, presets.WorkloadData)
	cmd.AddCommand(newFromGGUFCmd(stdout, stderr), newWorkloadsNewCmd(stdout, stderr))
	return cmd
}

// listCmd lists the embedded presets of a kind, each with its
// description, and has a show subcommand that prints one preset's YAML,
// to copy and edit: a board user with only the binary has no other copy.
func listCmd(stdout io.Writer, use, kind, what string, names func() []string, describe func(string) (string, error), data func(string) ([]byte, error)) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   use,
		Short: "List the embedded " + kind + " presets",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			var list []listEntry
			for _, n := range names() {
				d, err := describe(n)
				if err != nil {
					return err
				}
				list = append(list, listEntry{n, d})
			}
			if asJSON {
				return cli.WriteJSON(stdout, list)
			}
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			for _, e := range list {
				fmt.Fprintf(tw, "%s\t%s\n", e.Name, e.Description)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	var ggufPath string
	var ubatch int
	var resolved bool
	show := &cobra.Command{
		Use:   "show NAME",
		Short: "Print the embedded " + what + " NAME as YAML (to copy and edit)",
		Args:  cobra.RangeArgs(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if ggufPath != "" {
				if len(args) > 0 {
					return fmt.Errorf("show: give NAME or --gguf FILE, not both")
				}
				return gguf.Show(stdout, ggufPath, ubatch, asJSON)
			}
			if len(args) != 1 {
				return fmt.Errorf("show: which %s? give its NAME (blsim %s lists them)", kind, use)
			}
			if c.Flags().Changed("ubatch") {
				return fmt.Errorf("--ubatch: only with --gguf")
			}
			if resolved || use == "socs" && presets.IsFile(args[0]) { // a file: as blsim reads it
				return presets.WriteResolvedSoC(stdout, args[0])
			}
			b, err := cli.PresetOrFile(args[0], names, data)
			if err == nil && use == "socs" { // what the parts add, which the file does not show
				var note string
				if note, err = presets.PartsNote(args[0]); note != "" {
					b = append(b, "\n"+note...)
				}
			}
			if err == nil {
				_, err = stdout.Write(b)
			}
			return err
		},
	}
	if use == "workloads" {
		show.Use = "show NAME | show --gguf FILE"
		show.Short = "Print the embedded workload NAME as YAML, or with --gguf how blsim sees a GGUF model"
		show.Flags().StringVar(&ggufPath, "gguf", "", "a GGUF model file: print its ops per layer, bytes per token, types and experts touched")
		show.Flags().IntVar(&ubatch, "ubatch", 512, "with --gguf: the ubatch for the experts touched")
		show.Flags().BoolVar(&asJSON, "json", false, "with --gguf: print JSON")
	}
	if use == "socs" {
		show.Use = "show NAME|FILE [--resolved]"
		show.Flags().BoolVar(&resolved, "resolved", false, "print every value, with where it came from (part, file or calibration) as its comment")
	}
	cmd.AddCommand(show)
	return cmd
}
