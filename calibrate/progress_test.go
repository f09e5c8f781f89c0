package calibrate

import (
	"io"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
)

// The line progress says how each step went, and nothing at the end; so
// does NewProgress on what is not a terminal.
func TestLineProgress(t *testing.T) {
	for name, progress := range map[string]func(io.Writer) measure.Progress{
		"LineProgress": LineProgress,
		"NewProgress":  func(w io.Writer) measure.Progress { return NewProgress(w, 3) },
	} {
		var b strings.Builder
		p := progress(&b)
		label := "q4 kernel, big"
		p(1, 3, label, nil)
		p(2, 3, label, &measure.Measurement{Status: "failed", Error: "boom"})
		p(3, 3, label, &measure.Measurement{Status: "ok", Median: 4.271, Unit: "ops/cycle", CV: 0.012})
		p(3, 3, "at once", &measure.Measurement{Status: "ok", Median: 0.91, Unit: "keep"})
		p(0, 0, "", nil)
		want := "[1/3] q4 kernel, big: already measured\n[2/3] q4 kernel, big: failed: boom\n[3/3] q4 kernel, big: 4.271 ops/cycle (cv 1.2%) 0s\n" +
			"[3/3] at once: 0.91 keep 0s\n"
		if b.String() != want {
			t.Errorf("%s\n%s\nwant\n%s", name, b.String(), want)
		}
	}
}
