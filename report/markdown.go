package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/sim"
)

// Data is everything report.md is written from: one prediction and the
// views next to it.
type Data struct {
	Prediction *predict.Prediction
	// Poll0 is the requested token split at poll 0, beside native and the
	// dispatcher alone at poll 0 (the seed's poll-0 artefact), or nil.
	Poll0 *predict.Poll0Split
	// SoC is the profile predicted on, for its parameter table.
	SoC *model.SoC
	// Workload is the workload predicted.
	Workload *model.Workload
	// WhatIf is the heatmap's grid, or nil.
	WhatIf *predict.WhatIf
	// Threads is stock llama.cpp's thread sweep for prefill and decode
	// (predict.Threads), or nil; NoThreads says why there is none.
	Threads   *predict.ThreadsSweep
	NoThreads string
	// Parity is measured against predicted, or nil; ParitySource names
	// the measurements, Sources their "source" knobs.
	Parity       []predict.ParityPoint
	ParitySource string
	Sources      []string
	// Measured are the measurements on the split curve's plans (its
	// figure's points), or nil.
	Measured []predict.SplitPoint
	// Seed is set when the SoC is the seed's (rk3588): its poll-0 figure
	// is then named.
	Seed bool
	// Figures are the figure files next to report.md, in order.
	Figures []string
	// Drawn is the plan the timeline and roofline draw: the requested
	// split or the best.
	Drawn predict.Kind
	// Command, Version and Date end the verdict: the exact command line,
	// blsim's version and the day it ran (left out when empty).
	Command, Version, Date string
}

// Markdown writes report.md.
func Markdown(w io.Writer, d *Data) error {
	p := d.Prediction
	if p == nil || d.SoC == nil || d.Workload == nil {
		return fmt.Errorf("report: no prediction, SoC or workload to write")
	}
	var b strings.Builder
	if p.TwoEngine() {
		fmt.Fprintf(&b, "# %s on %s: big+little MoE-%s split — %s\n\n", p.Workload, p.SoC, phase(p), verdictWords(p.Best.Verdict))
	} else {
		fmt.Fprintf(&b, "# %s on %s: %s MoE-%s split — %s\n\n", p.Workload, p.SoC, strings.Join(p.Engines, "+"), phase(p), verdictWords(p.Best.Verdict))
	}
	fmt.Fprintf(&b, "## Verdict\n\n%s\n\n", Verdict(d))
	fmt.Fprintf(&b, "## Why\n\n")
	for _, s := range details(d) {
		fmt.Fprintf(&b, "- %s\n", s)
	}
	b.WriteString("\n")
	prediction(&b, p)
	threadsSection(&b, d)
	if d.Parity != nil {
		parity(&b, d)
	}
	figures(&b, d)
	profile(&b, d.SoC, d.Workload, p.Method, p.Draws)
	_, err := io.WriteString(w, b.String())
	return err
}

// phase names what the test runs: prefill (pp), decode (tg) or
// prefill+decode (pp+tg).
func phase(p *predict.Prediction) string {
	switch {
	case p.Gen == 0:
		return "prefill"
	case p.Prompt == 0:
		return "decode"
	}
	return "prefill+decode"
}

// run describes the run predicted: "pp512 (ubatch 512), big 4 + little 4
// threads, poll 50".
func run(p *predict.Prediction) string {
	eng := make([]string, len(p.Engines))
	for i, n := range p.Engines {
		eng[i] = fmt.Sprintf("%s %d", n, p.Threads[i])
	}
	return fmt.Sprintf("%s, %s threads, poll %d", testText(p), strings.Join(eng, " + "), p.Poll)
}

