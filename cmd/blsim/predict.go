package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

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
			if o.Engines != "" {
				if !cmd.Flags().Changed("frac") && strings.Count(o.Engines, ",") > 1 {
					o.Frac = "auto"
				}
				if !cmd.Flags().Changed("little-threads") {
					o.LittleThreads = 0 // each helper engine: min(4, its cores)
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
	f.IntVar(&o.BigThreads, "big-threads", 4, "threads of the first (big) engine")
	f.IntVar(&o.LittleThreads, "little-threads", 4, "threads of the second (little) engine")
	f.IntVar(&o.Prompt, "prompt", 0, "prompt tokens (default: the workload's, 512)")
	f.IntVar(&o.Ubatch, "ubatch", 0, "ubatch size (default: the workload's, 512)")
	f.BoolVar(&o.Sweep, "sweep", false, "also print t/s for little fractions 0 to 0.5")
	f.BoolVar(&o.JSON, "json", false, "print JSON instead of tables")
	f.IntVar(&o.Draws, "draws", sim.DefaultDraws, "parameter samples for the uncertainty interval")
	f.StringVar(&o.Engines, "engines", "", "engines of the split, main first, comma-separated (default: the SoC's first two)")
	f.StringVar(&o.Threads, "threads", "", "with --engines: threads per engine, comma-separated (default: --big-threads, then min(4, cores))")
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
	for _, t := range []struct {
		flag string
		n    int
		e    *model.Engine
	}{{"--big-threads", o.BigThreads, &in.soc.Engines[0]}, {"--little-threads", o.LittleThreads, &in.soc.Engines[1]}} {
		if in.engines != nil {
			// --engines named two CPU clusters: the two-engine path.
			t.e, _, _ = in.soc.Engine(in.engines[0])
			if t.flag != "--big-threads" {
				t.e, _, _ = in.soc.Engine(in.engines[1])
			}
		}
		if t.n < 1 || t.n > t.e.Cores {
			return nil, fmt.Errorf("%s: %d threads, but engine %q of %s has %d cores", t.flag, t.n, t.e.Name, in.soc.Name, t.e.Cores)
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
	if o.Draws < 0 || o.Draws > 10000 {
		return nil, fmt.Errorf("--draws: %d is outside 0..10000", o.Draws)
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
			case i == 0:
				threads[i] = o.BigThreads
			case o.LittleThreads > 0:
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
		return nil
	}
	in.nway = true
	if o.Sensitivity && !accel {
		return fmt.Errorf("--sensitivity: needs an accelerator in --engines (%s are CPU clusters)", o.Engines)
	}
	if o.Frac != "auto" {
		parts := strings.Split(o.Frac, ",")
		if len(parts) != len(names)-1 {
			return fmt.Errorf("--frac: %d values for %d engines after the first (or auto)", len(parts), len(names)-1)
		}
		fr := make([]float64, len(names))
		sum := 0.0
		for i, p := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || math.IsNaN(v) || v < 0 || v > 1 {
				return fmt.Errorf("--frac: %q is not a number in [0,1]", p)
			}
			fr[i+1] = v
			sum += v
		}
		if sum > 1+1e-9 {
			return fmt.Errorf("--frac: shares sum to %g; they must not exceed 1 (the first engine gets the rest)", sum)
		}
		fr[0] = math.Max(0, 1-sum)
		in.fracs = fr
	}
	return nil
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

// planOut is one plan's prediction as printed.
type planOut struct {
	Mode         string    `json:"mode"`
	Kind         string    `json:"kind"` // requested, best, dispatcher_only
	Frac         float64   `json:"frac"`
	Poll         int       `json:"poll"`
	TPS          float64   `json:"tps"`
	GainPct      float64   `json:"gain_pct"`
	GainLoPct    float64   `json:"gain_lo_pct"`
	GainHiPct    float64   `json:"gain_hi_pct"`
	Verdict      string    `json:"verdict"`
	Bound        sim.Bound `json:"bound"`
	DRAMUtilMean float64   `json:"dram_util_mean"`
	DRAMUtilPeak float64   `json:"dram_util_peak"`
	HandoffS     float64   `json:"handoff_s"`
	ExpertOpS    float64   `json:"expert_op_s"`
}

type nativeOut struct {
	TPS          float64   `json:"tps"`
	WallS        float64   `json:"wall_s"`
	Bound        sim.Bound `json:"bound"`
	DRAMUtilMean float64   `json:"dram_util_mean"`
	DRAMUtilPeak float64   `json:"dram_util_peak"`
	HandoffS     float64   `json:"handoff_s"`
	ExpertOpS    float64   `json:"expert_op_s"`
}

type sweepRow struct {
	Mode    string  `json:"mode"`
	Frac    float64 `json:"frac"`
	TPS     float64 `json:"tps"`
	GainPct float64 `json:"gain_pct"`
}

type report struct {
	SoC            string             `json:"soc"`
	Workload       string             `json:"workload"`
	Prompt         int                `json:"prompt"`
	Ubatch         int                `json:"ubatch"`
	Engines        []string           `json:"engines"`
	Threads        []int              `json:"threads"`
	Poll           int                `json:"poll"`
	Native         nativeOut          `json:"native"`
	Splits         []planOut          `json:"splits"`
	Best           planOut            `json:"best"`
	Balance        map[string]float64 `json:"balance_frac"`
	LittleMarginal float64            `json:"little_marginal"`
	Sweep          []sweepRow         `json:"sweep,omitempty"`
}

func predict(in *predictInputs, o *predictOptions) (*report, error) {
	s, wl := in.soc, in.wl
	native := model.NewNative(in.big, o.BigThreads, o.Poll)
	nr, err := sim.Run(s, wl, native)
	if err != nil {
		return nil, err
	}
	rep := &report{SoC: s.Name, Workload: wl.Name, Prompt: wl.Run.PromptTokens, Ubatch: wl.Run.Ubatch,
		Engines: []string{in.big, in.little}, Threads: []int{o.BigThreads, o.LittleThreads}, Poll: o.Poll,
		Native: nativeOut{TPS: nr.TPS, WallS: nr.WallS, Bound: nr.Bound, DRAMUtilMean: nr.DRAMUtilMean,
			DRAMUtilPeak: nr.DRAMUtilPeak, HandoffS: nr.Bound.Handoff * nr.WallS, ExpertOpS: nr.ExpertOpS},
		Balance: map[string]float64{}}
	out := func(mode model.Mode, kind string, frac float64, r *sim.Result) (planOut, error) {
		p := model.NewSplit(mode, in.big, in.little, o.BigThreads, o.LittleThreads, frac, o.Poll)
		iv, err := sim.GainInterval(s, wl, native, p, o.Draws)
		if err != nil {
			return planOut{}, err
		}
		g := sim.GainPct(r.TPS, nr.TPS)
		return planOut{Mode: string(mode), Kind: kind, Frac: round(frac, 4), Poll: o.Poll, TPS: r.TPS, GainPct: g,
			GainLoPct: iv.Lo, GainHiPct: iv.Hi, Verdict: sim.Verdict(g, iv), Bound: r.Bound,
			DRAMUtilMean: r.DRAMUtilMean, DRAMUtilPeak: r.DRAMUtilPeak, HandoffS: r.Bound.Handoff * r.WallS,
			ExpertOpS: r.ExpertOpS}, nil
	}
	bestSet := false
	for _, mode := range in.modes {
		base := model.NewSplit(mode, in.big, in.little, o.BigThreads, o.LittleThreads, 0, o.Poll)
		bf, br, err := sim.Best(s, wl, base)
		if err != nil {
			return nil, err
		}
		if !math.IsNaN(in.frac) {
			p := base
			p.Fracs = []float64{1 - in.frac, in.frac}
			r, err := sim.Run(s, wl, p)
			if err != nil {
				return nil, err
			}
			po, err := out(mode, "requested", in.frac, r)
			if err != nil {
				return nil, err
			}
			rep.Splits = append(rep.Splits, po)
			if mode == in.modes[0] && r.Split.EngineS[1] > 0 {
				// Tokens per second the second engine sustains inside the
				// split ops, relative to the first engine's in the same run.
				rep.LittleMarginal = (in.frac / r.Split.EngineS[1]) / ((1 - in.frac) / r.Split.EngineS[0])
			}
		}
		po, err := out(mode, "best", bf, br)
		if err != nil {
			return nil, err
		}
		rep.Splits = append(rep.Splits, po)
		if !bestSet || po.TPS > rep.Best.TPS {
			rep.Best, bestSet = po, true
		}
		r0, err := sim.Run(s, wl, base)
		if err != nil {
			return nil, err
		}
		if po, err = out(mode, "dispatcher_only", 0, r0); err != nil {
			return nil, err
		}
		rep.Splits = append(rep.Splits, po)
		if b, err := sim.Balance(s, wl, base); err != nil {
			return nil, err
		} else if !math.IsNaN(b) {
			rep.Balance[string(mode)] = round(b, 4)
		}
	}
	if o.Sweep {
		var cfgs []sim.Config
		for _, mode := range in.modes {
			for i := 0; i <= 20; i++ {
				f := 0.025 * float64(i)
				cfgs = append(cfgs, sim.Config{SoC: s, Plan: model.NewSplit(mode, in.big, in.little, o.BigThreads, o.LittleThreads, f, o.Poll)})
			}
		}
		res, err := sim.Sweep(wl, cfgs)
		if err != nil {
			return nil, err
		}
		for i, r := range res {
			rep.Sweep = append(rep.Sweep, sweepRow{Mode: string(cfgs[i].Plan.Mode), Frac: round(cfgs[i].Plan.Fracs[1], 4),
				TPS: r.TPS, GainPct: sim.GainPct(r.TPS, nr.TPS)})
		}
	}
	return rep, nil
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

func pct(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }

func (r *report) writeText(w io.Writer) error {
	fmt.Fprintf(w, "%s on %s: pp%d (ubatch %d), %s %d + %s %d threads, poll %d\n\n",
		r.Workload, r.SoC, r.Prompt, r.Ubatch, r.Engines[0], r.Threads[0], r.Engines[1], r.Threads[1], r.Poll)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "plan\tfrac\tt/s\tgain\t90%% interval\tverdict\t\n")
	fmt.Fprintf(tw, "native (%s only)\t-\t%.2f\t-\t-\t-\t\n", r.Engines[0], r.Native.TPS)
	for _, s := range r.Splits {
		fmt.Fprintf(tw, "%s split, %s\t%.3f\t%.2f\t%+.2f%%\t[%+.1f, %+.1f]%%\t%s\t\n",
			s.Mode, strings.ReplaceAll(s.Kind, "_", " "), s.Frac, s.TPS, s.GainPct, s.GainLoPct, s.GainHiPct, s.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, mode := range []string{"token", "expert"} {
		if b, ok := r.Balance[mode]; ok {
			fmt.Fprintf(w, "%s-split balance point (%s and %s finish the split ops together): frac %.3f\n", mode, r.Engines[0], r.Engines[1], b)
		}
	}
	if r.LittleMarginal > 0 {
		fmt.Fprintf(w, "%s marginal compute inside the split ops: %.2fx the %s engine's\n", r.Engines[1], r.LittleMarginal, r.Engines[0])
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "why (share of wall time)\tcompute\tDRAM\thandoff\thandoff s\tDRAM util mean\tpeak\t\n")
	fmt.Fprintf(tw, "native\t%s\t%s\t%s\t%.3f\t%s\t%s\t\n", pct(r.Native.Bound.Compute), pct(r.Native.Bound.DRAM),
		pct(r.Native.Bound.Handoff), r.Native.HandoffS, pct(r.Native.DRAMUtilMean), pct(r.Native.DRAMUtilPeak))
	for _, s := range r.Splits {
		fmt.Fprintf(tw, "%s %.3f\t%s\t%s\t%s\t%.3f\t%s\t%s\t\n", s.Mode, s.Frac, pct(s.Bound.Compute), pct(s.Bound.DRAM),
			pct(s.Bound.Handoff), s.HandoffS, pct(s.DRAMUtilMean), pct(s.DRAMUtilPeak))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nverdict: %s (best: %s split at frac %.3f, %+.2f%%, interval [%+.1f, %+.1f]%%)\n",
		r.Best.Verdict, r.Best.Mode, r.Best.Frac, r.Best.GainPct, r.Best.GainLoPct, r.Best.GainHiPct)
	fmt.Fprintln(w, r.why())
	if len(r.Sweep) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "split\tfrac\tt/s\tgain\t\n")
		for _, s := range r.Sweep {
			fmt.Fprintf(tw, "%s\t%.3f\t%.2f\t%+.2f%%\t\n", s.Mode, s.Frac, s.TPS, s.GainPct)
		}
		return tw.Flush()
	}
	return nil
}

// why explains the verdict from the numbers: how much the dispatcher alone
// gains (handoff), and what the second engine's work adds on top.
func (r *report) why() string {
	var only, best planOut
	for _, s := range r.Splits {
		if s.Mode == r.Best.Mode && s.Kind == "dispatcher_only" {
			only = s
		}
	}
	best = r.Best
	work := best.GainPct - only.GainPct
	var b strings.Builder
	fmt.Fprintf(&b, "why: of the best split's %+.2f%%, %+.2f%% comes with the dispatcher alone (frac 0: handoff saved or paid, not %s compute) and %+.2f%% from %s's share of the work;",
		best.GainPct, only.GainPct, r.Engines[1], work, r.Engines[1])
	fmt.Fprintf(&b, " native is %s DRAM-stalled with bursts peaking at %s of sustained bandwidth, and the split spends %s of its time stalled on DRAM.",
		pct(r.Native.Bound.DRAM), pct(r.Native.DRAMUtilPeak), pct(best.Bound.DRAM))
	return b.String()
}

// planOutN is one N-engine plan's prediction as printed.
type planOutN struct {
	Mode         string    `json:"mode"`
	Kind         string    `json:"kind"` // requested, best, dispatcher_only
	Fracs        []float64 `json:"fracs"`
	TPS          float64   `json:"tps"`
	GainPct      float64   `json:"gain_pct"`
	GainLoPct    float64   `json:"gain_lo_pct"`
	GainHiPct    float64   `json:"gain_hi_pct"`
	Verdict      string    `json:"verdict"`
	Bound        sim.Bound `json:"bound"`
	DRAMUtilMean float64   `json:"dram_util_mean"`
	DRAMUtilPeak float64   `json:"dram_util_peak"`
	HandoffS     float64   `json:"handoff_s"`
	// EngineS is each engine's busy time inside the split ops.
	EngineS []float64 `json:"engine_s"`
}

// reportN is the prediction of a split over more than two engines, or
// with an accelerator.
type reportN struct {
	SoC         string               `json:"soc"`
	Workload    string               `json:"workload"`
	Prompt      int                  `json:"prompt"`
	Ubatch      int                  `json:"ubatch"`
	Engines     []string             `json:"engines"`
	Kinds       []string             `json:"kinds"`
	Threads     []int                `json:"threads"`
	Poll        int                  `json:"poll"`
	Native      nativeOut            `json:"native"`
	Splits      []planOutN           `json:"splits"`
	Best        planOutN             `json:"best"`
	Sensitivity *sim.SensitivityGrid `json:"sensitivity,omitempty"`
	// Boundary is, per submit latency, where the verdict turns to WIN:
	// at the best fractions and at the studied SoC's best fractions held
	// fixed.
	BoundaryBest  []sim.Boundary `json:"win_boundary_best,omitempty"`
	BoundaryFixed []sim.Boundary `json:"win_boundary_fixed,omitempty"`
}

func predictN(in *predictInputs, o *predictOptions) (*reportN, error) {
	s, wl := in.soc, in.wl
	native := model.NewNative(in.engines[0], in.threads[0], o.Poll)
	nr, err := sim.Run(s, wl, native)
	if err != nil {
		return nil, err
	}
	rep := &reportN{SoC: s.Name, Workload: wl.Name, Prompt: wl.Run.PromptTokens, Ubatch: wl.Run.Ubatch,
		Engines: in.engines, Threads: in.threads, Poll: o.Poll,
		Native: nativeOut{TPS: nr.TPS, WallS: nr.WallS, Bound: nr.Bound, DRAMUtilMean: nr.DRAMUtilMean,
			DRAMUtilPeak: nr.DRAMUtilPeak, HandoffS: nr.Bound.Handoff * nr.WallS, ExpertOpS: nr.ExpertOpS}}
	for _, n := range in.engines {
		e, _, _ := s.Engine(n)
		rep.Kinds = append(rep.Kinds, e.Kind)
	}
	// --split both: the modes every engine can take a share of.
	modes := in.modes
	if o.Split == "both" {
		modes = nil
		for _, m := range in.modes {
			ok := true
			for _, n := range in.engines {
				e, _, _ := s.Engine(n)
				ok = ok && e.CanSplit(m)
			}
			if ok {
				modes = append(modes, m)
			}
		}
		if len(modes) == 0 {
			return nil, fmt.Errorf("--split: no split mode that all of %s can take a share of", strings.Join(in.engines, ", "))
		}
	}
	plan := func(mode model.Mode, fr []float64) model.Plan {
		return model.Plan{Mode: mode, Engines: in.engines, Fracs: fr, Threads: in.threads, Poll: o.Poll}
	}
	out := func(mode model.Mode, kind string, fr []float64, r *sim.Result) (planOutN, error) {
		iv, err := sim.GainInterval(s, wl, native, plan(mode, fr), o.Draws)
		if err != nil {
			return planOutN{}, err
		}
		g := sim.GainPct(r.TPS, nr.TPS)
		rf := make([]float64, len(fr))
		for i, f := range fr {
			rf[i] = round(f, 4)
		}
		return planOutN{Mode: string(mode), Kind: kind, Fracs: rf, TPS: r.TPS, GainPct: g, GainLoPct: iv.Lo, GainHiPct: iv.Hi,
			Verdict: sim.Verdict(g, iv), Bound: r.Bound, DRAMUtilMean: r.DRAMUtilMean, DRAMUtilPeak: r.DRAMUtilPeak,
			HandoffS: r.Bound.Handoff * r.WallS, EngineS: r.Split.EngineS}, nil
	}
	bestSet := false
	var bestPlan model.Plan
	for _, mode := range modes {
		if in.fracs != nil {
			r, err := sim.Run(s, wl, plan(mode, in.fracs))
			if err != nil {
				return nil, err
			}
			po, err := out(mode, "requested", in.fracs, r)
			if err != nil {
				return nil, err
			}
			rep.Splits = append(rep.Splits, po)
		}
		fr, br, err := sim.BestN(s, wl, plan(mode, nil))
		if err != nil {
			return nil, err
		}
		po, err := out(mode, "best", fr, br)
		if err != nil {
			return nil, err
		}
		rep.Splits = append(rep.Splits, po)
		if !bestSet || po.TPS > rep.Best.TPS {
			rep.Best, bestSet, bestPlan = po, true, plan(mode, nil)
		}
		only := make([]float64, len(in.engines))
		only[0] = 1
		r0, err := sim.Run(s, wl, plan(mode, only))
		if err != nil {
			return nil, err
		}
		if po, err = out(mode, "dispatcher_only", only, r0); err != nil {
			return nil, err
		}
		rep.Splits = append(rep.Splits, po)
	}
	if o.Sensitivity {
		accel := ""
		for _, n := range in.engines {
			if e, _, _ := s.Engine(n); e.IsAccelerator() {
				accel = n
				break
			}
		}
		g, err := sim.Sensitivity(s, wl, bestPlan, accel, nil, nil)
		if err != nil {
			return nil, err
		}
		rep.Sensitivity = g
		rep.BoundaryBest, rep.BoundaryFixed = g.WinBoundary(true), g.WinBoundary(false)
	}
	return rep, nil
}

func fracList(names []string, fr []float64) string {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteString(" + ")
		}
		fmt.Fprintf(&b, "%s %.3f", n, fr[i])
	}
	return b.String()
}

func (r *reportN) writeText(w io.Writer) error {
	var eng []string
	for i, n := range r.Engines {
		eng = append(eng, fmt.Sprintf("%s (%s) %d", n, r.Kinds[i], r.Threads[i]))
	}
	fmt.Fprintf(w, "%s on %s: pp%d (ubatch %d), engines %s threads, poll %d\n\n",
		r.Workload, r.SoC, r.Prompt, r.Ubatch, strings.Join(eng, " + "), r.Poll)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "plan\t%s\tt/s\tgain\t90%% interval\tverdict\t\n", strings.Join(r.Engines, "\t"))
	dash := strings.TrimSuffix(strings.Repeat("-\t", len(r.Engines)), "\t")
	fmt.Fprintf(tw, "native (%s only)\t%s\t%.2f\t-\t-\t-\t\n", r.Engines[0], dash, r.Native.TPS)
	for _, s := range r.Splits {
		var fs []string
		for _, f := range s.Fracs {
			fs = append(fs, fmt.Sprintf("%.3f", f))
		}
		fmt.Fprintf(tw, "%s split, %s\t%s\t%.2f\t%+.2f%%\t[%+.1f, %+.1f]%%\t%s\t\n",
			s.Mode, strings.ReplaceAll(s.Kind, "_", " "), strings.Join(fs, "\t"), s.TPS, s.GainPct, s.GainLoPct, s.GainHiPct, s.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "why (share of wall time)\tcompute\tDRAM\thandoff\thandoff s\tDRAM util mean\tpeak\t\n")
	fmt.Fprintf(tw, "native\t%s\t%s\t%s\t%.3f\t%s\t%s\t\n", pct(r.Native.Bound.Compute), pct(r.Native.Bound.DRAM),
		pct(r.Native.Bound.Handoff), r.Native.HandoffS, pct(r.Native.DRAMUtilMean), pct(r.Native.DRAMUtilPeak))
	for _, s := range r.Splits {
		fmt.Fprintf(tw, "%s %s\t%s\t%s\t%s\t%.3f\t%s\t%s\t\n", s.Mode, strings.ReplaceAll(s.Kind, "_", " "), pct(s.Bound.Compute), pct(s.Bound.DRAM),
			pct(s.Bound.Handoff), s.HandoffS, pct(s.DRAMUtilMean), pct(s.DRAMUtilPeak))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b := r.Best
	fmt.Fprintf(w, "\nverdict: %s (best: %s split, %s, %+.2f%%, interval [%+.1f, %+.1f]%%)\n",
		b.Verdict, b.Mode, fracList(r.Engines, b.Fracs), b.GainPct, b.GainLoPct, b.GainHiPct)
	var busy []string
	for i, t := range b.EngineS {
		busy = append(busy, fmt.Sprintf("%s %.2f s", r.Engines[i], t))
	}
	fmt.Fprintf(w, "why: at the best split the engines are busy in the split ops for %s; native is %s DRAM-stalled with bursts peaking at %s of sustained bandwidth, the split %s.\n",
		strings.Join(busy, ", "), pct(r.Native.Bound.DRAM), pct(r.Native.DRAMUtilPeak), pct(b.Bound.DRAM))
	if g := r.Sensitivity; g != nil {
		fmt.Fprintf(w, "\nsensitivity: gain over native as %s's effective MUL_MAT_ID throughput (%s, TOPS) and submit latency vary;\n", g.Engine, g.Class)
		fmt.Fprintf(w, "studied: %.3f TOPS, %.0f µs submit. Each cell: best split's gain (%s's share) / gain at the studied best fractions (%s) held fixed; W/P/L by ±1%%.\n\n",
			g.AtTOPS, g.AtSubmitUS, g.Engine, fracList(r.Engines, g.AtFracs))
		k := slices.Index(r.Engines, g.Engine)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "submit µs \\ TOPS")
		for _, t := range g.TOPS {
			fmt.Fprintf(tw, "\t%.3g", t)
		}
		fmt.Fprintf(tw, "\t\n")
		for j, row := range g.Cells {
			fmt.Fprintf(tw, "%.0f", g.SubmitUS[j])
			for _, c := range row {
				fmt.Fprintf(tw, "\t%+.1f%% %s (%.2f) / %+.1f%% %s", c.BestGainPct, c.BestVerdict[:1], c.BestFracs[k], c.FixedGainPct, c.FixedVerdict[:1])
			}
			fmt.Fprintf(tw, "\t\n")
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
		for j := range g.SubmitUS {
			fmt.Fprintf(w, "submit %.0f µs: best split turns WIN %s; at the fixed fractions LOSS->WIN %s\n",
				g.SubmitUS[j], boundaryText(r.BoundaryBest[j]), boundaryText(r.BoundaryFixed[j]))
		}
	}
	return nil
}

func boundaryText(b sim.Boundary) string {
	switch {
	case b.NeverWins:
		return "nowhere in the sweep"
	case b.Lo == 0:
		return fmt.Sprintf("at every swept throughput (from %.3g TOPS)", b.Hi)
	}
	return fmt.Sprintf("between %.3g and %.3g TOPS", b.Lo, b.Hi)
}
