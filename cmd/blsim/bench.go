package main

import (
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"slices"
	"strconv"
	"strings"
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
	Workload      string
	FitLLC        bool
	Clusters      []string
	Split         string
	Frac          float64
	Poll          int
	BigThreads    int
	LittleThreads int
	Reps          int
	Output        string
	Seed          uint64

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

The knobs of the seed experiment override the flags when set:
ORK_MOE_BIGLITTLE (0 native, 1 split), ORK_BL_SPLIT (token|expert),
ORK_BL_LITTLE_FRAC, ORK_BL_POLL, ORK_BL_BIG_THREADS, ORK_BL_LITTLE_THREADS.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return benchRun(o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Workload, "workload", dispatch.SyntheticName, "workload: a preset name or a YAML file")
	f.BoolVar(&o.FitLLC, "fit-llc", false, "scale the workload's layers so its expert weights are at least twice the last-level cache (at most 1.5 GiB of weights)")
	f.StringArrayVar(&o.Clusters, "cluster", nil, "a cluster as NAME=CPUS, e.g. big=4-7 (repeat; first = big engine)")
	f.StringVar(&o.Split, "split", "native", "how to run the expert ops: native, token or expert")
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
	wl      *model.Workload
	plan    model.Plan
	cpus    map[string][]int
	format  llamabench.Format
	reps    int
	cluster []string // NAME=CPUS of the clusters used
}

// applyEnv overrides the options with the seed's ORK_* knobs that are set
// and not empty.
func (o *benchOptions) applyEnv() error {
	get := func(name string) (string, bool) {
		v, ok := o.lookupEnv(name)
		v = strings.TrimSpace(v)
		return v, ok && v != ""
	}
	envInt := func(name string, lo, hi int, dst *int) error {
		v, ok := get(name)
		if !ok {
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf("%s=%q: want an integer in %d..%d", name, v, lo, hi)
		}
		*dst = n
		return nil
	}
	split, splitSet := get("ORK_BL_SPLIT")
	if splitSet {
		if split != "token" && split != "expert" {
			return fmt.Errorf("ORK_BL_SPLIT=%q: want token or expert", split)
		}
		o.Split = split
	}
	if v, ok := get("ORK_MOE_BIGLITTLE"); ok {
		switch v {
		case "0":
			o.Split = "native"
		case "1":
			if !splitSet && o.Split == "native" {
				o.Split = "token" // the seed's default split
			}
		default:
			return fmt.Errorf("ORK_MOE_BIGLITTLE=%q: want 0 (native) or 1 (split)", v)
		}
	}
	if v, ok := get("ORK_BL_LITTLE_FRAC"); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			return fmt.Errorf("ORK_BL_LITTLE_FRAC=%q: want a number in [0,1]", v)
		}
		o.Frac = f
	}
	if err := envInt("ORK_BL_POLL", 0, 100, &o.Poll); err != nil {
		return err
	}
	if err := envInt("ORK_BL_BIG_THREADS", 1, 1<<16, &o.BigThreads); err != nil {
		return err
	}
	return envInt("ORK_BL_LITTLE_THREADS", 1, 1<<16, &o.LittleThreads)
}

