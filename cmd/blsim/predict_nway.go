package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

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
		Native: nativeOf(nr)}
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
