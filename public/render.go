package public

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Schema is the JSON document's schema tag.
const Schema = "blsim/public-check/v1"

// Formats are the output formats of Write.
var Formats = []string{"md", "csv", "json"}

// Write writes the report as a Markdown table with the targets below it
// (md), one CSV line per row (csv), or JSON.
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case "md":
		return r.markdown(w)
	case "csv":
		return r.csv(w)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Schema string `json:"schema"`
			*Report
		}{Schema, r})
	}
	return fmt.Errorf("format %q: want one of %s", format, strings.Join(Formats, ", "))
}

func (r Result) model() string {
	if r.Workload != "" {
		return r.Workload
	}
	if r.Model == "" {
		return "-"
	}
	s := r.Model + " " + r.Scheme
	if r.Imatrix {
		s += " (imatrix)"
	}
	return s
}

func (r Result) status() string {
	switch r.Status {
	case Scored:
		return "scored"
	case Setting:
		return "set " + r.Why + ": not scored"
	case Gapped:
		return "gap: " + r.Why
	}
	return "not expressible: " + r.Why
}

func num(v float64, prec int) string {
	if v == 0 || math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

func pct(v float64, ok bool) string {
	if !ok {
		return ""
	}
	return fmt.Sprintf("%+.1f%%", v)
}

func (r *Report) markdown(w io.Writer) error {
	var b strings.Builder
	if len(r.WhatIf) > 0 {
		fmt.Fprintf(&b, "What-if: %s on every row's SoC, as the row's build runs it. These are not the presets' predictions.\n\n", joinSets(r.WhatIf))
	}
	b.WriteString("| id | source | SoC | model | -t | pool | test | date | measured t/s | blsim t/s | error | ratio measured | ratio blsim | ratio error | status |\n")
	b.WriteString("|---|---|---|---|--:|---|---|---|--:|--:|--:|--:|--:|--:|---|\n")
	for _, x := range r.Results {
		pred := x.Status != NotExpressible
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			x.ID, x.Source, x.SoC, x.model(), x.Threads, x.Pool, x.Test, x.Date, num(x.TPS, 2), num(x.Predicted, 2),
			pct(x.ErrPct, pred), num(x.RatioMeasured, 3), num(x.RatioPredicted, 3), pct(x.RatioErrPct, x.HasRatio), x.status())
	}
	b.WriteString("\n| sweep | rows | measured best | blsim's best | blsim's best measured | ok |\n|---|---|---|---|--:|---|\n")
	for _, s := range r.Sweeps {
		if s.ShortfallPct == 0 {
			s.ShortfallPct = 0 // not -0
		}
		fmt.Fprintf(&b, "| %s | %d | -t %d (%s) | -t %d (%s) | %s | %v |\n", s.ID, len(s.Rows), s.MeasuredBestThreads, s.MeasuredBest,
			s.PredictedBestThreads, s.PredictedBest, pct(0-s.ShortfallPct, true), s.OK)
	}
	b.WriteString("\nTargets over the scored rows (the gap rows left out: each names the mechanism it awaits):\n\n")
	for _, t := range r.Targets {
		b.WriteString(t.Line() + "\n")
	}
	b.WriteString("\nThe same with the gap rows counted:\n\n")
	for _, t := range r.TargetsWithGaps {
		b.WriteString(t.Line() + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Line is the target in one line: "absolute t/s MAPE %: 14.2 over 12
// rows (target 20): met".
func (t Target) Line() string {
	verdict := "met"
	if !t.Met {
		verdict = "NOT met"
		if t.N == 0 {
			verdict = "no rows to score"
		}
	}
	s := fmt.Sprintf("- %s: %.1f over %d (target %g): %s", t.Name, t.Value, t.N, t.Limit, verdict)
	if strings.HasPrefix(t.Name, "sweeps") {
		s = fmt.Sprintf("- %s: %d of %d: %s", t.Name, int(t.Value), t.N, verdict)
	}
	if len(t.Misses) > 0 {
		s += "; outside: " + strings.Join(t.Misses, ", ")
	}
	return s
}

func (r *Report) csv(w io.Writer) error {
	c := csv.NewWriter(w)
	_ = c.Write([]string{"id", "family", "source", "device", "soc", "model", "threads", "pool", "placement", "test", "build", "date",
		"measured_tps", "predicted_tps", "err_pct", "ratio_measured", "ratio_predicted", "ratio_err_pct", "sweep", "status", "assumed"})
	for _, x := range r.Results {
		pred := x.Status != NotExpressible
		_ = c.Write([]string{x.ID, x.Family, x.Source, x.Device, x.SoC, x.model(), strconv.Itoa(x.Threads), x.Pool, x.Placement, x.Test, x.Build, x.Date,
			num(x.TPS, 2), num(x.Predicted, 3), strings.TrimSuffix(pct(x.ErrPct, pred), "%"), num(x.RatioMeasured, 4), num(x.RatioPredicted, 4),
			strings.TrimSuffix(pct(x.RatioErrPct, x.HasRatio), "%"), x.Sweep, x.status(), x.Assumed})
	}
	c.Flush()
	return c.Error()
}
