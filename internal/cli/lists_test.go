package cli

import (
	"slices"
	"strings"
	"testing"
)

// TestIntList: llama-bench's lists and ranges expand in order; every bad
// list is one line naming the flag and the form wanted, never Go's raw
// strconv error.
func TestIntList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
	}{
		{"512", []int{512}},
		{"128,512", []int{128, 512}},
		{" 128 , 512 ", []int{128, 512}},
		{"1-4", []int{1, 2, 3, 4}},
		{"1-8+3", []int{1, 4, 7}},
		{"16-128*2", []int{16, 32, 64, 128}},
		{"0,2-4", []int{0, 2, 3, 4}},
		{"4-4", []int{4}},
	} {
		got, err := IntList("prompt", tc.in, 0, 1<<20)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("IntList(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"128,x", `--prompt: "x": not a whole number; want a whole number, a comma list (128,512) or a range`},
		{"128,", `--prompt: "": an empty value`},
		{"8-1", "last value is below its first"},
		{"1-8+0", "step must be at least 1"},
		{"0-8*2", "multiplier must be at least 2, from a first value of at least 1"},
		{"1-x", "after the '-' of a range"},
		{"1-8+y", "after the '+' of a range"},
		{"2000000", "--prompt: 2000000 is outside 0..1048576"},
		{"-1", "--prompt: -1 is outside 0..1048576"},
		{"1-100000", "over 1024 values"},
	} {
		_, err := IntList("prompt", tc.in, 0, 1<<20)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "strconv") || strings.Contains(err.Error(), "\n") {
			t.Errorf("IntList(%q): %v; want one line with %q", tc.in, err, tc.want)
		}
	}
}

// TestStringList: a comma list of names, an empty name refused.
func TestStringList(t *testing.T) {
	if got, err := StringList("soc", "rk3588, pi5"); err != nil || !slices.Equal(got, []string{"rk3588", "pi5"}) {
		t.Errorf("StringList: %v, %v", got, err)
	}
	if _, err := StringList("soc", "rk3588,,pi5"); err == nil || !strings.Contains(err.Error(), "--soc:") {
		t.Errorf("an empty name: %v", err)
	}
}
