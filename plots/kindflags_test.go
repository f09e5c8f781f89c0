package plots

import (
	"strings"
	"testing"
)

func TestCheckFlags(t *testing.T) {
	given := func(names ...string) func(string) bool {
		return func(f string) bool {
			for _, n := range names {
				if n == f {
					return true
				}
			}
			return false
		}
	}
	for _, c := range []struct {
		kind  string
		given []string
		err   string
	}{
		{"split", []string{"engines", "threads"}, ""},
		{"split", []string{"frac"}, "--frac: plot split does not take it: it draws every share"},
		{"threads", []string{"engines"}, "every thread count over every cluster"},
		{"parity", []string{"draws"}, "it has no intervals"},
		{"roofline", []string{"layers"}, "--layers: plot roofline does not take it: it does not use it"},
		{"heatmap", []string{"x-param"}, ""},
	} {
		err := CheckFlags(c.kind, given(c.given...))
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("CheckFlags(%s, %v) = %v, want %q", c.kind, c.given, err, c.err)
		}
	}
}
