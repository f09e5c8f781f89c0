package runner

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/blsim/blsim/measure"
)

// Header is the line to print before the grid runs: the command, the
// grid's size (its points, those that run something another does not,
// and why the others collapse), the runs with rounds, what varies, the
// settings, the measurements file path and, when Config.Estimate can
// tell, about how long it will take, as "llama-bench -p 512: 88 points,
// 46 distinct (42 collapse: ORK_BL_LITTLE_FRAC, ORK_BL_SPLIT cannot
// change them) x 3 rounds, shuffled = 138 runs over ORK_MOE_BIGLITTLE (2)
// x ORK_BL_LITTLE_FRAC (11) x ... (timeout 10m0s, 0 warm-up, 0 retries)
// -> runs.jsonl; about 1h12m".
func (c Config) Header(path string) string {
	n := c.Grid.Size()
	distinct, collapsed := c.Distinct()
	d := len(distinct)
	var b strings.Builder
	fmt.Fprintf(&b, "%d points", n)
	if d < n {
		// The knobs the grid varies that cannot change the points that
		// collapsed (a knob it sets to one value changes nothing anyway).
		var names []string
		for _, k := range c.Grid.Varying() {
			if collapsed[k] > 0 {
				names = append(names, k)
			}
		}
		sort.Strings(names)
		fmt.Fprintf(&b, ", %d distinct (%d collapse: %s cannot change them)", d, n-d, strings.Join(names, ", "))
	}
	rounds := max(c.Rounds, 1)
	if rounds > 1 {
		order := "in grid order"
		if c.Shuffle {
			order = "shuffled"
		}
		fmt.Fprintf(&b, " x %d rounds, %s", rounds, order)
	}
	if d < n || rounds > 1 {
		fmt.Fprintf(&b, " = %d runs", d*rounds)
	} else {
		b.Reset()
		fmt.Fprintf(&b, "%d runs", n)
	}
	line := fmt.Sprintf("%s: %s over %s (timeout %v, %d warm-up, %d retries) -> %s",
		QuoteCommand(c.Grid.Command), b.String(), axesLabel(c.Grid), c.Timeout, c.Warmup, c.Retries, path)
	if c.Estimate == nil {
		return line
	}
	var total time.Duration
	for _, p := range distinct {
		t, ok := c.Estimate(p)
		if !ok {
			return line + "; time unknown until the first runs (each line gives the time left)"
		}
		total += t * time.Duration(1+c.Warmup)
	}
	return line + fmt.Sprintf("; about %v", (total*time.Duration(rounds)).Round(time.Second))
}

// LineProgress is a progress function for Run that prints a line per run
// on w: the knobs that vary (all of them when none does), the outcome,
// and, before the last run, the time the runs left will take at the pace
// of those done: "[3/6] ORK_BL_LITTLE_FRAC=0.1 ORK_BL_POLL=0  20.00 t/s
// (eta 1m0s)".
func (c Config) LineProgress(w io.Writer) measure.Progress {
	varying := c.Grid.Varying()
	if len(varying) == 0 {
		for _, a := range append(append([]Axis(nil), c.Grid.Env...), c.Grid.Args...) {
			varying = append(varying, a.Name)
		}
	}
	start := time.Now()
	return func(done, total int, _ string, m *measure.Measurement) {
		fmt.Fprintf(w, "[%d/%d] %s  %s%s\n", done, total, knobsLabel(varying, m.Knobs), outcome(m), eta(time.Since(start), done, total))
	}
}

// Line is the summary to print after the grid ran, as "6 runs: 4 ok, 2
// failed, 0 timed out; 6 measurements appended to runs.jsonl", with the
// flagged and skipped runs when there are any.
func (s Summary) Line(path string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d runs: %d ok, %d failed, %d timed out", s.Runs, s.OK, s.Failed, s.TimedOut)
	if s.Flagged > 0 {
		fmt.Fprintf(&b, ", %d flagged (their records do not match their knobs: kept out of the fit)", s.Flagged)
	}
	if s.Skipped > 0 {
		fmt.Fprintf(&b, "; %d skipped (already measured)", s.Skipped)
	}
	fmt.Fprintf(&b, "; %d measurements appended to %s", s.Measurements, path)
	return b.String()
}

// eta is "  (eta 1h2m0s)": the time the runs left will take at the pace of
// those done; "" after the last run.
func eta(elapsed time.Duration, done, total int) string {
	if done <= 0 || done >= total {
		return ""
	}
	left := elapsed / time.Duration(done) * time.Duration(total-done)
	return fmt.Sprintf("  (eta %v)", left.Round(time.Second))
}

// outcome is "26.24 t/s", with what disturbed it
// (measure.Interference.Note), or "failed: why".
func outcome(m *measure.Measurement) string {
	if m.Status == "ok" {
		return fmt.Sprintf("%.2f t/s%s", m.Median, m.Interference.Note())
	}
	return m.Status + ": " + m.Error
}

// knobsLabel prints the named knobs: "ORK_BL_LITTLE_FRAC=0.15 ORK_BL_POLL=0".
func knobsLabel(names []string, knobs map[string]string) string {
	if len(names) == 0 {
		return "(no knobs)"
	}
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, n+"="+knobs[n])
	}
	return strings.Join(parts, " ")
}

// axesLabel says what varies: "ORK_BL_LITTLE_FRAC (6) x ORK_BL_POLL (2)".
func axesLabel(g Grid) string {
	var parts []string
	for _, a := range append(append([]Axis(nil), g.Env...), g.Args...) {
		if len(a.Values) > 1 {
			parts = append(parts, fmt.Sprintf("%s (%d)", a.Name, len(a.Values)))
		}
	}
	if len(parts) == 0 {
		return "no varying knob"
	}
	return strings.Join(parts, " x ")
}
