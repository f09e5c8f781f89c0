package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

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

// nativeOf is the native run as printed.
func nativeOf(r *sim.Result) nativeOut {
	return nativeOut{TPS: r.TPS, WallS: r.WallS, Bound: r.Bound, DRAMUtilMean: r.DRAMUtilMean,
		DRAMUtilPeak: r.DRAMUtilPeak, HandoffS: r.Bound.Handoff * r.WallS, ExpertOpS: r.ExpertOpS}
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
		Native:  nativeOf(nr),
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
