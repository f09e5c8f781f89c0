package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/blsim/blsim/calibrate/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/plots"
	"github.com/blsim/blsim/sim"
	"github.com/spf13/cobra"
	"gonum.org/v1/plot/vg"
)

// reportOptions are the flags of `blsim report`.
type reportOptions struct {
	SoC          string
	Workload     string
	Measurements string
	Poll         int
	Frac         float64
	Output       string
	// Engines and Threads, when set, name the split's engines (main
	// first) and their threads, as in blsim predict.
	Engines string
	Threads string
}

// reportFiles are the files a report folder may hold; an existing folder
// with anything else in it is not replaced.
var reportFiles = []string{"report.md", "split.png", "timeline.png", "heatmap.png", "parity.png", "roofline.png"}

func newReportCmd(stdout io.Writer) *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report -o DIR",
		Short: "Write a folder with report.md and its plots, ready for an experiment write-up",
		Long: `Write DIR/report.md: the SoC profile (values ± σ, provenance), the prediction
table (native, token and expert split at --frac and at the best fraction, gain,
90% interval, verdict), a verdict-and-why paragraph with the run's numbers, and
measured against predicted when measurements are given (the rk3588 preset
defaults to the seed experiment's figures). The plots (split curve, timeline,
what-if heatmap, roofline, parity) are PNG files next to it, linked relatively.

The folder is written under a temporary name next to DIR and renamed into
place, so a failed run leaves no partial report. An existing DIR is replaced
only when it holds nothing but a previous report's files.

--engines names the split's engines, main first, as in blsim predict. With
more than two engines, or an accelerator among them (e.g. --soc rk3588-npu
--engines big,npu), the report is of that N-engine split: the prediction
table lists each engine's share at the best split (sim.BestN) with gain,
interval and verdict, and the heatmap is the N-engine one (for an
accelerator: its effective TOPS by its submit latency). The split curve,
timeline and roofline cover the first two engines only and are left out.`,
		Example: `  blsim report -o report
  blsim report --soc ddr5 -o ddr5-report
  blsim report --soc my-board.yaml --measurements runs.jsonl -o board-report
  blsim report --soc rk3588-npu --engines big,npu -o npu-report`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return reportRun(o, stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.SoC, "soc", "rk3588", "SoC profile: a preset name or a YAML file")
	f.StringVar(&o.Workload, "workload", "qwen3.5-35b-a3b", "workload: a preset name or a YAML file")
	f.StringVar(&o.Measurements, "measurements", "", "measurements file (JSONL) for the parity plot (default for rk3588: the seed's figures)")
	f.IntVar(&o.Poll, "poll", 50, "spin level of the pools, 0..100 (ggml --poll)")
	f.Float64Var(&o.Frac, "frac", 0.12, "the little engine's share for the requested split, 0..1")
	f.StringVarP(&o.Output, "output", "o", "", "output folder (required)")
	f.StringVar(&o.Engines, "engines", "", "engines of the split, main first, comma-separated (default: the SoC's first two)")
	f.StringVar(&o.Threads, "threads", "", "with --engines: threads per engine, comma-separated (default: 4, then min(4, cores))")
	return cmd
}