// Verdict is the short verdict paragraph, in plain words: what to do,
// by how much, how sure, and the command that produced it.
func Verdict(d *Data) string {
	p := d.Prediction
	b := p.Best
	helpers := strings.Join(p.Engines[1:], " and ")
	var s strings.Builder
	fmt.Fprintf(&s, "**%s.** ", b.Verdict)
	gain := fmt.Sprintf("%+.2f%% (90%% interval [%+.1f, %+.1f]%%)", b.GainPct, b.Interval.LoPct, b.Interval.HiPct)
	none := sim.HelpersIdle(b.Plan) // the best split gives the helpers nothing: the dispatcher alone
	switch {
	case b.Verdict == sim.Alone:
		fmt.Fprintf(&s, "Run the split dispatcher, but give %s none of the routed-expert ops: its best split (%s, %s) runs %s at %.2f t/s, %s faster than %s alone at %.2f t/s, which is the dispatcher's own gain, not %s's compute.",
			helpers, b.Plan.Mode, shares(p.Engines, b.Plan.Fracs), p.Workload, b.TPS, gain, p.Engines[0], p.Native.TPS, helpers)
	case b.Verdict == sim.Win:
		fmt.Fprintf(&s, "Give %s a share of the routed-expert ops: the best split (%s, %s) runs %s at %.2f t/s, %s faster than %s alone at %.2f t/s.",
			helpers, b.Plan.Mode, shares(p.Engines, b.Plan.Fracs), p.Workload, b.TPS, gain, p.Engines[0], p.Native.TPS)
	case b.Verdict == sim.Parity:
		fmt.Fprintf(&s, "Giving %s a share of the routed-expert ops does not pay in a way the model can tell from zero: the best split (%s, %s) gives %s over %s alone at %.2f t/s.",
			helpers, b.Plan.Mode, shares(p.Engines, b.Plan.Fracs), gain, p.Engines[0], p.Native.TPS)
	default:
		fmt.Fprintf(&s, "Keep the work on %s: even the best split (%s, %s) loses, %s against %.2f t/s native.",
			p.Engines[0], b.Plan.Mode, shares(p.Engines, b.Plan.Fracs), gain, p.Native.TPS)
	}
	if p.TwoEngine() && !none && math.Abs(p.Why.DispatcherOnlyGainPct) >= 0.5*math.Abs(b.GainPct) && b.GainPct != 0 {
		fmt.Fprintf(&s, " Most of that (%+.2f%%) comes with the split dispatcher alone, not from %s's compute.", p.Why.DispatcherOnlyGainPct, helpers)
	}
	fmt.Fprintf(&s, " Predicted for %s.", run(p))
	if d.Command != "" || d.Version != "" || d.Date != "" {
		end := strings.TrimSpace(d.Version)
		if d.Date != "" {
			end += ", " + d.Date
		}
		fmt.Fprintf(&s, "\n\n`%s` — %s.", d.Command, end)
	}
	return s.String()
}

// verdictWords is a verdict as a title says it: ALONE with what it
// means.
func verdictWords(v sim.Verdict) string {
	if v == sim.Alone {
		return "ALONE (the split dispatcher alone, no helper work)"
	}
	return string(v)
}

