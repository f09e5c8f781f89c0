package calibrate

import (
	"fmt"
	"io"
	"time"

	"github.com/blsim/blsim/internal/progress"
	"github.com/blsim/blsim/measure"
)

// NewProgress reports the steps of a calibration of total steps on w: as
// a bar with the step under way and an estimate of the time left when w is
// a terminal, and as plain lines (LineProgress) otherwise. The call with
// total 0 (the end) finishes the bar.
func NewProgress(w io.Writer, total int) measure.Progress {
	if !progress.Terminal(w) {
		return LineProgress(w)
	}
	bar := progress.New(w, total, "calibrating")
	return func(done, n int, label string, m *measure.Measurement) {
		if n == 0 {
			bar.Finish()
			return
		}
		bar.Describe(label)
		bar.Set(done)
	}
}

// LineProgress reports each finished step as one line on w, for a log or
// a pipe: "[3/20] q4 kernel, big: 4.27 ops/cycle (cv 1.2%) 5s" (no cv for
// a value without samples or spread, such as the at-once step's ratio) with the
// time since LineProgress was called and what disturbed it (measure.Interference.Note),
// "[3/20] LABEL: already measured", or the failure's status and error. The call with total 0 (the end)
// prints nothing.
func LineProgress(w io.Writer) measure.Progress {
	start := time.Now()
	return func(done, n int, label string, m *measure.Measurement) {
		if n == 0 {
			return
		}
		switch {
		case m == nil:
			fmt.Fprintf(w, "[%d/%d] %s: already measured\n", done, n, label)
		case m.Status != "ok":
			fmt.Fprintf(w, "[%d/%d] %s: %s: %s\n", done, n, label, m.Status, m.Error)
		default:
			cv := "" // a value without samples or spread (a ratio of runs) has no cv to give
			if m.CV > 0 || len(m.Samples) > 1 {
				cv = fmt.Sprintf(" (cv %.1f%%)", 100*m.CV)
			}
			fmt.Fprintf(w, "[%d/%d] %s: %.4g %s%s %s%s\n", done, n, label, m.Median, m.Unit, cv,
				time.Since(start).Round(time.Second), m.Interference.Note())
		}
	}
}
