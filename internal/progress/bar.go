package progress

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/blsim/blsim/internal/termsafe"
	"github.com/blsim/blsim/measure"
	"github.com/schollz/progressbar/v3"
)

// A Bar shows how many of a task's steps are done, with a count and an
// estimate of the time left, on one line of its writer that it redraws.
type Bar struct {
	bar       *progressbar.ProgressBar
	w         io.Writer
	transient bool
}

// New is a bar of total steps on w, headed by description, 30 columns
// wide. Finish leaves it on its line, full, and ends the line. It draws on
// any writer: a caller that wants plain lines on a log or a pipe asks
// Terminal first.
func New(w io.Writer, total int, description string) *Bar {
	return newBar(w, total, description, false)
}

// NewTransient is New for a bar shown only while a result is on its way:
// Finish erases it.
func NewTransient(w io.Writer, total int, description string) *Bar {
	return newBar(w, total, description, true)
}

func newBar(w io.Writer, total int, description string, transient bool) *Bar {
	w = termsafe.Unwrap(w) // the bar's own escapes redraw its line
	opts := []progressbar.Option{progressbar.OptionSetWriter(w), progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true), progressbar.OptionSetWidth(30)}
	if transient {
		opts = append(opts, progressbar.OptionClearOnFinish())
	}
	opts = append(opts, progressbar.OptionSetDescription(description))
	return &Bar{bar: progressbar.NewOptions(total, opts...), w: w, transient: transient}
}

// Set redraws the bar with done steps done.
func (b *Bar) Set(done int) { _ = b.bar.Set(done) }

// Describe replaces the bar's description (the step under way, say).
func (b *Bar) Describe(description string) { b.bar.Describe(description) }

// Finish fills the bar and ends its line, or, for a transient bar, erases
// it.
func (b *Bar) Finish() {
	_ = b.bar.Finish()
	if !b.transient {
		fmt.Fprintln(b.w)
	}
}

// Terminal reports whether w is a terminal (a character device), where a
// bar can redraw its line.
func Terminal(w io.Writer) bool {
	f, ok := termsafe.Unwrap(w).(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Lazy returns set, which draws a transient bar headed by description on
// w from its first call (set(done, total): a caller that only knows the
// total once under way), and finish, which erases the bar if set drew one.
// On a writer that is not a terminal (a log, a pipe) it writes plain lines
// instead, "description (done/total)", one each time another tenth is
// done, so a long task leaves at most eleven lines there. Both may be
// called from several goroutines.
func Lazy(w io.Writer, description string) (set measure.Progress, finish func()) {
	var mu sync.Mutex
	if !Terminal(w) {
		last := -1
		set = func(done, total int, _ string, _ *measure.Measurement) {
			mu.Lock()
			defer mu.Unlock()
			tenth := 10
			if total > 0 {
				tenth = min(10, 10*done/total)
			}
			if tenth > last {
				last = tenth
				fmt.Fprintf(w, "%s (%d/%d)\n", description, done, total)
			}
		}
		return set, func() {}
	}
	var bar *Bar
	set = func(done, total int, _ string, _ *measure.Measurement) {
		mu.Lock()
		defer mu.Unlock()
		if bar == nil {
			bar = NewTransient(w, total, description)
		}
		bar.Set(done)
	}
	finish = func() {
		mu.Lock()
		defer mu.Unlock()
		if bar != nil {
			bar.Finish()
		}
	}
	return set, finish
}
