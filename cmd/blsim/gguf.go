package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/blsim/blsim/gguf"
	"github.com/blsim/blsim/hfconfig"
	"github.com/blsim/blsim/internal/atomicfile"
	"github.com/blsim/blsim/internal/outguard"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"github.com/spf13/cobra"
)

// ggufValue is --gguf FILE: the workload as the GGUF model file the user
// runs, read by its header only; --workload takes the same file too.
type ggufValue struct{ workload *string }

func (g ggufValue) String() string {
	if g.workload == nil {
		return ""
	}
	return *g.workload
}
func (g ggufValue) Type() string { return "FILE" }

func (g ggufValue) Set(path string) error {
	if err := presets.CheckGGUF(path); err != nil {
		return err
	}
	*g.workload = path
	return nil
}

// addGGUFFlag adds --gguf to cmd, beside its --workload, which it sets.
func addGGUFFlag(cmd *cobra.Command, workload *string) {
	cmd.Flags().Var(ggufValue{workload}, "gguf", "the model as a GGUF file (only its header is read), instead of --workload")
	cmd.MarkFlagsMutuallyExclusive("workload", "gguf")
}

// newFromGGUFCmd is `blsim workloads from-gguf FILE [-o w.yaml]`: the
// workload blsim reads from a GGUF model's header, as YAML to inspect or
// edit; what the mapping noticed goes to stderr.
func newFromGGUFCmd(stdout, stderr io.Writer) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "from-gguf FILE",
		Short: "Write the workload a GGUF model file describes, as YAML (only the header is read)",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := outguard.Check(c.Flags(), args, "output"); err != nil {
				return err
			}
			b, notes, err := gguf.YAML(args[0])
			if err != nil {
				return err
			}
			return writeYAML(stdout, stderr, out, args[0]+": ", b, notes)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the YAML to this file (default: stdout)")
	return cmd
}

// writeYAML prints each note to stderr and the YAML to stdout or, with
// -o, to the file.
func writeYAML(stdout, stderr io.Writer, out, from string, b []byte, notes []string) error {
	for _, n := range notes {
		fmt.Fprintf(stderr, "note: %s%s\n", from, n)
	}
	if out == "" {
		_, err := stdout.Write(b)
		return err
	}
	if err := atomicfile.WriteFile(out, b, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", out)
	return nil
}

// newWorkloadsNewCmd is `blsim workloads new [MODEL | --config FILE]
// --scheme Q4_K_M`: a workload from a model's public config and a
// quantization scheme (package hfconfig).
func newWorkloadsNewCmd(stdout, stderr io.Writer) *cobra.Command {
	var out string
	var show bool
	var r *hfconfig.Request
	cmd := &cobra.Command{
		Use:   "new [MODEL] [--config config.json] [--scheme Q4_K_M] [--layers N ...]",
		Short: "Write the workload of a model from its public config (a preset: " + strings.Join(presets.ModelNames(), ", ") + ") and a quantization scheme",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := outguard.Check(c.Flags(), args, "output"); err != nil {
				return err
			}
			r.Preset = strings.Join(args, "")
			m, err := r.Build(presets.Model)
			if err != nil {
				return err
			}
			fmt.Fprintln(stderr, m.SizeLine())
			if show {
				return m.GGUF.Summary(stdout, 512)
			}
			b, err := model.MarshalWorkload(m.Workload())
			return errors.Join(err, writeYAML(stdout, stderr, out, "", b, m.Notes()))
		},
	}
	r = hfconfig.AddRequestFlags(cmd.Flags())
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the YAML to this file (default: stdout)")
	cmd.Flags().BoolVar(&show, "show", false, "print the model as `workloads show --gguf` does, not the YAML")
	return cmd
}
