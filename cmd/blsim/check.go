package main

import (
	"io"
	"strings"

	"github.com/blsim/blsim/public"
	"github.com/spf13/cobra"
)

// newCheckCmd is `blsim check public [--family F] [-o md|csv|json]`: the
// public llama-bench rows, predicted and scored (package public).
func newCheckCmd(stdout io.Writer) *cobra.Command {
	var family, format string
	pub := &cobra.Command{
		Use:   "public",
		Short: "Predict the public llama.cpp rows blsim is checked on and score them (absolute t/s, ratios within each thread sweep, best -t)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			rows, err := public.Rows()
			if err != nil {
				return err
			}
			rep, err := public.Score(rows, family)
			if err != nil {
				return err
			}
			return rep.Write(stdout, format)
		},
	}
	pub.Flags().StringVar(&family, "family", "", "only this family's rows: "+strings.Join(public.Families, ", "))
	pub.Flags().StringVarP(&format, "output", "o", "md", "format: "+strings.Join(public.Formats, ", "))
	check := &cobra.Command{Use: "check", Short: "Check blsim against ground truth it did not produce"}
	check.AddCommand(pub)
	return check
}
