package main

import (
	"io"
	"os/signal"

	"github.com/blsim/blsim/calibrate/busy"
	"github.com/blsim/blsim/internal/cli"
	"github.com/spf13/cobra"
)

func newCalibrateCmd(stdout, stderr io.Writer) *cobra.Command {
	o := &cli.Calibrate{}
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Measure this machine and fit a SoC profile to it",
		Long: `Measure this machine: find its CPU clusters (or take --cluster NAME=CPUS),
run pinned microbenchmarks on each (bandwidth alone and contended, the shared
cache, kernel rates, gemv efficiency, futex and spin wake, barrier), time the
built-in big/little dispatcher over a grid of plans, and fit the model to it.
Each measurement is appended to --measurements at once (--resume continues).

--plans fit+heldout adds plans the fit never sees (--shuffle: each round in an
order of its own) and prints the error on them. --bench drives your own
benchmark (llama-bench) over a knob grid; --holdout names the points to hold
out. --stat: a configuration's median (a quiet board) or fastest sample (a
shared host). A run others disturbed (busy CPUs, steal, pressure) is run again
(--reruns) and, if it stays so, kept out of the fit. Needs Linux. Set the
governors (cpufreq, the memory controller's devfreq) to
performance and stop everything else first.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), cli.StopSignals...)
			defer stop()
			return o.Run(ctx, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.Clusters, "cluster", nil, "a cluster as NAME=CPUS (e.g. big=4-7); repeat for each; the first is the main engine")
	f.BoolVar(&o.Quick, "quick", false, "short budgets and a small grid (under a minute)")
	f.StringVarP(&o.Out, "output", "o", "profile.yaml", "where to write the fitted profile")
	cli.AddBenchGridFlags(f, &o.Bench)
	f.StringVar(&o.Grid, "plans", "fit", "built-in dispatcher plans: fit, heldout (other fractions, for blsim validate),\nor fit+heldout (both in the same rounds: fits on fit, prints the error on heldout)")
	f.StringVar(&o.Prior, "soc", "", "with --bench: the prior profile to fit (a preset name or a YAML file)")
	f.BoolVar(&o.NoFit, "no-fit", false, "only record dispatcher runs (no microbenchmarks, no fit)")
	f.StringVar(&o.Name, "name", "", "name of the fitted profile (default: host name)")
	f.StringVar(&o.Workload, "workload", "", "the model the runs execute: with --bench, what the benchmark command runs (required);\nelse the built-in dispatcher's (default: synthetic-moe-calib sized to twice the last-level cache)")
	addGGUFFlag(cmd, &o.Workload)
	f.IntVar(&o.Repeats, "repeats", 0, "timed repeats per dispatcher run (default 2)")
	f.IntVar(&o.Reruns, "reruns", busy.DefaultMaxReruns, "run a run again, at most this many times, when other processes or the hypervisor (steal) disturbed it\n(each after a quiet moment of its CPUs, within a quarter of the time measured; 0: never)")
	f.IntVar(&o.Rounds, "rounds", 0, "passes over the grid, one plan after another, merged by --stat (default 5, also with --quick, where they are always shuffled and, at the default, the later ones skipped when others disturbed the first; 1 with --bench)")
	cli.AddStatFlag(f, &o.Stat)
	f.StringSliceVar(&o.Holdout, "holdout", nil, "fit on the runs matching none of these patterns and print the error on those that match\n(as blsim validate --holdout: f=0.15, a knob NAME=VALUE, part of the id; --plans fit+heldout: set=heldout)")
	cli.AddKernelsFlag(f, &o.Kernels)
	cli.AddAcceptPoorFlag(f, &o.AcceptPoor)
	f.BoolVar(&o.JSON, "json", false, "print the fit (and the held-out error) as JSON; progress goes to stderr")
	o.Flags = f
	f.StringVar(&o.SysRoot, "sysfs-root", "/", "root of the sysfs and procfs trees to read the topology from")
	_ = f.MarkHidden("sysfs-root")
	f.DurationVar(&o.MicroBudget, "micro-budget", 0, "time budget of each microbenchmark (default 2s, 300ms with --quick)")
	return cmd
}
