package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/sim"
)

// Table writes the prediction as blsim predict prints it: the plans with
// their t/s, gain, interval and verdict, the balance points, why, and
// what else was asked for (the sweep, the sensitivity grid).
func Table(w io.Writer, p *predict.Prediction) error {
	if p.TwoEngine() {
		return table2(w, p)
	}
	return tableN(w, p)
}

// frac rounds a share for printing, as the tables always have.
func frac(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func pct(x float64) string { return fmt.Sprintf("%.0f%%", 100*x) }

func kindText(k predict.Kind) string { return strings.ReplaceAll(string(k), "_", " ") }

func table2(w io.Writer, p *predict.Prediction) error {
	fmt.Fprintf(w, "%s on %s: %s, %s %d + %s %d threads, poll %d\n\n",
		p.Workload, p.SoC, testText(p), p.Engines[0], p.Threads[0], p.Engines[1], p.Threads[1], p.Poll)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "plan\tfrac\tt/s\tgain\t90%% interval\tverdict\t\n")
	fmt.Fprintf(tw, "native (%s only)\t-\t%.2f\t-\t-\t-\t\n", p.Engines[0], p.Native.TPS)
	for _, s := range p.Plans {
		fmt.Fprintf(tw, "%s split, %s\t%.3f\t%.2f\t%+.2f%%\t[%+.1f, %+.1f]%%\t%s\t\n",
			s.Plan.Mode, kindText(s.Kind), frac(s.Frac()), s.TPS, s.GainPct, s.Interval.LoPct, s.Interval.HiPct, s.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, b := range p.Balances {
		fmt.Fprintln(w, BalanceText(p, b))
	}
	if p.MarginalRatio > 0 {
		fmt.Fprintf(w, "%s marginal compute inside the split ops: %.2fx the %s engine's\n", p.Engines[1], p.MarginalRatio, p.Engines[0])
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	whyHeader(tw)
	whyRow(tw, model.Native.String(), p.Native)
	for _, s := range p.Plans {
		whyRow(tw, fmt.Sprintf("%s %.3f", s.Plan.Mode, frac(s.Frac())), s.Outcome)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, Headline(p))
	fmt.Fprintln(w, Why(p))
	if len(p.Sweep) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "split\tfrac\tt/s\tgain\t\n")
		for _, s := range p.Sweep {
			fmt.Fprintf(tw, "%s\t%.3f\t%.2f\t%+.2f%%\t\n", s.Mode, s.Frac, s.TPS, s.GainPct)
		}
		return tw.Flush()
	}
	return nil
}

// Headline is the verdict line: the verdict on the best plan of all
// modes (predict.Prediction.Best), the plan and its gain with its
// interval.
func Headline(p *predict.Prediction) string {
	b := p.Best
	plan := fmt.Sprintf("%s split at frac %.3f", b.Plan.Mode, frac(b.Frac()))
	if !p.TwoEngine() {
		plan = fmt.Sprintf("%s split, %s", b.Plan.Mode, shares(p.Engines, b.Plan.Fracs))
	}
	if sim.HelpersIdle(b.Plan) {
		plan += ": the dispatcher alone"
	}
	return fmt.Sprintf("verdict: %s (best: %s, %+.2f%%, interval [%+.1f, %+.1f]%%)", b.Verdict, plan, b.GainPct, b.Interval.LoPct, b.Interval.HiPct)
}

// whyHeader starts the why table, with native as its first row.
func whyHeader(tw io.Writer) {
	fmt.Fprintf(tw, "why (share of wall time)\tcompute\tDRAM\tengine cap\thandoff\thandoff s\tDRAM util mean\tpeak\t\n")
}

func whyRow(tw io.Writer, label string, o predict.Outcome) {
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.3f\t%s\t%s\t\n", label, pct(o.Bound.Compute), pct(o.Bound.DRAM),
		pct(o.Bound.EngineCap), pct(o.Bound.Handoff), o.HandoffS, pct(o.DRAMUtilMean), pct(o.DRAMUtilPeak))
}

