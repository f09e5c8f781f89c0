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
