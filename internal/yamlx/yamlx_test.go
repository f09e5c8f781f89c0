package yamlx

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name, doc, err string
	}{
		{"plain", "a: 1\nb: [1, 2, {c: 3}]\n", ""},
		{"a few aliases", "a: &x [1, 2]\nb: *x\nc: *x\n", ""},
		{"laughs", "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n",
			"expands to more than 100000 nodes"},
		{"wide", "m:\n" + strings.Repeat("", 0) + keys(MaxKeys+1), fmt.Sprintf("line 2: a mapping of %d keys", MaxKeys+1)},
		{"wide enough", "m:\n" + keys(MaxKeys), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n yaml.Node
			if err := yaml.Unmarshal([]byte(tc.doc), &n); err != nil {
				t.Fatal(err)
			}
			err := Check(&n)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrTooLarge)) {
				t.Errorf("Check: %v, want %q", err, tc.err)
			}
			if got := CheckBytes([]byte(tc.doc)); fmt.Sprint(got) != fmt.Sprint(err) {
				t.Errorf("CheckBytes: %v, Check: %v", got, err)
			}
		})
	}
}

func keys(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "  k%d: 1\n", i)
	}
	return b.String()
}
