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

// TestFlagsUnderPlacement: a pinned row's flags give a mask only where
// ggml applies one; Android gets the row's CPUs as a CPU set, macOS none.
func TestFlagsUnderPlacement(t *testing.T) {
	r := ThreadsRow{Threads: 4, CPUMask: "0xf0", Plan: model.Plan{Engines: []string{"big"}, Threads: []int{4}}}
	bare := r
	bare.CPUMask = ""
	for _, c := range []struct {
		row  ThreadsRow
		pol  model.Placement
		want string
	}{
		{r, model.PlaceLinux, "-t 4 --cpu-mask 0xf0 --cpu-strict 1 (4 on big)"},
		{r, model.PlaceWindows, "-t 4 --cpu-mask 0xf0 --cpu-strict 1 (4 on big)"},
		{r, model.PlaceAndroid, "-t 4 under taskset 0xf0 (4 on big)"},
		{bare, model.PlaceAndroid, "-t 4 under taskset of big's cores (4 on big)"},
		{r, model.PlaceMacOS, "-t 4, which macos cannot pin (4 on big)"},
		{bare, model.PlaceLinux, "-t 4, --cpu-mask of big's cores (4 on big)"},
	} {
		if got := c.row.Flags(c.pol); got != c.want {
			t.Errorf("%s, mask %q: %q, want %q", c.pol, c.row.CPUMask, got, c.want)
		}
	}
}