// details are the numbers behind the verdict, one sentence each.
func details(d *Data) []string {
	p := d.Prediction
	b := p.Best
	var out []string
	if p.TwoEngine() {
		big, little := p.Engines[0], p.Engines[1]
		for _, m := range p.Modes() {
			if r, ok := p.Plan(m, predict.Requested); ok {
				out = append(out, fmt.Sprintf("The requested %s split at frac %.2f runs at %.2f t/s (%+.2f%%, [%+.1f, %+.1f]%%: %s).",
					m, frac(r.Frac()), r.TPS, r.GainPct, r.Interval.LoPct, r.Interval.HiPct, r.Verdict))
			}
		}
		if bal, ok := p.Balance(model.TokenSplit); ok {
			out = append(out, fmt.Sprintf("The token split balances at frac %.3f (%s and %s finish the split ops together), so the split works at the op level.", frac(bal), big, little))
		}
		if p.MarginalRatio > 0 {
			out = append(out, fmt.Sprintf("Inside the split ops %s's marginal compute is %.2fx %s's.", little, p.MarginalRatio, big))
		}
		out = append(out, fmt.Sprintf("Of the best split's %+.2f%%, the dispatcher alone (frac 0, no %s work) accounts for %+.2f%% and %s's share of the work for %+.2f%%.",
			b.GainPct, little, p.Why.DispatcherOnlyGainPct, little, p.Why.WorkGainPct))
	} else {
		helpers := strings.Join(p.Engines[1:], " and ")
		out = append(out, fmt.Sprintf("Of the best split's %+.2f%%, the dispatcher alone (every share on %s, no %s work) accounts for %+.2f%%.",
			b.GainPct, p.Engines[0], helpers, p.Why.DispatcherOnlyGainPct))
		var busy []string
		for i, t := range b.EngineS {
			busy = append(busy, fmt.Sprintf("%s %.2f s", p.Engines[i], t))
		}
		out = append(out, fmt.Sprintf("At the best split the engines are busy in the split ops for %s.", strings.Join(busy, ", ")))
	}
	out = append(out, fmt.Sprintf("Native %s is %s DRAM-stalled with bursts peaking at %s of sustained DRAM bandwidth; the best split is %s stalled, peaking at %s.%s",
		phase(p), pct(p.Native.Bound.DRAM), pct(p.Native.DRAMUtilPeak), pct(b.Bound.DRAM), pct(b.DRAMUtilPeak), CapText(p)))
	if q := d.Poll0; q != nil && p.TwoEngine() {
		s := fmt.Sprintf("At poll 0 the model predicts native %.2f t/s and the token split at frac %.2f %.2f t/s (%+.2f t/s, %+.2f%%), but the dispatcher alone at frac 0 already gives %+.2f t/s: a poll-0 gain is the futex handoff and sleep exit the native run pays, not %s compute",
			q.NativeTPS, frac(q.Frac), q.TPS, q.TPS-q.NativeTPS, q.GainPct, q.AloneTPS-q.NativeTPS, p.Engines[1])
		if d.Seed {
			s += " — the seed's poll=0 \"+1 t/s\", which the seed reports without absolute figures, so it is not among the measurements"
		}
		out = append(out, s+".")
	}
	if d.Parity != nil {
		out = append(out, fmt.Sprintf("Against %d measured configurations (%s): %s.",
			len(d.Parity), sourceText(d), predict.ParityLabel(d.Parity)))
	}
	if d.WhatIf != nil {
		if s := whatWouldPay(p, d.WhatIf); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func sourceText(d *Data) string {
	if len(d.Sources) > 0 {
		return strings.Join(d.Sources, ", ")
	}
	return d.ParitySource
}

// whatWouldPay reads the what-if grid: for DRAM by compute ratio, the row
// nearest the studied ratio and the bandwidth from which the best split's
// verdict is WIN (the one rule, as the table's); for an accelerator, the
// throughput and submit latency from which it is.
func whatWouldPay(p *predict.Prediction, d *predict.WhatIf) string {
	if len(d.X) == 0 || len(d.Y) == 0 || len(d.Verdict) != len(d.Y) {
		return ""
	}
	switch d.XParam {
	case predict.ParamDRAM:
	case predict.ParamAccelTOPS:
		return whatWouldPayAccel(d)
	default:
		return ""
	}
	j := 0
	for k := range d.Y {
		if math.Abs(d.Y[k]-d.AtY) < math.Abs(d.Y[j]-d.AtY) {
			j = k
		}
	}
	for i := range d.Gain[j] {
		all := true
		for _, v := range d.Verdict[j][i:] {
			all = all && v == sim.Win
		}
		if all {
			return fmt.Sprintf("In the what-if heatmap's row nearest this SoC's %s/%s compute ratio (row %.2f, this SoC %.2f), the best split is a WIN from about %.0f GB/s of sustained DRAM bandwidth, the cluster caps scaled with it (this SoC: %.1f GB/s; %+.1f%% at %.0f GB/s).",
				d.Engines[1], d.Engines[0], d.Y[j], d.AtY, d.X[i], d.AtX, d.Gain[j][len(d.X)-1], d.X[len(d.X)-1])
		}
	}
	return fmt.Sprintf("In the what-if heatmap's row nearest this SoC's compute ratio (row %.2f, this SoC %.2f), no DRAM bandwidth up to %.0f GB/s makes the best split a WIN.", d.Y[j], d.AtY, d.X[len(d.X)-1])
}

func whatWouldPayAccel(d *predict.WhatIf) string {
	near := func(vs []float64, at float64) int {
		k := 0
		for i := range vs {
			if math.Abs(math.Log(vs[i]/at)) < math.Abs(math.Log(vs[k]/at)) {
				k = i
			}
		}
		return k
	}
	j, i := near(d.Y, d.AtY), near(d.X, d.AtX)
	accel := strings.TrimSuffix(strings.TrimPrefix(d.YParam, "engines."), ".submit_us")
	var s strings.Builder
	from := -1
	for k := len(d.X) - 1; k >= 0 && d.Verdict[j][k] == sim.Win; k-- {
		from = k
	}
	if from >= 0 {
		fmt.Fprintf(&s, "In the what-if heatmap's row nearest this SoC's %s submit latency (row %.0f µs, this SoC %.0f µs), the best split is a WIN from about %.3g TOPS of effective %s throughput (this SoC: %.3g TOPS; %+.1f%% at %.3g TOPS).",
			accel, d.Y[j], d.AtY, d.X[from], accel, d.AtX, d.Gain[j][len(d.X)-1], d.X[len(d.X)-1])
	} else {
		fmt.Fprintf(&s, "In the what-if heatmap's row nearest this SoC's %s submit latency (row %.0f µs), no %s throughput up to %.3g TOPS makes the best split a WIN.", accel, d.Y[j], accel, d.X[len(d.X)-1])
	}
	upTo := -1
	for k := 0; k < len(d.Y) && d.Verdict[k][i] == sim.Win; k++ {
		upTo = k
	}
	switch {
	case upTo == len(d.Y)-1:
		fmt.Fprintf(&s, " In its column nearest this SoC's throughput (%.3g TOPS) it does so at every swept submit latency, up to %.0f µs.", d.X[i], d.Y[upTo])
	case upTo >= 0:
		fmt.Fprintf(&s, " In its column nearest this SoC's throughput (%.3g TOPS) it does so up to a submit latency of about %.0f µs (%+.1f%% at %.0f µs).", d.X[i], d.Y[upTo], d.Gain[upTo+1][i], d.Y[upTo+1])
	}
	return s.String()
}

// prediction writes the prediction's tables.
func prediction(w io.Writer, p *predict.Prediction) {
	fmt.Fprintf(w, "## Prediction\n\n")
	if p.TwoEngine() {
		fmt.Fprintf(w, "| plan | frac | t/s | gain | 90%% interval | verdict |\n|---|--:|--:|--:|--:|---|\n")
		fmt.Fprintf(w, "| native (%s only) | – | %.2f | – | – | – |\n", p.Engines[0], p.Native.TPS)
		for _, s := range p.Plans {
			fmt.Fprintf(w, "| %s split, %s | %.3f | %.2f | %+.2f%% | [%+.1f, %+.1f]%% | %s |\n",
				s.Plan.Mode, kindText(s.Kind), frac(s.Frac()), s.TPS, s.GainPct, s.Interval.LoPct, s.Interval.HiPct, s.Verdict)
		}
		fmt.Fprintln(w)
		for _, b := range p.Balances {
			fmt.Fprintf(w, "- %s\n", BalanceText(p, b))
		}
		if p.MarginalRatio > 0 {
			fmt.Fprintf(w, "- %s marginal compute inside the split ops: %.2fx %s's\n", p.Engines[1], p.MarginalRatio, p.Engines[0])
		}
	} else {
		fmt.Fprintf(w, "Each engine's share of the split (routed-expert) ops; the first engine runs everything else.\n\n")
		fmt.Fprintf(w, "| plan | %s | t/s | gain | 90%% interval | verdict |\n|---|%s--:|--:|--:|---|\n", strings.Join(p.Engines, " share | ")+" share", strings.Repeat("--:|", len(p.Engines)))
		fmt.Fprintf(w, "| native (%s only) |%s %.2f | – | – | – |\n", p.Engines[0], strings.Repeat(" – |", len(p.Engines)), p.Native.TPS)
		for _, s := range p.Plans {
			fmt.Fprintf(w, "| %s split, %s | %s | %.2f | %+.2f%% | [%+.1f, %+.1f]%% | %s |\n",
				s.Plan.Mode, kindText(s.Kind), strings.Join(shareCells(s.Plan.Fracs), " | "), s.TPS, s.GainPct, s.Interval.LoPct, s.Interval.HiPct, s.Verdict)
		}
	}
	fmt.Fprintf(w, "\n| why (share of wall time) | compute | DRAM | engine cap | handoff | handoff s | DRAM util mean | peak |\n|---|--:|--:|--:|--:|--:|--:|--:|\n")
	row := func(label string, o predict.Outcome) {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %.3f | %s | %s |\n", label, pct(o.Bound.Compute), pct(o.Bound.DRAM),
			pct(o.Bound.EngineCap), pct(o.Bound.Handoff), o.HandoffS, pct(o.DRAMUtilMean), pct(o.DRAMUtilPeak))
	}
	row(model.Native.String(), p.Native)
	for _, s := range p.Plans {
		if p.TwoEngine() {
			row(fmt.Sprintf("%s %.3f", s.Plan.Mode, frac(s.Frac())), s.Outcome)
		} else {
			row(fmt.Sprintf("%s %s", s.Plan.Mode, kindText(s.Kind)), s.Outcome)
		}
	}
	fmt.Fprintln(w)
}

// threadsSection writes the "Threads and decode" section: stock
// llama.cpp's one thread pool at each -t and --cpu-mask, for prefill and
// decode, beside the split dispatcher, and what to run for each.
func threadsSection(w io.Writer, d *Data) {
	t := d.Threads
	if t == nil {
		if d.NoThreads != "" {
			fmt.Fprintf(w, "## Threads and decode\n\nNo thread sweep: %s.\n\n", d.NoThreads)
		}
		return
	}
	fmt.Fprintf(w, "## Threads and decode\n\n")
	fmt.Fprintf(w, "Stock llama.cpp runs one thread pool: every op divided among all its threads, a barrier after each. Each row is one pool (`-t`, `--cpu-mask`) at %s and %s; the split row is the split dispatcher's best plan for each phase.\n\n", t.PP, t.TG)
	fmt.Fprintf(w, "| cores | -t | --cpu-mask | %s t/s | %s t/s |\n|---|--:|---|--:|--:|\n", t.PP, t.TG)
	for _, r := range t.Rows {
		mask := r.CPUMask
		if mask == "" {
			mask = "–"
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s |\n", r.Mask, r.Threads, mask, tpsCell(r.PPTPS, "–"), tpsCell(r.TGTPS, "–"))
	}
	fmt.Fprintln(w)
	for _, line := range threadsAdvice(t) {
		fmt.Fprintf(w, "- %s\n", strings.Join(strings.Fields(line), " "))
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "- note: %s\n", n)
	}
	fmt.Fprintln(w)
}

func parity(w io.Writer, d *Data) {
	fmt.Fprintf(w, "## Measured vs predicted\n\nMeasurements: %s", d.ParitySource)
	if len(d.Sources) > 0 {
		fmt.Fprintf(w, " (source: %s)", strings.Join(d.Sources, ", "))
	}
	fmt.Fprintf(w, ". Predictions are the plain simulation of each measurement's plan on this profile.\n\n")
	fmt.Fprintf(w, "| configuration | measured t/s | ± σ | predicted t/s | error |\n|---|--:|--:|--:|--:|\n")
	for _, pt := range d.Parity {
		sd := "–"
		if pt.MeasuredErr > 0 {
			sd = fmt.Sprintf("%.2f", pt.MeasuredErr)
		}
		fmt.Fprintf(w, "| %s | %.2f | %s | %.2f | %+.2f%% |\n", pt.Label, pt.Measured, sd, pt.Predicted, measure.ErrPct(pt.Predicted, pt.Measured))
	}
	fmt.Fprintf(w, "\nN = %d, %s.\n\n", len(d.Parity), predict.ParityLabel(d.Parity))
}

// Captions are the figures' captions in report.md.
var captions = map[string]string{
	"split.png":    "Prompt throughput against the second engine's share, token and expert splits, with native, the balance points and each mode's best split (the ▲).",
	"timeline.png": "The first layers of ubatch 0 at the %s split: what each engine does, and DRAM utilisation.",
	"heatmap.png":  "What-if: the best split's gain over native across DRAM bandwidth (the cluster caps scaled with it) and the little/big compute ratio, with the verdict's boundaries (the table's rule, with its interval moved to each cell); the ring is this SoC's best split from the table above.",
	"parity.png":   "Predicted against measured throughput, with the ±5% band.",
	"threads.png":  "Stock llama.cpp's thread pool: prefill and decode t/s against -t, one line per set of clusters, the recommended -t ringed (the table in Threads and decode).",
	"roofline.png": "Each engine's compute and bandwidth roofs, with the ops of ubatch 0 at the %s split (the first engine's from a native run), at their arithmetic intensity and simulated rate.",
}

func figures(w io.Writer, d *Data) {
	p := d.Prediction
	fmt.Fprintf(w, "## Figures\n\n")
	for _, name := range d.Figures {
		caption := captions[name]
		switch name {
		case "split.png":
			if p.Gen > 0 {
				caption = strings.Replace(caption, "Prompt throughput", p.Test+" throughput", 1)
			}
		case "timeline.png", "roofline.png":
			caption = fmt.Sprintf(caption, strings.ReplaceAll(string(d.Drawn), "_", " "))
		case "heatmap.png":
			if h := d.WhatIf; h != nil && !p.TwoEngine() {
				caption = fmt.Sprintf("What-if: the best %s split's gain over native (sim.BestN over %s); x: %s; y: %s; with the verdict's boundaries (the table's rule, with its interval moved to each cell); the ring is this SoC's best split from the table above.",
					h.Mode, strings.Join(h.Engines, "+"), h.XLabel, h.YLabel)
			}
		}
		fmt.Fprintf(w, "![%s](%s)\n\n%s\n\n", strings.TrimSuffix(name, ".png"), name, caption)
	}
	if !p.TwoEngine() {
		fmt.Fprintf(w, "The split curve sweeps one share between two CPU engines; a report without --engines draws it.\n\n")
	}
}

func profile(w io.Writer, s *model.SoC, wl *model.Workload, method sim.IntervalMethod, draws int) {
	fmt.Fprintf(w, "## Profile: %s\n\n", s.Name)
	if s.Description != "" {
		fmt.Fprintf(w, "%s\n\n", s.Description)
	}
	paths := []string{"dram.peak_gb_s", "dram.sustained_gb_s"}
	class := sim.ExpertClass(wl)
	for _, e := range s.Engines {
		pre := "engines." + e.Name + "."
		paths = append(paths, pre+"cores", pre+"clock_ghz", pre+"kernel_ops_per_cycle."+string(class), pre+"moe_efficiency", pre+"bandwidth_max_gb_s")
	}
	paths = append(paths, "handoff.futex_wake_us", "handoff.sleep_exit_us", "handoff.spin_window_us_per_poll", "handoff.spawn_us", "handoff.join_us", "handoff.forfeit_pct")
	var extra []string
	for p := range s.Uncertainty {
		if !slices.Contains(paths, p) {
			extra = append(extra, p)
		}
	}
	sort.Strings(extra)
	paths = append(paths, extra...)
	fmt.Fprintf(w, "| parameter | value | ± σ |\n|---|--:|--:|\n")
	for _, p := range paths {
		v, err := s.Get(p)
		if err != nil {
			continue
		}
		sd := "–"
		if u, ok := s.Uncertainty[p]; ok {
			sd = fmt.Sprintf("%.3g", u)
		}
		fmt.Fprintf(w, "| `%s` | %.4g | %s |\n", p, v, sd)
	}
	fmt.Fprintln(w)
	if pv := s.Provenance; pv != nil {
		fmt.Fprintf(w, "Provenance: source %s", pv.Source)
		for _, kv := range [][2]string{{"host", pv.Host}, {"cpu", pv.CPU}, {"kernel", pv.Kernel}, {"date", pv.Date}} {
			if kv[1] != "" {
				fmt.Fprintf(w, ", %s %s", kv[0], kv[1])
			}
		}
		if pv.Runs > 0 {
			fmt.Fprintf(w, ", %d runs", pv.Runs)
		}
		if pv.Residual > 0 {
			fmt.Fprintf(w, ", residual %.2f%% RMS", pv.Residual)
		}
		fmt.Fprintln(w, ".")
		for _, n := range pv.Notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "Provenance: not recorded in the profile.\n\n")
	}
	switch method {
	case sim.FirstOrder:
		fmt.Fprintf(w, "σ is the profile's uncertainty (one standard deviation); the 90%% intervals above are first-order: each plan is run with each uncertain parameter at +σ and at −σ (%d runs), and each parameter's larger move of the gain either way adds in quadrature, times 1.645; it ignores how the parameters interact.\n", draws)
	case sim.MonteCarlo:
		fmt.Fprintf(w, "σ is the profile's uncertainty (one standard deviation); the 90%% intervals above sample it (Monte Carlo, %d draws).\n", draws)
	default:
		fmt.Fprintf(w, "The profile gives no uncertainty, so each interval is its point.\n")
	}
}