func (o *benchOptions) resolve() (*benchSetup, error) {
	if err := o.applyEnv(); err != nil {
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
	mode := model.Mode(o.Split)
	switch mode {
	case model.Native, model.TokenSplit, model.ExpertSplit:
	default:
		return nil, fmt.Errorf("--split %q: want native, token or expert", o.Split)
	}
	if math.IsNaN(o.Frac) || o.Frac < 0 || o.Frac > 1 {
		return nil, fmt.Errorf("--frac %g: want a number in [0,1]", o.Frac)
	}
	if o.Poll < 0 || o.Poll > 100 {
		return nil, fmt.Errorf("--poll %d: want 0..100", o.Poll)
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

	flags := o.Clusters
	if len(flags) == 0 {
		allowed, err := o.allowedCPUs()
		if err != nil || len(allowed) != 2 {
			return nil, fmt.Errorf("--cluster: required here (%d CPUs usable); e.g. --cluster big=4-7 --cluster little=0-3", len(allowed))
		}
		flags = []string{fmt.Sprintf("big=%d", allowed[1]), fmt.Sprintf("little=%d", allowed[0])}
	}
	var names []string
	clusters := map[string][]int{}
	owner := map[int]string{}
	for _, fl := range flags {
		name, cpus, err := topology.ParseClusterFlag(fl)
		if err != nil {
			return nil, err
		}
		if _, dup := clusters[name]; dup {
			return nil, fmt.Errorf("--cluster %q: cluster %s given twice", fl, name)
		}
		for _, c := range cpus {
			if other, dup := owner[c]; dup {
				return nil, fmt.Errorf("--cluster %q: cpu %d is already in cluster %s", fl, c, other)
			}
			owner[c] = name
		}
		names = append(names, name)
		clusters[name] = cpus
	}
	need := 1
	if mode != model.Native {
		need = 2
	}
	if len(names) < need {
		return nil, fmt.Errorf("--cluster: a %s split needs two clusters (big and little), got %d", mode, len(names))
	}
	threads := make([]int, need)
	s.cpus = map[string][]int{}
	for i := range need {
		n, flag := o.BigThreads, "--big-threads"
		if i == 1 {
			n, flag = o.LittleThreads, "--little-threads"
		}
		c := clusters[names[i]]
		if n == 0 {
			n = len(c)
		}
		if n < 1 || n > len(c) {
			return nil, fmt.Errorf("%s %d: cluster %s has %d CPUs", flag, n, names[i], len(c))
		}
		threads[i] = n
		s.cpus[names[i]] = c[:n]
		s.cluster = append(s.cluster, names[i]+"="+topology.FormatCPUList(c[:n]))
	}
	if mode == model.Native {
		s.plan = model.NewNative(names[0], threads[0], o.Poll)
	} else {
		s.plan = model.NewSplit(mode, names[0], names[1], threads[0], threads[1], o.Frac, o.Poll)
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
	rec := benchRecord(s, m, res, time.Now())
	return llamabench.Write(stdout, s.format, []llamabench.Record{rec})
}

// benchRecord is the llama-bench record of one run.
func benchRecord(s *benchSetup, m *dispatch.Model, res dispatch.Result, now time.Time) llamabench.Record {
	w := s.wl
	e := w.Model.MoE
	p := s.plan
	rec := llamabench.Record{
		BuildCommit:    "blsim",
		CPUInfo:        cpuInfo(),
		Backends:       "CPU",
		ModelFilename:  w.Name,
		ModelType:      fmt.Sprintf("%s %dL %dx%d top-%d %s", w.Name, w.Model.Layers, e.Experts, e.ExpertFFN, e.TopK, model.KernelClass(w.Model.BitsPerWeight.ExpertsUp)),
		ModelSizeBytes: m.WeightBytes(),
		ModelParams:    int64(w.ParamsTotal()),
		NBatch:         max(w.Run.PromptTokens, w.Run.Ubatch),
		NUbatch:        w.Run.Ubatch,
		NThreads:       p.Threads[0],
		CPUMask:        cpuMask(s.cpus),
		CPUStrict:      true,
		Poll:           p.Poll,
		NPrompt:        w.Run.PromptTokens,
		NGen:           0,
		NDepth:         w.Run.Depth,
		TestTime:       now.UTC().Truncate(time.Second),
		Fields: map[string]string{
			"bl_split":    string(p.Mode),
			"bl_clusters": strings.Join(s.cluster, " "),
		},
	}
	var ns, ts []float64
	for i, d := range res.Samples {
		rec.SamplesNS = append(rec.SamplesNS, d.Nanoseconds())
		rec.SamplesTS = append(rec.SamplesTS, res.TPS[i])
		ns = append(ns, float64(d.Nanoseconds()))
		ts = append(ts, res.TPS[i])
	}
	avg, sd := meanSD(ns)
	rec.AvgNS, rec.StddevNS = int64(math.Round(avg)), int64(math.Round(sd))
	rec.AvgTS, rec.StddevTS = meanSD(ts)
	if p.Mode != model.Native {
		rec.Fields["bl_little_frac"] = strconv.FormatFloat(p.Fracs[1], 'g', 6, 64)
		rec.Fields["bl_little_threads"] = strconv.Itoa(p.Threads[1])
	}
	var et []string
	for _, d := range res.ExpertTime {
		et = append(et, strconv.FormatInt(d.Nanoseconds(), 10))
	}
	rec.Fields["bl_expert_ns"] = strings.Join(et, "/")
	return rec
}

// meanSD is the mean and sample standard deviation, as llama-bench.
func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(max(len(xs), 1))
	if len(xs) < 2 {
		return mean, 0
	}
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)-1))
}

// cpuMask is the hexadecimal mask of the CPUs used, as llama-bench prints it.
func cpuMask(cpus map[string][]int) string {
	var mask big.Int
	var all []int
	for _, c := range cpus {
		all = append(all, c...)
	}
	slices.Sort(all)
	for _, c := range all {
		mask.SetBit(&mask, c, 1)
	}
	return "0x" + mask.Text(16)
}

// cpuInfo is the CPU model name from /proc/cpuinfo, or "CPU".
func cpuInfo() string {
	if m := cpuModel(); m != "" {
		return m
	}
	return "CPU"
}
