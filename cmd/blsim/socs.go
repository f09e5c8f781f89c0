package main

import (
	"io"

	"github.com/blsim/blsim/internal/atomicfile"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/parts"
	"github.com/spf13/cobra"
)

// newSoCNewCmd is socs new: a SoC file from a spec sheet's one line.
func newSoCNewCmd(stdout io.Writer) *cobra.Command {
	var spec parts.SheetSpec
	var out string
	cmd := &cobra.Command{
		Use:   "new --cluster [NAME=]COUNTxCORE@GHZ[:CPUS]... --dram TYPE-MTSxBITS [--l3-mib N]",
		Short: "Write a SoC file from a spec sheet (core parts, clocks, memory), naming parts for the rest",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			b, err := model.NewSoCFile(spec)
			if err != nil || out == "" {
				if err == nil {
					_, err = stdout.Write(b)
				}
				return err
			}
			return atomicfile.WriteFile(out, b, 0o644)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&spec.Clusters, "cluster", nil, "a CPU cluster, fastest first: 4xcortex-a76@2.4, or big=4xcortex-a76@2.4:4-7 with its name and CPU ids (repeat; blsim parts lists the cores)")
	f.StringVar(&spec.DRAM, "dram", "", "the memory: TYPE-MTSxBITS, e.g. lpddr4x-4224x64 (type, MT/s, bus width in bits)")
	f.Float64Var(&spec.L3MiB, "l3-mib", 0, "the last-level cache the clusters share, MiB (0: none)")
	f.StringVar(&spec.Name, "name", "my-soc", "the SoC's name")
	f.StringVarP(&out, "output", "o", "", "write the file here (atomically) instead of printing it")
	return cmd
}