// Why is the one-line explanation of the best split's gain.
func Why(p *predict.Prediction) string {
	b := p.Best
	if !p.TwoEngine() {
		var busy []string
		for i, t := range b.EngineS {
			busy = append(busy, fmt.Sprintf("%s %.2f s", p.Engines[i], t))
		}
		return fmt.Sprintf("why: at the best split the engines are busy in the split ops for %s; native is %s DRAM-stalled with bursts peaking at %s of sustained bandwidth, the split %s.%s",
			strings.Join(busy, ", "), pct(p.Native.Bound.DRAM), pct(p.Native.DRAMUtilPeak), pct(b.Bound.DRAM), CapText(p))
	}
	var s strings.Builder
	fmt.Fprintf(&s, "why: of the best split's %+.2f%%, %+.2f%% comes with the dispatcher alone (frac 0: handoff saved or paid, not %s compute) and %+.2f%% from %s's share of the work;",
		b.GainPct, p.Why.DispatcherOnlyGainPct, p.Engines[1], p.Why.WorkGainPct, p.Engines[1])
	fmt.Fprintf(&s, " native is %s DRAM-stalled with bursts peaking at %s of sustained bandwidth, and the split spends %s of its time stalled on DRAM.%s",
		pct(p.Native.Bound.DRAM), pct(p.Native.DRAMUtilPeak), pct(b.Bound.DRAM), CapText(p))
	return s.String()
}

// CapText names the stall at the engines' own caps (sim.Bound.EngineCap),
// which more DRAM bandwidth would not shorten, when native or the best
// split spends 0.5% of its time or more there; "" otherwise. Without it a
// cap read as DRAM: "DRAM 43%" beside a DRAM utilisation of 8% (issue 29).
func CapText(p *predict.Prediction) string {
	n, b := p.Native.Bound.EngineCap, p.Best.Bound.EngineCap
	if n < 0.005 && b < 0.005 {
		return ""
	}
	return fmt.Sprintf(" Waiting at the engines' own caps (a cluster's bandwidth_max_gb_s or its threads' streams, below the DRAM's bandwidth: more DRAM would not shorten it): native %s, the split %s.", pct(n), pct(b))
}

// BalanceText is a mode's balance point as the tables print it, or why
// it has none.
func BalanceText(p *predict.Prediction, b predict.Balance) string {
	if b.None != "" {
		return fmt.Sprintf("%s-split balance point: none (%s)", b.Mode, b.None)
	}
	return fmt.Sprintf("%s-split balance point (%s and %s finish the split ops together): frac %.3f", b.Mode, p.Engines[0], p.Engines[1], frac(b.Frac))
}

// shares prints each engine's share: "big 0.700 + npu 0.300".
func shares(names []string, fr []float64) string {
	return model.Plan{Engines: names, Fracs: fr}.Shares()
}

// shareCells are a plan's shares as table cells, to three places.
func shareCells(fr []float64) []string {
	cells := make([]string, len(fr))
	for i, f := range fr {
		cells[i] = fmt.Sprintf("%.3f", frac(f))
	}
	return cells
}

