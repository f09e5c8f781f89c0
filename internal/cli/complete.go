package cli

import (
	"strings"

	"github.com/blsim/blsim/parts"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
	"github.com/spf13/cobra"
)

// BlsimCompletions are what blsim's shell completion offers: preset
// names, plot kinds, split modes, tests and statistics.
func BlsimCompletions(plotKinds []string) Completions {
	return Completions{
		Flags: map[string]func() []string{
			"soc":      presets.SoCNames,
			"workload": presets.WorkloadNames,
			"split":    predict.ModeNames,
			"test":     Fixed("pp", "tg", "pg"),
			"stat":     Fixed("median", "best"),
		},
		Args: map[string]func() []string{
			"blsim plot":           Fixed(plotKinds...),
			"blsim socs show":      presets.SoCNames,
			"blsim workloads show": presets.WorkloadNames,
			"blsim workloads new":  presets.ModelNames,
			"blsim parts show":     parts.Names,
		},
	}
}

// Completions says what the shell completes: Flags by flag name (the same
// name means the same thing in every command), Args by command path
// ("blsim plot", "blsim socs show") for positional arguments. Each is a
// function, so that a preset added later is offered too.
type Completions struct {
	Flags map[string]func() []string
	Args  map[string]func() []string
}

// Register walks root's command tree and registers the completions on
// every command that has the flag or the path. A flag a command does not
// have is left alone.
func (c Completions) Register(root *cobra.Command) {
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		for name, values := range c.Flags {
			if cmd.LocalFlags().Lookup(name) == nil {
				continue
			}
			_ = cmd.RegisterFlagCompletionFunc(name, complete(values))
		}
		if values, ok := c.Args[cmd.CommandPath()]; ok && cmd.ValidArgsFunction == nil {
			cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
				if len(args) > 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return filter(values(), prefix), cobra.ShellCompDirectiveNoFileComp
			}
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// complete offers the values that start with what was typed; when none
// does, the shell completes file names (a SoC or workload is a preset
// name or a file).
func complete(values func() []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		// A comma list completes its last item.
		head := ""
		if i := strings.LastIndex(prefix, ","); i >= 0 {
			head, prefix = prefix[:i+1], prefix[i+1:]
		}
		var out []string
		for _, v := range filter(values(), prefix) {
			out = append(out, head+v)
		}
		return out, cobra.ShellCompDirectiveDefault
	}
}

func filter(values []string, prefix string) []string {
	var out []string
	for _, v := range values {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}

// Fixed returns a function of the given values.
func Fixed(values ...string) func() []string {
	return func() []string { return values }
}
