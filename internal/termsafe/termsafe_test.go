package termsafe

import (
	"bytes"
	"testing"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"rk3588":                "rk3588",
		"a\x1b[2Jb":             `a\x1b[2Jb`,
		"line\r\nnext\tx":       `line\x0d\x0anext\x09x`,
		"csi\u009b31m µs ±1 → ": `csi\u009b31m µs ±1 → `,
		"del\x7f":               `del\x7f`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	if NewWriter(w) != w || Unwrap(w) != &b || Unwrap(&b) != &b {
		t.Error("wrapping twice, or unwrapping")
	}
	in := "name: \x1b]0;title\a ok\n\ttab ±5%\r\xff\n"
	n, err := w.Write([]byte(in))
	if err != nil || n != len(in) {
		t.Fatalf("wrote %d of %d: %v", n, len(in), err)
	}
	if want := "name: \\x1b]0;title\\x07 ok\n\ttab ±5%\\x0d\xff\n"; b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
	if got := EscapeText("a\x1bb\n"); got != "a\\x1bb\n" {
		t.Errorf("EscapeText: %q", got)
	}
}