func tableN(w io.Writer, p *predict.Prediction) error {
	var eng []string
	for i, n := range p.Engines {
		eng = append(eng, fmt.Sprintf("%s (%s) %d", n, p.Kinds[i], p.Threads[i]))
	}
	fmt.Fprintf(w, "%s on %s: %s, engines %s threads, poll %d\n\n",
		p.Workload, p.SoC, testText(p), strings.Join(eng, " + "), p.Poll)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "plan\t%s\tt/s\tgain\t90%% interval\tverdict\t\n", strings.Join(p.Engines, "\t"))
	dash := strings.TrimSuffix(strings.Repeat("-\t", len(p.Engines)), "\t")
	fmt.Fprintf(tw, "native (%s only)\t%s\t%.2f\t-\t-\t-\t\n", p.Engines[0], dash, p.Native.TPS)
	for _, s := range p.Plans {
		fmt.Fprintf(tw, "%s split, %s\t%s\t%.2f\t%+.2f%%\t[%+.1f, %+.1f]%%\t%s\t\n",
			s.Plan.Mode, kindText(s.Kind), strings.Join(shareCells(s.Plan.Fracs), "\t"), s.TPS, s.GainPct, s.Interval.LoPct, s.Interval.HiPct, s.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	whyHeader(tw)
	whyRow(tw, model.Native.String(), p.Native)
	for _, s := range p.Plans {
		whyRow(tw, fmt.Sprintf("%s %s", s.Plan.Mode, kindText(s.Kind)), s.Outcome)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, Headline(p))
	fmt.Fprintln(w, Why(p))
	if g := p.Sensitivity; g != nil {
		return sensitivity(w, p, g)
	}
	return nil
}

func sensitivity(w io.Writer, p *predict.Prediction, g *sim.SensitivityGrid) error {
	fmt.Fprintf(w, "\nsensitivity: gain over native as %s's effective MUL_MAT_ID throughput (%s, TOPS) and submit latency vary;\n", g.Engine, g.Class)
	fmt.Fprintf(w, "studied: %.3f TOPS, %.0f µs submit. Each cell: best split's gain (%s's share) / gain at the studied best fractions (%s) held fixed;\nW/A/P/L: WIN, ALONE, PARITY, LOSS by the one verdict rule, with the studied best split's interval moved to each cell's gain.\n\n",
		g.AtTOPS, g.AtSubmitUS, g.Engine, shares(p.Engines, g.AtFracs))
	k := slices.Index(p.Engines, g.Engine)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
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
			g.SubmitUS[j], BoundaryText(p.BoundaryBest[j]), BoundaryText(p.BoundaryFixed[j]))
	}
	return nil
}

// BoundaryText says where a verdict turns WIN, in words.
func BoundaryText(b sim.Boundary) string {
	switch {
	case b.NeverWins:
		return "nowhere in the sweep"
	case b.LoTOPS == 0:
		return fmt.Sprintf("at every swept throughput (from %.3g TOPS)", b.HiTOPS)
	}
	return fmt.Sprintf("between %.3g and %.3g TOPS", b.LoTOPS, b.HiTOPS)
}

// testText is the test predicted, "pp512 (ubatch 512)" or "tg128", as the
// tables head it; for a test with generated tokens, t/s is llama-bench's
// figure for it.
func testText(p *predict.Prediction) string {
	name := p.Test
	if name == "" {
		name = fmt.Sprintf("pp%d", p.Prompt)
	}
	if p.Prompt == 0 {
		return name
	}
	return fmt.Sprintf("%s (ubatch %d)", name, p.Ubatch)
}

// tpsCell is a thread sweep's t/s to two decimals, or none for a phase the
// row does not run (the split rows: one phase each).
func tpsCell(v float64, none string) string {
	if v == 0 {
		return none
	}
	return fmt.Sprintf("%.2f", v)
}

