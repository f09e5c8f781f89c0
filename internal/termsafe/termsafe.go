// Package termsafe keeps what blsim prints from driving the terminal. A
// name read from a file (a GGUF's general.name, a SoC's or a workload's
// name, an engine's, a run's label) may hold control characters: an ESC
// sequence clears the screen or forges a line, a carriage return
// overwrites one. Escape writes them as Go escapes; a Writer does so for
// everything printed through it, so no name needs remembering.
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// unsafe reports whether r is a control character a terminal acts on,
// other than newline and tab: C0, DEL and C1 (U+0080..U+009F, which some
// terminals take as CSI and the like).
func unsafe(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f
}

// Escape returns s with every control character (newline and tab
// included: a name is one line) written as \xNN or \uNNNN.
func Escape(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || unsafe(r) }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || unsafe(r) {
			b.WriteString(escape(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func escape(r rune) string {
	if r < 0x80 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// Writer writes to W with every control character but newline and tab
// escaped (as Escape does), so that text from files cannot drive the
// terminal. A progress bar, which redraws its line with carriage returns
// and ESC sequences of its own, draws on Unwrap's writer instead.
type Writer struct{ W io.Writer }

// NewWriter wraps w (once: a *Writer is returned as it is).
func NewWriter(w io.Writer) io.Writer {
	if _, ok := w.(*Writer); ok {
		return w
	}
	return &Writer{W: w}
}

// Write writes p with its control characters escaped; it reports len(p)
// written when the escaped text was.
func (t *Writer) Write(p []byte) (int, error) {
	i := 0
	for i < len(p) {
		r, n := utf8.DecodeRune(p[i:])
		if unsafe(r) && !(r == utf8.RuneError && n == 1) {
			break
		}
		i += n
	}
	if i == len(p) {
		return t.W.Write(p)
	}
	var b strings.Builder
	b.Write(p[:i])
	for i < len(p) {
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteByte(p[i])
		case unsafe(r):
			b.WriteString(escape(r))
		default:
			b.Write(p[i : i+n])
		}
		i += n
	}
	if _, err := io.WriteString(t.W, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the writer under w's escaping, or w when it has none.
func Unwrap(w io.Writer) io.Writer {
	if t, ok := w.(*Writer); ok {
		return t.W
	}
	return w
}

// EscapeText is s with every control character but newline and tab
// escaped, as a Writer writes it: for a text file (a report) that a
// terminal shows with cat.
func EscapeText(s string) string {
	var b strings.Builder
	_, _ = (&Writer{W: &b}).Write([]byte(s))
	return b.String()
}
