package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/sim"
	"github.com/spf13/cobra"
)

// predictOptions are the flags of `blsim predict`.
type predictOptions struct {
	SoC           string
	Workload      string
	Split         string
	Frac          string
	Poll          int
	BigThreads    int
	LittleThreads int
	Prompt        int
	Ubatch        int
	Sweep         bool
	JSON          bool
	Draws         int
	// Engines, when set, names the engines of the split, main first
	// ("big,little,npu"); Threads their thread counts ("4,4,3").
	Engines     string
	Threads     string
	Sensitivity bool
	// bigAuto and littleAuto: --big-threads and --little-threads were not
	// given, so each engine runs min(4, its cores) threads.
	bigAuto, littleAuto bool
}

func newPredictCmd(stdout io.Writer, runF func(*predictOptions) error) *cobra.Command {
	o := &predictOptions{}
	cmd := &cobra.Command{
		Use:   "predict",
		Short: "Predict native vs split throughput, the best split and the verdict",
		Long: `Predict prompt-processing throughput of a workload on a SoC: natively on the
first (big) engine, and with the routed-expert ops split between the first and
second engines by tokens or by experts, at the requested little fraction and at
the best one. The verdict (WIN / PARITY / LOSS) is judged against the
prediction's own uncertainty. With no flags: the seed experiment (rk3588,
qwen3.5-35b-a3b, pp512, 4+4 threads, poll 50, fraction 0.12).

--engines names the split's engines, main first, e.g. big,little,npu on a
SoC with an NPU or big,mid,little on a three-cluster SoC. With more than two
engines, or an accelerator among them, the best fractions are found over the
whole simplex (sim.BestN: a Nelder-Mead search on every face), and --frac
takes one share per engine after the first ("0.1,0.3") or auto (the
default then). --sensitivity adds a sweep of the accelerator's throughput
and submit latency: where the split turns from LOSS to WIN.`,
		Example: `  blsim predict
  blsim predict --soc rk3588-npu --engines big,npu --sensitivity
  blsim predict --soc cix-p1 --split token --engines big,mid,little`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Engines != "" && !cmd.Flags().Changed("frac") && strings.Count(o.Engines, ",") > 1 {
				o.Frac = "auto"
			}
			o.bigAuto = !cmd.Flags().Changed("big-threads")
			o.littleAuto = !cmd.Flags().Changed("little-threads")
			// 0 is the flags' "the workload's own" only when not given.
			for _, name := range []string{"prompt", "ubatch"} {
				if v, _ := cmd.Flags().GetInt(name); cmd.Flags().Changed(name) && v < 1 {
					return fmt.Errorf("--%s: %d: want at least 1 (leave the flag out for the workload's own)", name, v)
				}
			}
			if runF != nil {
				return runF(o)
			}
			return predictRun(o, stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.SoC, "soc", "rk3588", "SoC profile: a preset name or a YAML file")
	f.StringVar(&o.Workload, "workload", "qwen3.5-35b-a3b", "workload: a preset name or a YAML file")
	f.StringVar(&o.Split, "split", "both", "how to split the expert ops: token, expert or both")
	f.StringVar(&o.Frac, "frac", "0.12", "little engine's share: a number in [0,1] or auto (the best)")
	f.IntVar(&o.Poll, "poll", 50, "spin level of the pools, 0..100 (ggml --poll)")
	f.IntVar(&o.BigThreads, "big-threads", 4, "threads of the first (big) engine (when not given: min(4, its cores))")
	f.IntVar(&o.LittleThreads, "little-threads", 4, "threads of the second (little) engine, or with --engines of each helper engine\n(when not given: min(4, its cores))")
	f.IntVar(&o.Prompt, "prompt", 0, "prompt tokens (default: the workload's, 512)")
	f.IntVar(&o.Ubatch, "ubatch", 0, "ubatch size (default: the workload's, 512)")
	f.BoolVar(&o.Sweep, "sweep", false, "also print t/s for little fractions 0 to 0.5")
	f.BoolVar(&o.JSON, "json", false, "print JSON instead of tables")
	f.IntVar(&o.Draws, "draws", sim.DefaultDraws, "parameter samples for the uncertainty interval")
	f.StringVar(&o.Engines, "engines", "", "engines of the split, main first, comma-separated (default: the SoC's first two)")
	f.StringVar(&o.Threads, "threads", "", "with --engines: threads per engine, comma-separated (default: --big-threads for the first and --little-threads for the rest when given, else min(4, its cores) each)")
	f.BoolVar(&o.Sensitivity, "sensitivity", false, "with an accelerator in --engines: sweep its throughput and submit latency (LOSS to WIN)")
	return cmd
}

// predictInputs are the validated inputs of a prediction.
type predictInputs struct {
	soc    *model.SoC
	wl     *model.Workload
	modes  []model.Mode
	frac   float64 // NaN for auto
	big    string
	little string
	// nway is set when the split has more than two engines or an
	// accelerator: engines and threads then hold them, fracs the
	// requested shares (nil for auto).
	nway    bool
	engines []string
	threads []int
	fracs   []float64
}

func (o *predictOptions) resolve() (*predictInputs, error) {
	in := &predictInputs{}
	var err error
	if in.soc, err = presets.LoadSoC(o.SoC); err != nil {
		return nil, fmt.Errorf("--soc: %w", err)
	}
	if in.wl, err = presets.LoadWorkload(o.Workload); err != nil {
		return nil, fmt.Errorf("--workload: %w", err)
	}
	switch o.Split {
	case "token":
		in.modes = []model.Mode{model.TokenSplit}
	case "expert":
		in.modes = []model.Mode{model.ExpertSplit}
	case "both":
		in.modes = []model.Mode{model.TokenSplit, model.ExpertSplit}
	default:
		return nil, fmt.Errorf("--split: %q is not token, expert or both", o.Split)
	}
	if o.Frac == "auto" {
		in.frac = math.NaN()
	} else if strings.Contains(o.Frac, ",") && o.Engines != "" {
		in.frac = math.NaN() // a list: read by resolveEngines
	} else {
		v, err := strconv.ParseFloat(o.Frac, 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > 1 {
			return nil, fmt.Errorf("--frac: %q is not auto or a number in [0,1]", o.Frac)
		}
		in.frac = v
	}
	if o.Poll < 0 || o.Poll > 100 {
		return nil, fmt.Errorf("--poll: %d is outside 0..100", o.Poll)
	}
	if len(in.soc.Engines) < 2 {
		return nil, fmt.Errorf("--soc: %s has one engine; a split needs two", in.soc.Name)
	}
	in.big, in.little = in.soc.Engines[0].Name, in.soc.Engines[1].Name
	if o.Engines != "" {
		if err := o.resolveEngines(in); err != nil {
			return nil, err
		}
	} else if o.Threads != "" {
		return nil, fmt.Errorf("--threads: needs --engines")
	} else if o.Sensitivity {
		return nil, fmt.Errorf("--sensitivity: needs --engines with an accelerator (e.g. --engines big,npu)")
	}
	if in.nway {
		return o.resolveRest(in)
	}
	for i, t := range []struct {
		flag string
		n    *int
		auto bool
	}{{"--big-threads", &o.BigThreads, o.bigAuto}, {"--little-threads", &o.LittleThreads, o.littleAuto}} {
		e := &in.soc.Engines[i]
		if in.engines != nil {
			// --engines named two CPU clusters: the two-engine path.
			e, _, _ = in.soc.Engine(in.engines[i])
		}
		if t.auto {
			*t.n = min(4, e.Cores)
		}
		if *t.n < 1 || *t.n > e.Cores {
			return nil, fmt.Errorf("%s: %d threads, but engine %q of %s has %d cores", t.flag, *t.n, e.Name, in.soc.Name, e.Cores)
		}
	}
	return o.resolveRest(in)
}

// resolveRest checks the flags that do not depend on the engines.
func (o *predictOptions) resolveRest(in *predictInputs) (*predictInputs, error) {
	if o.Prompt < 0 || o.Prompt > 1<<20 {
		return nil, fmt.Errorf("--prompt: %d is outside 1..%d", o.Prompt, 1<<20)
	}
	if o.Ubatch < 0 || o.Ubatch > 1<<16 {
		return nil, fmt.Errorf("--ubatch: %d is outside 1..%d", o.Ubatch, 1<<16)
	}
	if o.Prompt > 0 {
		in.wl.Run.PromptTokens = o.Prompt
	}
	if o.Ubatch > 0 {
		in.wl.Run.Ubatch = o.Ubatch
	}
	if o.Prompt > 0 || o.Ubatch > 0 {
		if n := in.wl.Run.Ubatches(); n > model.MaxUbatches {
			return nil, fmt.Errorf("--prompt %d --ubatch %d: %d ubatches, at most %d per prediction (its cost grows with them): a larger --ubatch, or a shorter --prompt",
				in.wl.Run.PromptTokens, in.wl.Run.Ubatch, n, model.MaxUbatches)
		}
	}
	if o.Draws < 1 || o.Draws > 10000 {
		return nil, fmt.Errorf("--draws: %d is outside 1..10000 (the interval needs samples)", o.Draws)
	}
	return in, nil
}

// resolveEngines reads --engines and --threads (and, for more than two
// engines, --frac as a list).
func (o *predictOptions) resolveEngines(in *predictInputs) error {
	s := in.soc
	names := strings.Split(o.Engines, ",")
	seen := map[string]bool{}
	accel := false
	for i, n := range names {
		n = strings.TrimSpace(n)
		names[i] = n
		e, _, err := s.Engine(n)
		if err != nil {
			return fmt.Errorf("--engines: %w", err)
		}
		if seen[n] {
			return fmt.Errorf("--engines: engine %q listed twice", n)
		}
		seen[n] = true
		if i == 0 && e.IsAccelerator() {
			return fmt.Errorf("--engines: the first engine is the main one, which runs every op that is not split; %q is an accelerator (%s)", n, e.Kind)
		}
		accel = accel || e.IsAccelerator()
	}
	if len(names) < 2 {
		return fmt.Errorf("--engines: %q names one engine; a split needs two or more", o.Engines)
	}
	if len(names) > sim.MaxBestNEngines {
		return fmt.Errorf("--engines: %d engines; at most %d", len(names), sim.MaxBestNEngines)
	}
	threads := make([]int, len(names))
	if o.Threads != "" {
		parts := strings.Split(o.Threads, ",")
		if len(parts) != len(names) {
			return fmt.Errorf("--threads: %d values for %d engines", len(parts), len(names))
		}
		for i, p := range parts {
			v, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil {
				return fmt.Errorf("--threads: %q is not a whole number", p)
			}
			threads[i] = v
		}
	} else {
		for i, n := range names {
			e, _, _ := s.Engine(n)
			switch {
			case i == 0 && !o.bigAuto:
				threads[i] = o.BigThreads
			case i > 0 && !o.littleAuto:
				threads[i] = o.LittleThreads
			default:
				threads[i] = min(4, e.Cores)
			}
		}
	}
	for i, n := range names {
		e, _, _ := s.Engine(n)
		if threads[i] < 1 || threads[i] > e.Cores {
			return fmt.Errorf("--threads: %d threads for engine %q, but it has %d cores", threads[i], n, e.Cores)
		}
	}
	in.engines, in.threads = names, threads
	in.big, in.little = names[0], names[1]
	if len(names) == 2 && !accel {
		// Two CPU clusters: the two-engine path, as without --engines.
		if o.Sensitivity {
			return fmt.Errorf("--sensitivity: needs an accelerator in --engines (%s are CPU clusters)", o.Engines)
		}
		o.BigThreads, o.LittleThreads = threads[0], threads[1]
		o.bigAuto, o.littleAuto = false, false
		return nil
	}
	in.nway = true
	if o.Sensitivity && !accel {
		return fmt.Errorf("--sensitivity: needs an accelerator in --engines (%s are CPU clusters)", o.Engines)
	}
	if o.Frac != "auto" {
		fr, err := parseShares(o.Frac, len(names))
		if err != nil {
			return fmt.Errorf("--frac: %w", err)
		}
		in.fracs = fr
	}
	return nil
}

// parseShares reads the shares of the n-1 engines after the first ("0.1,0.3")
// and gives the first the rest: [0.6 0.1 0.3].
func parseShares(spec string, n int) ([]float64, error) {
	parts := strings.Split(spec, ",")
	if len(parts) != n-1 {
		return nil, fmt.Errorf("%d values for %d engines after the first (or auto)", len(parts), n-1)
	}
	fr := make([]float64, n)
	sum := 0.0
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > 1 {
			return nil, fmt.Errorf("%q is not a number in [0,1]", p)
		}
		fr[i+1] = v
		sum += v
	}
	if sum > 1+1e-9 {
		return nil, fmt.Errorf("shares sum to %g; they must not exceed 1 (the first engine gets the rest)", sum)
	}
	fr[0] = math.Max(0, 1-sum)
	return fr, nil
}

func predictRun(o *predictOptions, w io.Writer) error {
	in, err := o.resolve()
	if err != nil {
		return err
	}
	var rep interface{ writeText(io.Writer) error }
	if in.nway {
		rep, err = predictN(in, o)
	} else {
		rep, err = predict(in, o)
	}
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(w, rep)
	}
	return rep.writeText(w)
}

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