// ThreadsTable writes a thread sweep: pp and tg t/s per pool, the split
// dispatcher beside them, and the -t and --cpu-mask to use for each phase.
func ThreadsTable(w io.Writer, t *predict.ThreadsSweep) error {
	fmt.Fprintf(w, "%s on %s%s: one llama.cpp thread pool per row (-t, --cpu-mask), %s and %s\n\n", t.Workload, t.SoC, t.BusyText(), t.PP, t.TG)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "cores\t-t\t%s t/s\t%s t/s\t\n", t.PP, t.TG)
	for _, r := range t.Rows {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t\n", r.Mask, r.Threads, tpsCell(r.PPTPS, "-"), tpsCell(r.TGTPS, "-"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, line := range threadsAdvice(t) {
		fmt.Fprintln(w, line)
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

// threadsAdvice is what to run for each phase, one line each: the -t and
// --cpu-mask, its t/s, what the same -t gives unpinned, and every core's
// pool against it; then the decode and batch threads apart, as llama-cli
// and llama-server take them (-t, -tb).
func threadsAdvice(t *predict.ThreadsSweep) []string {
	phase := func(name string, best predict.ThreadsRow, tps float64, unpinned predict.ThreadsRow, utps float64, all predict.Judgement, over *predict.Alternative) string {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s: %.2f t/s", name, best.Flags(t.Placement), tps)
		if over != nil {
			fmt.Fprintf(&b, "; %s over -t %d (%s): %s", judgement(over.Judgement), over.Row.Threads, over.Row.Mask, certainty(best, over))
		}
		if unpinned.Threads > 0 && (best.CPUMask != "" || unpinned.Where() != best.Where()) {
			fmt.Fprintf(&b, "; -t %d alone gives %.2f (%s places %s)", unpinned.Threads, utps, t.Placement, unpinned.Where())
		}
		if best.Mask == t.AllCores.Mask && best.Threads == t.AllCores.Threads {
			fmt.Fprint(&b, "; every core")
		} else {
			fmt.Fprintf(&b, "; every core (-t %d) %s", t.AllCores.Threads, judgement(all))
		}
		return b.String()
	}
	lines := []string{
		phase("prefill:", t.BestPP, t.BestPP.PPTPS, t.UnpinnedPP, t.UnpinnedPP.PPTPS, t.PPAllCores, t.PPOverFirst),
		phase("decode: ", t.BestTG, t.BestTG.TGTPS, t.UnpinnedTG, t.UnpinnedTG.TGTPS, t.TGAllCores, t.TGOverFirst),
		"llama-cli, llama-server: " + apart(t.BestTG, t.Placement, "-t", "-C", "--cpu-strict") + " (decode), " +
			apart(t.BestPP, t.Placement, "-tb", "-Cb", "--cpu-strict-batch") + " (prefill); llama-bench's -t runs both",
	}
	// ggml sets no thread affinity on Android or macOS (model.PlaceAndroid,
	// model.PlaceMacOS): the masks above do nothing there.
	switch t.Placement {
	case model.PlaceAndroid:
		pin := fmt.Sprintf("taskset %s llama-cli -t %d", t.BestTG.CPUMask, t.BestTG.Threads)
		if t.BestTG.CPUMask == "" {
			pin = fmt.Sprintf("taskset MASK llama-cli -t %d, MASK the CPUs of %s", t.BestTG.Threads, strings.Join(t.BestTG.Plan.Engines, " and "))
		}
		lines = append(lines, "android: ggml sets no thread affinity there, so -C and --cpu-strict do nothing; pin the process for decode instead: "+pin)
	case model.PlaceMacOS:
		lines = append(lines, "macos: no thread affinity there, so -C and --cpu-strict do nothing; what -t N alone gives is what runs")
	}
	return lines
}

// certainty says whether the recommendation's gain over the first
// cluster's best pool is sure, by the verdict rule (sim.Judge): a WIN is
// sure; a gain within 1% leaves either pool as good; otherwise the
// interval includes 0 and the user should measure both.
func certainty(best predict.ThreadsRow, over *predict.Alternative) string {
	switch {
	case over.Sure():
		return "sure"
	case over.GainPct <= 1:
		return "within 1%, either will do"
	}
	return fmt.Sprintf("not sure, the interval includes 0: measure -t %d and -t %d", over.Row.Threads, best.Threads)
}

// apart is a pool row as llama-cli's flags of one phase: "-tb 8 -Cb 0xff
// --cpu-strict-batch 1", or "-t 4 on big's cores" without CPU ids, or
// "-tb 8" alone where the policy's masks do nothing (model.Placement.Pins).
func apart(r predict.ThreadsRow, pol model.Placement, threads, mask, strict string) string {
	if !pol.Pins() {
		return fmt.Sprintf("%s %d", threads, r.Threads)
	}
	if r.CPUMask != "" {
		return fmt.Sprintf("%s %d %s %s %s 1", threads, r.Threads, mask, r.CPUMask, strict)
	}
	return fmt.Sprintf("%s %d on %s's cores", threads, r.Threads, strings.Join(r.Plan.Engines, " and "))
}

// judgement is a gain as the tables print it: "-12.9% [-14.0, -11.8]% LOSS".
func judgement(j predict.Judgement) string {
	return fmt.Sprintf("%+.1f%% [%+.1f, %+.1f]%% %s", j.GainPct, j.Interval.LoPct, j.Interval.HiPct, j.Verdict)
}
