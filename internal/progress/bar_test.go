package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBar: a bar counts its steps under its description; a kept bar ends
// its line when finished, a transient one does not.
func TestBar(t *testing.T) {
	for _, tc := range []struct {
		name    string
		new     func(*bytes.Buffer) *Bar
		newline bool
	}{
		{"kept", func(b *bytes.Buffer) *Bar { return New(b, 3, "measuring") }, true},
		{"transient", func(b *bytes.Buffer) *Bar { return NewTransient(b, 3, "measuring") }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			bar := tc.new(&buf)
			bar.Set(1)
			bar.Describe("step two")
			bar.Set(2)
			bar.Finish()
			out := buf.String()
			if !strings.Contains(out, "measuring") || !strings.Contains(out, "step two") || !strings.Contains(out, "(2/3)") {
				t.Errorf("bar output %q lacks its descriptions or count", out)
			}
			if strings.HasSuffix(out, "\n") != tc.newline {
				t.Errorf("bar output %q: ends its line %v, want %v", out, !tc.newline, tc.newline)
			}
		})
	}
}

func TestTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if Terminal(f) || Terminal(&bytes.Buffer{}) {
		t.Error("a regular file or a buffer is taken for a terminal")
	}
}

// TestLazyOnALog: on a writer that is not a terminal, Lazy writes a plain
// line when it starts and each time another tenth is done: 120 steps leave
// eleven lines, never a redrawn bar.
func TestLazyOnALog(t *testing.T) {
	var buf bytes.Buffer
	set, finish := Lazy(&buf, "what-if cells")
	for done := 1; done <= 120; done++ {
		set(done, 120, "", nil)
	}
	finish()
	out := buf.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 11 || strings.Contains(out, "\r") {
		t.Errorf("120 steps on a log wrote %d lines (want 11: the start and one a tenth):\n%q", len(lines), out)
	}
	if lines[len(lines)-1] != "what-if cells (120/120)" || lines[0] != "what-if cells (1/120)" {
		t.Errorf("first and last lines %q, %q", lines[0], lines[len(lines)-1])
	}
}