func reportRun(o *reportOptions, stdout io.Writer) (err error) {
	if o.Output == "" {
		return errors.New("report: -o DIR is required")
	}
	if !(o.Frac >= 0 && o.Frac <= 1) {
		return fmt.Errorf("--frac: %g is outside [0,1]", o.Frac)
	}
	out := filepath.Clean(o.Output)
	if err := checkReplaceable(out); err != nil {
		return err
	}
	po := &predictOptions{SoC: o.SoC, Workload: o.Workload, Split: "both", Frac: fmt.Sprint(o.Frac), Poll: o.Poll,
		BigThreads: 4, LittleThreads: 4, Draws: sim.DefaultDraws}
	if o.Engines != "" {
		po.Engines, po.Threads, po.LittleThreads = o.Engines, o.Threads, 0
	} else if o.Threads != "" {
		return errors.New("--threads: needs --engines")
	}
	in, err := po.resolve()
	if err != nil {
		return err
	}
	if in.nway {
		// The shares are found, not requested.
		po.Frac, in.fracs = "auto", nil
	} else if in.engines != nil && (in.engines[0] != in.soc.Engines[0].Name || in.engines[1] != in.soc.Engines[1].Name) {
		return fmt.Errorf("--engines: %s are two CPU clusters other than %s's first two (%s, %s); the report's two-engine figures cover only those (blsim predict --engines %s predicts the split)",
			o.Engines, in.soc.Name, in.soc.Engines[0].Name, in.soc.Engines[1].Name, o.Engines)
	}
	s, wl := in.soc, in.wl
	// Measurements first: a mismatch is an input error, found before any
	// work.
	var ms []measure.Measurement
	var msrc string
	if o.Measurements != "" || o.SoC == seedSoC {
		if ms, msrc, err = loadMeasurements(o.Measurements, o.SoC, s, wl); err != nil {
			return err
		}
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	r := &reportData{opts: o, soc: s, wl: wl, in: in}
	if in.nway {
		if err := r.runN(po, tmp, ms, msrc); err != nil {
			return err
		}
		return finishReport(r, tmp, out, stdout)
	}
	if r.pred, err = predict(in, po); err != nil {
		return err
	}
	// The seed's poll-0 artefact: the same token split at poll 0.
	if o.Poll != 0 {
		p0 := *po
		p0.Poll, p0.Split, p0.Draws = 0, "token", 16
		in0, err := p0.resolve()
		if err != nil {
			return err
		}
		if r.poll0, err = predict(in0, &p0); err != nil {
			return err
		}
	}
	save := func(name string, fig *plots.Figure, w, h vg.Length) error {
		if err := plots.Save(fig, filepath.Join(tmp, name), w, h); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		r.figures = append(r.figures, name)
		return nil
	}
	sd, err := plots.SweepSplit(s, wl, plots.SplitOptions{Poll: o.Poll})
	if err != nil {
		return err
	}
	fig, err := plots.SplitCurve(sd)
	if err != nil {
		return err
	}
	if err := save("split.png", fig, 6.5*vg.Inch, 4.5*vg.Inch); err != nil {
		return err
	}
	td, err := plots.SimTimeline(s, wl, plots.TimelineOptions{Frac: o.Frac, Poll: o.Poll, Layers: 2})
	if err != nil {
		return err
	}
	if fig, err = plots.Timeline(td); err != nil {
		return err
	}
	if err := save("timeline.png", fig, 9*vg.Inch, 5*vg.Inch); err != nil {
		return err
	}
	if r.heat, err = plots.SweepHeatmap(s, wl, plots.HeatmapOptions{Poll: o.Poll}); err != nil {
		return err
	}
	if fig, err = plots.Heatmap(r.heat); err != nil {
		return err
	}
	if err := save("heatmap.png", fig, 8*vg.Inch, 6*vg.Inch); err != nil {
		return err
	}
	if ms != nil {
		if r.points, err = plots.ParityPoints(ms, plots.SimPredictor(s, wl)); err != nil {
			return fmt.Errorf("parity: %s: %w", msrc, err)
		}
		r.msrc = msrc
		r.sources = measurementSources(ms)
		if fig, err = plots.Parity(plots.ParityData{SoC: s.Name, Workload: wl.Name, Points: r.points}); err != nil {
			return err
		}
		if err := save("parity.png", fig, 7*vg.Inch, 6*vg.Inch); err != nil {
			return err
		}
	}
	rd, err := plots.SimRoofline(s, wl, plots.RooflineOptions{Frac: o.Frac, Poll: o.Poll})
	if err != nil {
		return err
	}
	if fig, err = plots.Roofline(rd); err != nil {
		return err
	}
	if err := save("roofline.png", fig, 8*vg.Inch, 6*vg.Inch); err != nil {
		return err
	}
	return finishReport(r, tmp, out, stdout)
}

// finishReport writes report.md into tmp and moves tmp into place as out.
func finishReport(r *reportData, tmp, out string, stdout io.Writer) error {
	var md strings.Builder
	if r.predN != nil {
		r.writeN(&md)
	} else {
		r.write(&md)
	}
	if err := os.WriteFile(filepath.Join(tmp, "report.md"), []byte(md.String()), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := replaceDir(tmp, out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(out, "report.md"))
	return nil
}

// checkReplaceable fails unless out does not exist, or is a folder holding
// only a previous report's files.
func checkReplaceable(out string) error {
	st, err := os.Stat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("report: %s exists and is not a folder", out)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, e := range ents {
		if e.IsDir() || !slices.Contains(reportFiles, e.Name()) {
			return fmt.Errorf("report: %s exists and holds %s, which is not a report file; choose another -o", out, e.Name())
		}
	}
	return nil
}

// replaceDir renames the finished folder tmp to out, moving a previous
// report aside first and deleting it only once the new one is in place.
func replaceDir(tmp, out string) error {
	if _, err := os.Stat(out); err == nil {
		old := tmp + ".old"
		if err := os.Rename(out, old); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		if err := os.Rename(tmp, out); err != nil {
			if rerr := os.Rename(old, out); rerr != nil {
				return fmt.Errorf("report: %v (and restoring the previous report: %v)", err, rerr)
			}
			return fmt.Errorf("report: %w", err)
		}
		return os.RemoveAll(old)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

func measurementSources(ms []measure.Measurement) []string {
	set := map[string]bool{}
	for _, m := range ms {
		if src := m.Knobs["source"]; src != "" && plots.IsThroughput(m) {
			set[src] = true
		}
	}
	var out []string
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// reportData is everything report.md is written from.
type reportData struct {
	opts    *reportOptions
	soc     *model.SoC
	wl      *model.Workload
	in      *predictInputs
	pred    *report
	predN   *reportN // the N-engine split's prediction (--engines); pred is then nil
	poll0   *report  // the token split at poll 0; nil when the report is at poll 0
	heat    plots.HeatmapData
	points  []plots.ParityPoint
	msrc    string
	sources []string
	figures []string
}

func (r *reportData) split(mode, kind string) (planOut, bool) {
	return findSplit(r.pred, mode, kind)
}

func findSplit(rep *report, mode, kind string) (planOut, bool) {
	for _, s := range rep.Splits {
		if s.Mode == mode && s.Kind == kind {
			return s, true
		}
	}
	return planOut{}, false
}

func (r *reportData) write(w io.Writer) {
	p := r.pred
	fmt.Fprintf(w, "# %s on %s: big+little MoE-prefill split — %s\n\n", p.Workload, p.SoC, p.Best.Verdict)
	fmt.Fprintf(w, "Generated by `blsim report` from the simulator's predictions: pp%d (ubatch %d), %s %d + %s %d threads, poll %d, requested little fraction %.3f.\n\n",
		p.Prompt, p.Ubatch, p.Engines[0], p.Threads[0], p.Engines[1], p.Threads[1], p.Poll, r.opts.Frac)
	fmt.Fprintf(w, "## Verdict and why\n\n%s\n\n", r.verdict())
	r.writePrediction(w)
	if r.points != nil {
		r.writeParity(w)
	}
	r.writeFigures(w)
	r.writeProfile(w)
}

// verdict is the generated "verdict and why" paragraph, every number from
// the run.
func (r *reportData) verdict() string {
	p := r.pred
	big, little := p.Engines[0], p.Engines[1]
	var b strings.Builder
	req, hasReq := r.split("token", "requested")
	best, _ := r.split("token", "best")
	only, _ := r.split("token", "dispatcher_only")
	fmt.Fprintf(&b, "**%s.** The model predicts native (%s only) at %.2f t/s", p.Best.Verdict, big, p.Native.TPS)
	if hasReq {
		fmt.Fprintf(&b, " and the token split at frac %.2f, poll %d, at %.2f t/s (%+.2f%%, 90%% interval [%+.1f, %+.1f]%%: %s)",
			req.Frac, p.Poll, req.TPS, req.GainPct, req.GainLoPct, req.GainHiPct, req.Verdict)
	}
	fmt.Fprintf(&b, "; the best split is %s at frac %.3f, %+.2f%% [%+.1f, %+.1f]%%. ", p.Best.Mode, p.Best.Frac, p.Best.GainPct, p.Best.GainLoPct, p.Best.GainHiPct)
	switch p.Best.Verdict {
	case "PARITY":
		fmt.Fprintf(&b, "The %s cluster adds no net throughput that the prediction's own uncertainty can tell from zero. ", little)
	case "WIN":
		fmt.Fprintf(&b, "The %s cluster adds throughput beyond the prediction's uncertainty. ", little)
	default:
		fmt.Fprintf(&b, "Splitting costs more than the %s cluster adds. ", little)
	}
	if bal, ok := p.Balance["token"]; ok {
		fmt.Fprintf(&b, "The token split balances at frac %.3f (%s and %s finish the split ops together), so the split works at the op level. ", bal, big, little)
	}
	fmt.Fprintf(&b, "Inside the split ops %s's marginal compute is %.2fx %s's; native prefill is %s DRAM-stalled with bursts peaking at %s of sustained DRAM bandwidth (the best split: %s stalled, peaks %s); and of the best split's %+.2f%% the dispatcher alone (frac 0, no %s work) accounts for %+.2f%%.",
		little, p.LittleMarginal, big, pct(p.Native.Bound.DRAM), pct(p.Native.DRAMUtilPeak), pct(p.Best.Bound.DRAM), pct(p.Best.DRAMUtilPeak),
		best.GainPct, little, only.GainPct)
	if r.poll0 != nil {
		q := r.poll0
		if q0, ok := findSplit(q, "token", "requested"); ok {
			o0, _ := findSplit(q, "token", "dispatcher_only")
			fmt.Fprintf(&b, " At poll 0 the model predicts native %.2f t/s and the token split at frac %.2f %.2f t/s (%+.2f t/s, %+.2f%%), but the dispatcher alone at frac 0 already gives %+.2f t/s: a poll-0 gain is the futex handoff and sleep exit the native run pays, not %s compute",
				q.Native.TPS, q0.Frac, q0.TPS, q0.TPS-q.Native.TPS, q0.GainPct, o0.TPS-q.Native.TPS, little)
			if r.soc.Name == seedSoC {
				b.WriteString(" — the seed's poll=0 \"+1 t/s\", which the seed reports without absolute figures, so it is not among the measurements")
			}
			b.WriteString(".")
		}
	}
	if r.points != nil {
		fmt.Fprintf(&b, " Against %d measured configurations (%s) the prediction's MAPE is %.2f%%.", len(r.points), r.sourceText(), plots.MAPE(r.points))
	}
	if s := r.whatWouldPay(); s != "" {
		b.WriteString(" " + s)
	}
	return b.String()
}

func (r *reportData) sourceText() string {
	if len(r.sources) > 0 {
		return strings.Join(r.sources, ", ")
	}
	return r.msrc
}

// whatWouldPay reads the heatmap's row nearest the studied compute ratio:
// the DRAM bandwidth from which the best split gains more than 1%.
func (r *reportData) whatWouldPay() string {
	d := r.heat
	if d.XParam != plots.ParamDRAM || len(d.Y) == 0 {
		return ""
	}
	j := 0
	for k := range d.Y {
		if math.Abs(d.Y[k]-d.AtY) < math.Abs(d.Y[j]-d.AtY) {
			j = k
		}
	}
	for i, g := range d.Gain[j] {
		if g > 1 {
			all := true
			for _, h := range d.Gain[j][i:] {
				all = all && h > 1
			}
			if all {
				return fmt.Sprintf("In the what-if heatmap's row nearest this SoC's %s/%s compute ratio (row %.2f, this SoC %.2f), the best split gains more than 1%% from about %.0f GB/s of sustained DRAM bandwidth (this SoC: %.1f GB/s; %+.1f%% at %.0f GB/s).",
					r.pred.Engines[1], r.pred.Engines[0], d.Y[j], d.AtY, d.X[i], d.AtX, d.Gain[j][len(d.X)-1], d.X[len(d.X)-1])
			}
		}
	}
	return fmt.Sprintf("In the what-if heatmap's row nearest this SoC's compute ratio (row %.2f, this SoC %.2f), no DRAM bandwidth up to %.0f GB/s makes the best split gain more than 1%%.", d.Y[j], d.AtY, d.X[len(d.X)-1])
}

func (r *reportData) writePrediction(w io.Writer) {
	p := r.pred
	fmt.Fprintf(w, "## Prediction\n\n")
	fmt.Fprintf(w, "| plan | frac | t/s | gain | 90%% interval | verdict |\n|---|--:|--:|--:|--:|---|\n")
	fmt.Fprintf(w, "| native (%s only) | – | %.2f | – | – | – |\n", p.Engines[0], p.Native.TPS)
	for _, s := range p.Splits {
		fmt.Fprintf(w, "| %s split, %s | %.3f | %.2f | %+.2f%% | [%+.1f, %+.1f]%% | %s |\n",
			s.Mode, strings.ReplaceAll(s.Kind, "_", " "), s.Frac, s.TPS, s.GainPct, s.GainLoPct, s.GainHiPct, s.Verdict)
	}
	fmt.Fprintln(w)
	for _, mode := range []string{"token", "expert"} {
		if b, ok := p.Balance[mode]; ok {
			fmt.Fprintf(w, "- %s-split balance point (%s and %s finish the split ops together): frac %.3f\n", mode, p.Engines[0], p.Engines[1], b)
		}
	}
	if p.LittleMarginal > 0 {
		fmt.Fprintf(w, "- %s marginal compute inside the split ops: %.2fx %s's\n", p.Engines[1], p.LittleMarginal, p.Engines[0])
	}
	fmt.Fprintf(w, "\n| why (share of wall time) | compute | DRAM | handoff | handoff s | DRAM util mean | peak |\n|---|--:|--:|--:|--:|--:|--:|\n")
	fmt.Fprintf(w, "| native | %s | %s | %s | %.3f | %s | %s |\n", pct(p.Native.Bound.Compute), pct(p.Native.Bound.DRAM),
		pct(p.Native.Bound.Handoff), p.Native.HandoffS, pct(p.Native.DRAMUtilMean), pct(p.Native.DRAMUtilPeak))
	for _, s := range p.Splits {
		fmt.Fprintf(w, "| %s %.3f | %s | %s | %s | %.3f | %s | %s |\n", s.Mode, s.Frac, pct(s.Bound.Compute), pct(s.Bound.DRAM),
			pct(s.Bound.Handoff), s.HandoffS, pct(s.DRAMUtilMean), pct(s.DRAMUtilPeak))
	}
	fmt.Fprintln(w)
}

func (r *reportData) writeParity(w io.Writer) {
	fmt.Fprintf(w, "## Measured vs predicted\n\nMeasurements: %s", r.msrc)
	if len(r.sources) > 0 {
		fmt.Fprintf(w, " (source: %s)", strings.Join(r.sources, ", "))
	}
	fmt.Fprintf(w, ". Predictions are the plain simulation of each measurement's plan on this profile.\n\n")
	fmt.Fprintf(w, "| configuration | measured t/s | ± σ | predicted t/s | error |\n|---|--:|--:|--:|--:|\n")
	for _, pt := range r.points {
		sd := "–"
		if pt.MeasuredErr > 0 {
			sd = fmt.Sprintf("%.2f", pt.MeasuredErr)
		}
		fmt.Fprintf(w, "| %s | %.2f | %s | %.2f | %+.2f%% |\n", pt.Label, pt.Measured, sd, pt.Predicted, 100*(pt.Predicted/pt.Measured-1))
	}
	fmt.Fprintf(w, "\nN = %d, MAPE %.2f%%.\n\n", len(r.points), plots.MAPE(r.points))
}

var figureCaptions = map[string]string{
	"split.png":    "Prompt throughput against the little cluster's share, token and expert splits, native and the balance points.",
	"timeline.png": "The first layers of ubatch 0 at the requested split: what each engine does, and DRAM utilisation.",
	"heatmap.png":  "What-if: the best token split's gain over native across DRAM bandwidth and the little/big compute ratio, with the parity contour; the ring is this SoC.",
	"parity.png":   "Predicted against measured throughput, with the ±5% band.",
	"roofline.png": "Each engine's compute and bandwidth roofs, with the ops of ubatch 0 at their arithmetic intensity and simulated rate.",
}

func (r *reportData) writeFigures(w io.Writer) {
	fmt.Fprintf(w, "## Figures\n\n")
	for _, name := range r.figures {
		fmt.Fprintf(w, "![%s](%s)\n\n%s\n\n", strings.TrimSuffix(name, ".png"), name, figureCaptions[name])
	}
}

func (r *reportData) writeProfile(w io.Writer) {
	s := r.soc
	fmt.Fprintf(w, "## Profile: %s\n\n", s.Name)
	if s.Description != "" {
		fmt.Fprintf(w, "%s\n\n", s.Description)
	}
	paths := []string{"dram.peak_gb_s", "dram.sustained_gb_s"}
	class := "q4"
	for _, op := range r.wl.Ops(0) {
		if op.Kind == model.ExpertMatmul {
			class = op.Class
			break
		}
	}
	for _, e := range s.Engines {
		pre := "engines." + e.Name + "."
		paths = append(paths, pre+"cores", pre+"clock_ghz", pre+"kernel_ops_per_cycle."+class, pre+"moe_efficiency", pre+"bandwidth_max_gb_s")
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
	fmt.Fprintf(w, "σ is the profile's uncertainty (one standard deviation); the 90%% intervals above sample it (%d draws).\n", sim.DefaultDraws)
}

// runN predicts the N-engine split (--engines with more than two engines
// or an accelerator) and draws its heatmap and, with measurements, the
// parity plot into tmp.
func (r *reportData) runN(po *predictOptions, tmp string, ms []measure.Measurement, msrc string) error {
	s, wl, in := r.soc, r.wl, r.in
	var err error
	if r.predN, err = predictN(in, po); err != nil {
		return err
	}
	mode := model.Mode(r.predN.Best.Mode)
	if r.heat, err = plots.SweepHeatmap(s, wl, plots.HeatmapOptions{Poll: r.opts.Poll, Mode: mode, Engines: in.engines, Threads: in.threads}); err != nil {
		return err
	}
	fig, err := plots.Heatmap(r.heat)
	if err != nil {
		return err
	}
	if err := plots.Save(fig, filepath.Join(tmp, "heatmap.png"), 8*vg.Inch, 6*vg.Inch); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	r.figures = append(r.figures, "heatmap.png")
	if ms != nil {
		if r.points, err = plots.ParityPoints(ms, plots.SimPredictor(s, wl)); err != nil {
			return fmt.Errorf("parity: %s: %w", msrc, err)
		}
		r.msrc = msrc
		r.sources = measurementSources(ms)
		if fig, err = plots.Parity(plots.ParityData{SoC: s.Name, Workload: wl.Name, Points: r.points}); err != nil {
			return err
		}
		if err := plots.Save(fig, filepath.Join(tmp, "parity.png"), 7*vg.Inch, 6*vg.Inch); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		r.figures = append(r.figures, "parity.png")
	}
	return nil
}

// writeN writes report.md for an N-engine split.
func (r *reportData) writeN(w io.Writer) {
	p := r.predN
	fmt.Fprintf(w, "# %s on %s: %s MoE-prefill split — %s\n\n", p.Workload, p.SoC, strings.Join(p.Engines, "+"), p.Best.Verdict)
	var eng []string
	for i, n := range p.Engines {
		eng = append(eng, fmt.Sprintf("%s (%s) %d", n, p.Kinds[i], p.Threads[i]))
	}
	fmt.Fprintf(w, "Generated by `blsim report --soc %s --engines %s` from the simulator's predictions: pp%d (ubatch %d), engines %s threads, poll %d; the shares of the routed-expert ops are the best that sim.BestN finds over these engines.\n\n",
		r.opts.SoC, strings.Join(p.Engines, ","), p.Prompt, p.Ubatch, strings.Join(eng, " + "), p.Poll)
	fmt.Fprintf(w, "## Verdict and why\n\n%s\n\n", r.verdictN())
	r.writePredictionN(w)
	if r.points != nil {
		r.writeParity(w)
	}
	fmt.Fprintf(w, "## Figures\n\n")
	for _, name := range r.figures {
		caption := figureCaptions[name]
		if name == "heatmap.png" {
			d := r.heat
			caption = fmt.Sprintf("What-if: the best %s split's gain over native (sim.BestN over %s); x: %s; y: %s; with the parity contours; the ring is this SoC.",
				d.Mode, strings.Join(d.Engines, "+"), d.XLabel, d.YLabel)
		}
		fmt.Fprintf(w, "![%s](%s)\n\n%s\n\n", strings.TrimSuffix(name, ".png"), name, caption)
	}
	fmt.Fprintf(w, "The split curve, timeline and roofline figures cover splits between %s's first two engines only; `blsim report --soc %s` without --engines draws them.\n\n",
		r.soc.Name, r.opts.SoC)
	r.writeProfile(w)
}

// verdictN is the "verdict and why" paragraph of an N-engine report.
func (r *reportData) verdictN() string {
	p := r.predN
	b := p.Best
	helpers := strings.Join(p.Engines[1:], " and ")
	var s strings.Builder
	fmt.Fprintf(&s, "**%s.** The model predicts native (%s only) at %.2f t/s and the best %s split over %s — %s — at %.2f t/s (%+.2f%%, 90%% interval [%+.1f, %+.1f]%%). ",
		b.Verdict, p.Engines[0], p.Native.TPS, b.Mode, strings.Join(p.Engines, "+"), fracList(p.Engines, b.Fracs), b.TPS, b.GainPct, b.GainLoPct, b.GainHiPct)
	switch b.Verdict {
	case "WIN":
		fmt.Fprintf(&s, "Giving %s a share adds throughput beyond the prediction's uncertainty. ", helpers)
	case "PARITY":
		fmt.Fprintf(&s, "Giving %s a share adds no net throughput that the prediction's own uncertainty can tell from zero. ", helpers)
	default:
		fmt.Fprintf(&s, "Splitting costs more than %s adds. ", helpers)
	}
	for _, o := range p.Splits {
		if o.Mode == b.Mode && o.Kind == "dispatcher_only" {
			fmt.Fprintf(&s, "Of the best split's %+.2f%%, the dispatcher alone (every share on %s, no %s work) accounts for %+.2f%%. ", b.GainPct, p.Engines[0], helpers, o.GainPct)
		}
	}
	var busy []string
	for i, t := range b.EngineS {
		busy = append(busy, fmt.Sprintf("%s %.2f s", p.Engines[i], t))
	}
	fmt.Fprintf(&s, "At the best split the engines are busy in the split ops for %s; native is %s DRAM-stalled with bursts peaking at %s of sustained DRAM bandwidth (the best split: %s stalled, peaks %s).",
		strings.Join(busy, ", "), pct(p.Native.Bound.DRAM), pct(p.Native.DRAMUtilPeak), pct(b.Bound.DRAM), pct(b.DRAMUtilPeak))
	if r.points != nil {
		fmt.Fprintf(&s, " Against %d measured configurations (%s) the prediction's MAPE is %.2f%%.", len(r.points), r.sourceText(), plots.MAPE(r.points))
	}
	if t := r.whatWouldPayN(); t != "" {
		s.WriteString(" " + t)
	}
	return s.String()
}

// whatWouldPayN reads the N-engine heatmap: for an accelerator, the
// throughput from which the best split gains more than 1% at this SoC's
// submit latency, and the submit latency up to which it does at this
// SoC's throughput.
func (r *reportData) whatWouldPayN() string {
	d := r.heat
	if d.XParam != plots.ParamAccelTOPS || len(d.X) == 0 || len(d.Y) == 0 {
		return ""
	}
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
	for k := len(d.X) - 1; k >= 0 && d.Gain[j][k] > 1; k-- {
		from = k
	}
	if from >= 0 {
		fmt.Fprintf(&s, "In the what-if heatmap's row nearest this SoC's %s submit latency (row %.0f µs, this SoC %.0f µs), the best split gains more than 1%% from about %.3g TOPS of effective %s throughput (this SoC: %.3g TOPS; %+.1f%% at %.3g TOPS).",
			accel, d.Y[j], d.AtY, d.X[from], accel, d.AtX, d.Gain[j][len(d.X)-1], d.X[len(d.X)-1])
	} else {
		fmt.Fprintf(&s, "In the what-if heatmap's row nearest this SoC's %s submit latency (row %.0f µs), no %s throughput up to %.3g TOPS makes the best split gain more than 1%%.", accel, d.Y[j], accel, d.X[len(d.X)-1])
	}
	upTo := -1
	for k := 0; k < len(d.Y) && d.Gain[k][i] > 1; k++ {
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

func (r *reportData) writePredictionN(w io.Writer) {
	p := r.predN
	fmt.Fprintf(w, "## Prediction\n\nEach engine's share of the split (routed-expert) ops; the first engine runs everything else.\n\n")
	fmt.Fprintf(w, "| plan | %s | t/s | gain | 90%% interval | verdict |\n|---|%s--:|--:|--:|---|\n", strings.Join(p.Engines, " share | ")+" share", strings.Repeat("--:|", len(p.Engines)))
	fmt.Fprintf(w, "| native (%s only) |%s %.2f | – | – | – |\n", p.Engines[0], strings.Repeat(" – |", len(p.Engines)), p.Native.TPS)
	for _, s := range p.Splits {
		var fs []string
		for _, f := range s.Fracs {
			fs = append(fs, fmt.Sprintf("%.3f", f))
		}
		fmt.Fprintf(w, "| %s split, %s | %s | %.2f | %+.2f%% | [%+.1f, %+.1f]%% | %s |\n",
			s.Mode, strings.ReplaceAll(s.Kind, "_", " "), strings.Join(fs, " | "), s.TPS, s.GainPct, s.GainLoPct, s.GainHiPct, s.Verdict)
	}
	fmt.Fprintf(w, "\n| why (share of wall time) | compute | DRAM | handoff | handoff s | DRAM util mean | peak |\n|---|--:|--:|--:|--:|--:|--:|\n")
	fmt.Fprintf(w, "| native | %s | %s | %s | %.3f | %s | %s |\n", pct(p.Native.Bound.Compute), pct(p.Native.Bound.DRAM),
		pct(p.Native.Bound.Handoff), p.Native.HandoffS, pct(p.Native.DRAMUtilMean), pct(p.Native.DRAMUtilPeak))
	for _, s := range p.Splits {
		fmt.Fprintf(w, "| %s %s | %s | %s | %s | %.3f | %s | %s |\n", s.Mode, strings.ReplaceAll(s.Kind, "_", " "), pct(s.Bound.Compute), pct(s.Bound.DRAM),
			pct(s.Bound.Handoff), s.HandoffS, pct(s.DRAMUtilMean), pct(s.DRAMUtilPeak))
	}
	fmt.Fprintln(w)
}
