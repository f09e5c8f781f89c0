package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/blsim/blsim/calibrate"
	"github.com/blsim/blsim/measure"
	"github.com/schollz/progressbar/v3"
)

// countDone is how many of steps done already holds.
func countDone(steps []calibrate.Step, done map[string]bool) int {
	n := 0
	for _, s := range steps {
		if done[s.ID] {
			n++
		}
	}
	return n
}

// newProgress shows a bar with ETA on a terminal and plain lines
// otherwise. Calling it with total 0 finishes the bar.
func newProgress(w io.Writer, total int) calibrate.Progress {
	f, isFile := w.(*os.File)
	tty := false
	if isFile {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	if !tty {
		start := time.Now()
		return func(done, n int, st calibrate.Step, m *measure.Measurement) {
			if n == 0 {
				return
			}
			switch {
			case m == nil:
				fmt.Fprintf(w, "[%d/%d] %s: already measured\n", done, n, st.Label)
			case m.Status != "ok":
				fmt.Fprintf(w, "[%d/%d] %s: %s: %s\n", done, n, st.Label, m.Status, m.Error)
			default:
				fmt.Fprintf(w, "[%d/%d] %s: %.4g %s (cv %.1f%%) %s\n", done, n, st.Label, m.Median, m.Unit, 100*m.CV,
					time.Since(start).Round(time.Second))
			}
		}
	}
	bar := progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true), progressbar.OptionSetWidth(30), progressbar.OptionSetDescription("calibrating"))
	return func(done, n int, st calibrate.Step, m *measure.Measurement) {
		if n == 0 {
			_ = bar.Finish()
			fmt.Fprintln(w)
			return
		}
		bar.Describe(st.Label)
		_ = bar.Set(done)
	}
}
