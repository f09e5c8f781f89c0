package parts

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestNearestNamesParts: an unknown name's "nearest:" list names parts by
// their own names, each once, never an alias (lpdr4x's nearest were
// lpddr4x, lpddr4, lpddr5x, lp4x, lpddr5, where lpddr4 and lp4x are
// lpddr4x's aliases); a typo of an alias still finds its part.
func TestNearestNamesParts(t *testing.T) {
	near := regexp.MustCompile(`nearest: ([^;]*);`)
	list := func(err error) []string {
		t.Helper()
		if err == nil {
			t.Fatal("no error")
		}
		m := near.FindStringSubmatch(err.Error())
		if m == nil {
			t.Fatalf("%v: no nearest list", err)
		}
		return strings.Split(m[1], ", ")
	}
	all := append(append(Cores(), Memories()...), Names()...)
	for _, tc := range []struct {
		name  string
		look  func(string) error
		first string
	}{
		{"lpdr4x", func(s string) error { _, err := LookupMemory(s); return err }, "lpddr4x"},
		{"lp4xx", func(s string) error { _, err := LookupMemory(s); return err }, "lpddr4x"},
		{"cortex-a75", func(s string) error { _, err := LookupCore(s); return err }, ""},
		{"a7666", func(s string) error { _, err := LookupCore(s); return err }, "cortex-a76"},
		{"lp5xx", func(s string) error { _, err := Describe(s); return err }, "lpddr5x"},
	} {
		got := list(tc.look(tc.name))
		for i, n := range got {
			if !slices.Contains(all, n) || slices.Contains(got[:i], n) {
				t.Errorf("%s: nearest %q names %q, not a part's own name once", tc.name, got, n)
			}
		}
		if tc.first != "" && got[0] != tc.first {
			t.Errorf("%s: nearest %q, want %s first", tc.name, got, tc.first)
		}
	}
}
