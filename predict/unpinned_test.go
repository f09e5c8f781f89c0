package predict

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

func TestParseUnpinned(t *testing.T) {
	for _, c := range []struct {
		in   string
		want model.Placement
		err  string
	}{
		{"", "", ""},
		{"linux", model.Placement("linux"), ""},
		{"android", model.Placement("android"), ""},
		{"strict", "", "cpu-strict"},
		{"bsd", "", "want linux, android, macos or windows"},
	} {
		got, err := ParseUnpinned(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseUnpinned(%q) error %v, want one containing %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseUnpinned(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}
