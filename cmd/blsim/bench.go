package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/calibrate/llamabench"
	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"github.com/spf13/cobra"
)

// benchOptions are the flags of `blsim bench`.
type benchOptions struct {
	dispatch.Knobs   // --split, --frac, --poll, --big-threads, --little-threads
	Workload, Output string
	Clusters         []string
	Reps             int
	Seed             uint64
	FitLLC           bool

	// lookupEnv reads the ORK_* knobs (os.LookupEnv unless a test sets it).
	lookupEnv func(string) (string, bool)
	// allowedCPUs lists the CPUs the default clusters come from.
	allowedCPUs func() ([]int, error)
}

func newBenchCmd(stdout, stderr io.Writer) *cobra.Command {
	return benchCmd(&benchOptions{lookupEnv: os.LookupEnv, allowedCPUs: probe.AllowedCPUs}, stdout, stderr, nil)
}

// benchCmd builds the command over o; runF, if not nil, replaces the run
// (tests).
func benchCmd(o *benchOptions, stdout, stderr io.Writer, runF func(*benchOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run the built-in big/little dispatcher for real and print llama-bench records",
		Long: `Run a workload's prompt processing for real with blsim's built-in dispatcher
(package calibrate/dispatch): synthetic quantised weights, SIMD dot kernels (Go assembly) and
persistent pinned worker pools, natively on the first cluster or with the
routed-expert ops split with the second by tokens or by experts. Prints one
llama-bench-compatible record per run (json, jsonl, csv or md).

The first --cluster is the big (main) engine, the second the little one. On a
machine with 2 CPUs the default is big=1 little=0.

The knobs of the seed experiment override the flags when set, read as
'calibrate --bench' reads a run's knobs: ORK_MOE_BIGLITTLE (1 split, 0 native),
ORK_BL_SPLIT (token|expert: the mode of a split that is on), ORK_BL_LITTLE_FRAC,
ORK_BL_POLL, ORK_BL_BIG_THREADS, ORK_BL_LITTLE_THREADS.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return benchRun(o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Workload, "workload", dispatch.SyntheticName, "workload: a preset name, a YAML file or a GGUF model file")
	addGGUFFlag(cmd, &o.Workload)
	f.BoolVar(&o.FitLLC, "fit-llc", false, "scale the workload's layers so its expert weights are at least twice the last-level cache (at most 1.5 GiB of weights)")
	f.StringArrayVar(&o.Clusters, "cluster", nil, "a cluster as NAME=CPUS, e.g. big=4-7 (repeat; first = big engine)")
	f.StringVar((*string)(&o.Split), "split", string(model.Native), "how to run the expert ops: native, token or expert")
	f.Float64Var(&o.Frac, "frac", 0.12, "little engine's share of the tokens (token) or experts (expert), in [0,1]")
	f.IntVar(&o.Poll, "poll", 50, "spin level of the pools, 0..100 (ggml --poll)")
	f.IntVar(&o.BigThreads, "big-threads", 0, "threads of the big engine (default: all of its CPUs)")
	f.IntVar(&o.LittleThreads, "little-threads", 0, "threads of the little engine (default: all of its CPUs)")
	f.IntVarP(&o.Reps, "repetitions", "r", 3, "timed repetitions per run")
	f.StringVarP(&o.Output, "output", "o", "md", "output format: jsonl, json, csv or md")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the synthetic weights and the router")
	return cmd
}

// benchSetup is a validated bench run.
type benchSetup struct {
	wl     *model.Workload
	plan   model.Plan
	cpus   map[string][]int
	format llamabench.Format
	reps   int
}

func (o *benchOptions) resolve() (*benchSetup, error) {
	if err := o.ApplyEnv(o.lookupEnv); err != nil {
		return nil, err
	}
	s := &benchSetup{reps: o.Reps}
	var err error
	if s.format, err = llamabench.ParseFormat(o.Output); err != nil || s.format == llamabench.SQL {
		return nil, fmt.Errorf("-o %q: want jsonl, json, csv or md", o.Output)
	}
	if o.Reps < 1 {
		return nil, fmt.Errorf("-r %d: want at least 1 repetition", o.Reps)
	}
	if s.wl, err = presets.LoadWorkload(o.Workload); err != nil {
		return nil, fmt.Errorf("--workload: %w", err)
	}
	if o.FitLLC {
		llc, err := probe.LLCBytes()
		if err != nil {
			return nil, fmt.Errorf("--fit-llc: %w", err)
		}
		dispatch.ScaleToLLC(s.wl, llc, 0)
	}

	specs := o.Clusters
	if len(specs) == 0 {
		allowed, err := o.allowedCPUs()
		if err != nil || len(allowed) != 2 {
			return nil, fmt.Errorf("--cluster: required here (%d CPUs usable); e.g. --cluster big=4-7 --cluster little=0-3", len(allowed))
		}
		specs = []string{fmt.Sprintf("big=%d", allowed[1]), fmt.Sprintf("little=%d", allowed[0])}
	}
	names, cpus, err := topology.ParseClusters(specs)
	if err != nil {
		return nil, fmt.Errorf("--cluster: %w", err)
	}
	if s.plan, s.cpus, err = o.Plan(names, cpus); err != nil {
		return nil, fmt.Errorf("--%w", err) // a knob's error names it as its flag is named
	}
	return s, nil
}

func benchRun(o *benchOptions, stdout, _ io.Writer) error {
	s, err := o.resolve()
	if err != nil {
		return err
	}
	m, err := dispatch.NewModel(s.wl, o.Seed)
	if err != nil {
		return err
	}
	res, err := m.Run(dispatch.Config{Plan: s.plan, CPUs: s.cpus, Repeats: s.reps, Warmup: 1, Seed: o.Seed})
	if err != nil {
		return err
	}
	rec := m.Record(s.plan, s.cpus, res, cmp.Or(topology.CPUModel("/"), "CPU"), time.Now())
	return llamabench.Write(stdout, s.format, []llamabench.Record{rec})
}
