package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/blsim/blsim/public"
	"github.com/spf13/cobra"
)

// newCheckCmd is `blsim check public [--family F] [--soc S] [--set
// PATH=VALUE]... [-o md|csv|json]`: the public llama-bench rows, predicted
// and scored (package public), or a what-if of them.
func newCheckCmd(stdout io.Writer) *cobra.Command {
	var format string
	var o public.Options
	var sets []string
	pub := &cobra.Command{
		Use:   "public",
		Short: "Predict the public llama.cpp rows blsim is checked on and score them (absolute t/s, ratios within each thread sweep, best -t)",
		Example: `  blsim check public
  blsim check public --family intel --set 'engines.*.gemv_overlap=0.73'`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			for _, s := range sets {
				set, err := public.ParseSet(s)
				if err != nil {
					return fmt.Errorf("--set: %w", err)
				}
				o.Sets = append(o.Sets, set)
			}
			rows, err := public.Rows()
			if err != nil {
				return err
			}
			rep, err := public.Score(rows, o)
			if err != nil {
				return err
			}
			return rep.Write(stdout, format)
		},
	}
	pub.Flags().StringVar(&o.Family, "family", "", "only this family's rows: "+strings.Join(public.Families, ", "))
	pub.Flags().StringVar(&o.SoC, "soc", "", "only the rows of this SoC preset: "+strings.Join(public.PlannedSoCs, ", "))
	pub.Flags().StringArrayVar(&sets, "set", nil, "what-if: PATH=VALUE on every row's SoC before it is simulated (repeatable; engines.*.KEY is every CPU engine),\ne.g. engines.*.gemv_overlap=0.73 or engines.big.clock_ghz=3.228")
	pub.Flags().StringVarP(&format, "output", "o", "md", "format: "+strings.Join(public.Formats, ", "))
	check := &cobra.Command{Use: "check", Short: "Check blsim against ground truth it did not produce"}
	check.AddCommand(pub)
	return check
}
