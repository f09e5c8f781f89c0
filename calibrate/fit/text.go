package fit

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode"
)

// WriteText prints the fit as a table and a summary: the throughputs
// skipped (five at most), the kernel scales of a foreign fit, each
// parameter's prior, fitted value and identification, the error, and a
// note for each parameter the runs do not identify on their own (Note) and
// each of r.Notes.
func (r *Result) WriteText(w io.Writer) error {
	for i, s := range r.Skipped {
		if i == 5 {
			fmt.Fprintf(w, "skipped %d more throughputs the prior cannot run\n", len(r.Skipped)-5)
			break
		}
		fmt.Fprintf(w, "skipped %s (%s): %s\n", s.Label, s.ID, s.Reason)
	}
	if len(r.Disturbed) > 0 {
		fmt.Fprintf(w, "kept out of the fit, disturbed to the end by %s: %s\n", whoDisturbed(r.Disturbed, nil), groupByCPU(r.Disturbed))
	}
	if r.Kernels == KernelsForeign {
		var parts []string
		for _, c := range slices.Sorted(maps.Keys(r.KernelScales)) {
			parts = append(parts, fmt.Sprintf("%s x%.3g", c, r.KernelScales[c]))
		}
		fmt.Fprintf(w, "kernels: the benchmark's own: the prior's rates scaled by the factor per class that fits the runs best (%s), then fitted\n",
			strings.Join(parts, ", "))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "parameter\tprior\tprior from\tfitted\t± σ\tidentifiable\n")
	for _, p := range r.Params {
		id := "yes"
		switch p.Identification {
		case PriorOnly:
			id = "no (prior-led)"
		case Measured:
			id = "measured (no run reaches it)"
		case Coupled:
			id = "only with others"
		case Unpinned:
			id = "weakly (unpinned)"
		case RidesOnPrior:
			id = "no (the prior's ratio to " + p.RidesOn[strings.LastIndex(p.RidesOn, ".")+1:] + ")"
		}
		if p.AtBound != "" {
			id += ", at its " + p.AtBound + " bound"
		}
		if p.SameAs != "" {
			id += " (one with " + p.SameAs + ")"
		}
		fmt.Fprintf(tw, "%s\t%.4g ± %.2g\t%s\t%.4g\t%.2g\t%s\n", p.Path, p.Prior, p.PriorSigma, p.PriorFrom, p.Value, p.Sigma, id)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	outliers := "outliers"
	if r.Downweighted == 1 {
		outliers = "outlier"
	}
	fmt.Fprintf(w, "\n%d throughputs: RMS error %.2f%%, MAPE %.2f%% (%s after %d iterations; %d %s down-weighted)\n",
		len(r.Residuals), r.RMSPct, r.MAPE, words(r.Status), r.Iterations, r.Downweighted, outliers)
	fmt.Fprintln(w, r.preciseLine())
	var prior, moved, unpinned []string
	for _, p := range r.Params {
		if p.SameAs != "" {
			continue // said of the parameter it is one with
		}
		switch p.Identification {
		case PriorOnly:
			prior = append(prior, p.Path)
		case Coupled:
			moved = append(moved, p.Note())
		case Unpinned:
			unpinned = append(unpinned, p.Note())
		}
	}
	if len(prior) > 0 {
		fmt.Fprintf(w, "not identifiable from these runs (their values are the priors'): %s\n", strings.Join(prior, ", "))
	}
	for _, n := range append(moved, unpinned...) {
		fmt.Fprintf(w, "%s\n", n)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

// Note says, for a parameter the runs do not identify on their own, what
// the fit did with it (its Identification): "" for one they identify.
func (p ParamFit) Note() string {
	switch p.Identification {
	case PriorOnly:
		return fmt.Sprintf("%s is not identifiable from these measurements: its value is the prior's", p.Path)
	case Coupled:
		with := strings.Join(p.CoupledWith, ", ")
		if p.Moved() {
			return fmt.Sprintf("%s is not identifiable on its own: moved from %.4g to %.4g together with %s (the runs fix only a combination of them)",
				p.Path, p.Prior, p.Value, with)
		}
		return fmt.Sprintf("%s is not identifiable on its own: the runs fix it only together with %s; its value stayed the prior's %.4g, its σ narrowed from %.2g to %.2g",
			p.Path, with, p.Prior, p.PriorSigma, p.Sigma)
	case Unpinned:
		where := ""
		if p.AtBound != "" {
			where = ", its " + p.AtBound + " bound"
		}
		return fmt.Sprintf("%s is weakly identified: the fit moved it from %.4g to %.4g%s, where no run depends on it any more: the runs pushed it there but do not pin it (σ %.2g, the prior's %.2g)",
			p.Path, p.Prior, p.Value, where, p.Sigma, p.PriorSigma)
	}
	return ""
}

// WriteText prints the validation's MAPE and its top worst configurations
// (top 0: none); stat names the statistic scored. The points the profile
// was fitted on are told apart from the held-out ones.
func (v *Validation) WriteText(w io.Writer, stat Stat, top int) error {
	what := "median of runs"
	if stat == Best {
		what = "best sample"
	}
	for _, line := range v.lines() {
		fmt.Fprintf(w, "%s: %s (%s)\n", v.Mode, line, what)
	}
	// What the runs' own spread explains of the held-out error (of all of
	// it when nothing was fitted on these runs).
	if line := spreadLine(v.HeldOut, v.HeldOut.Values); line != "" && !v.FitUnrecorded {
		fmt.Fprintf(w, "%s: %s\n", v.Mode, line)
	}
	if len(v.Disturbed) > 0 {
		fmt.Fprintf(w, "%s: not scored, disturbed to the end by %s: %s\n", v.Mode, whoDisturbed(v.Disturbed, nil), groupByCPU(v.Disturbed))
	}
	mixed := v.Fitted.N > 0 && v.HeldOut.N > 0
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if mixed {
		fmt.Fprintf(tw, "worst\tset\tmeasured t/s\tpredicted t/s\terror\n")
	} else {
		fmt.Fprintf(tw, "worst\tmeasured t/s\tpredicted t/s\terror\n")
	}
	for i, r := range v.Worst {
		if i == top {
			break
		}
		set := ""
		if mixed {
			set = "held out\t"
			if r.InFit {
				set = "fitted\t"
			}
		}
		fmt.Fprintf(tw, "%s (%s)\t%s%.3f\t%.3f\t%+.2f%%\n", r.Label, r.ID, set, r.Measured, r.Predicted, r.ErrPct)
	}
	return tw.Flush()
}

// lines says, for each group of the validation's points, how many and
// what they are, with their MAPE and largest error: fitted points
// (in-sample) first, then the held-out ones.
func (v *Validation) lines() []string {
	score := func(g Group) string { return fmt.Sprintf("MAPE %.2f%%, max error %.2f%%", g.MAPE, g.MaxErrPct) }
	var out []string
	if g := v.Fitted; g.N == 1 {
		out = append(out, "1 fitted point (in-sample: the profile was fitted on this throughput, so its error is not held out), "+score(g))
	} else if g.N > 1 {
		out = append(out, fmt.Sprintf("%d fitted points (in-sample: the profile was fitted on these throughputs, so their error is not held out), %s", g.N, score(g)))
	}
	g := v.HeldOut
	noun := "throughputs"
	if g.N == 1 {
		noun = "throughput"
	}
	switch {
	case g.N == 0:
	case v.FitUnrecorded:
		out = append(out, fmt.Sprintf("%d %s, held out only if measured after the fit (the profile does not record the runs it was fitted on), %s", g.N, noun, score(g)))
	default:
		out = append(out, fmt.Sprintf("%d held-out %s, %s", g.N, noun, score(g)))
	}
	return out
}

// WriteFit prints a fit as blsim fit and calibrate show it: note on a line
// of its own when not "", the fit (Result.WriteText), "wrote PROFILE" when
// profile is not "", the held-out error when v is not nil
// (Validation.WriteText, the five worst by stat), and the regime of each
// configuration (WriteRegimes).
func WriteFit(w io.Writer, r *Result, v *Validation, stat Stat, note, profile string) error {
	if note != "" {
		fmt.Fprintln(w, note)
	}
	if err := r.WriteText(w); err != nil {
		return err
	}
	if profile != "" {
		fmt.Fprintf(w, "wrote %s\n", profile)
	}
	if v != nil {
		if err := v.WriteText(w, stat, 5); err != nil {
			return err
		}
	}
	return WriteRegimes(w, r, v)
}

// WriteRegimes prints, for every configuration fitted (r's residuals) and
// scored (v's, when v is not nil), the measured and predicted rates and
// the shares of the run the fitted model says waited on memory: on DRAM
// at its sustained bandwidth, and on the engine's own cap where that is
// below it; and how many were mostly memory-bound (the two together). It
// prints nothing when there are none.
func WriteRegimes(w io.Writer, r *Result, v *Validation) error {
	type row struct {
		Residual
		set string
	}
	var rows []row
	for _, x := range r.Residuals {
		rows = append(rows, row{x, "fit"})
	}
	if v != nil {
		for _, x := range v.Worst {
			set := "held out"
			if x.InFit {
				set = "fit"
			}
			rows = append(rows, row{x, set})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nregime of each configuration (the share of the run the fitted model spends waiting on memory: DRAM-bound at the DRAM's sustained bandwidth, cap-bound at the engine's own cap below it)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "configuration\tset\tmeasured t/s\tpredicted t/s\terror\tDRAM-bound\tcap-bound\n")
	bound := 0
	for _, x := range rows {
		if x.MemoryBoundPct() >= 50 {
			bound++
		}
		fmt.Fprintf(tw, "%s\t%s\t%.4g\t%.4g\t%+.2f%%\t%.0f%%\t%.0f%%\n", x.Label, x.set, x.Measured, x.Predicted, x.ErrPct, x.DRAMBoundPct, x.CapBoundPct)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d of %d configurations at least 50%% memory-bound (DRAM and cap together)\n", bound, len(rows))
	return nil
}

// words spells a CamelCase status in lower-case words: "function converged".
func words(s string) string {
	var b strings.Builder
	for i, c := range s {
		if unicode.IsUpper(c) {
			if i > 0 {
				b.WriteByte(' ')
			}
			c = unicode.ToLower(c)
		}
		b.WriteRune(c)
	}
	return b.String()
}
