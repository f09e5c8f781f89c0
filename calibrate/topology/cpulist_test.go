package topology

import (
	"slices"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr bool
	}{
		{in: "0-3,6,8-9", want: []int{0, 1, 2, 3, 6, 8, 9}},
		{in: "0-7\n", want: []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{in: "5", want: []int{5}},
		{in: "", want: []int{}},
		{in: "\n", want: []int{}},
		{in: "4-5, 0-1", want: []int{0, 1, 4, 5}},
		{in: "3,1,3,2-2", want: []int{1, 2, 3}},
		{in: "65535", want: []int{65535}},
		{in: "0-", wantErr: true},
		{in: "-3", wantErr: true},
		{in: "3-1", wantErr: true},
		{in: "1,,2", wantErr: true},
		{in: "1,", wantErr: true},
		{in: "a", wantErr: true},
		{in: "+1", wantErr: true},
		{in: "0x3", wantErr: true},
		{in: "1-2-3", wantErr: true},
		{in: "0-7:2", wantErr: true},
		{in: "65536", wantErr: true},
		{in: "0-99999999999999999999", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseCPUList(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseCPUList(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && !slices.Equal(got, tt.want) {
			t.Errorf("ParseCPUList(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestFormatCPUList(t *testing.T) {
	tests := []struct {
		in   []int
		want string
	}{
		{in: nil, want: ""},
		{in: []int{0, 1, 2, 3, 6, 8, 9}, want: "0-3,6,8-9"},
		{in: []int{9, 8, 6, 3, 2, 1, 0}, want: "0-3,6,8-9"},
		{in: []int{4, 4, 5}, want: "4-5"},
		{in: []int{7}, want: "7"},
		{in: []int{0, 2, 4}, want: "0,2,4"},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.in)
		if got := FormatCPUList(tt.in); got != tt.want {
			t.Errorf("FormatCPUList(%v) = %q, want %q", tt.in, got, tt.want)
		}
		if !slices.Equal(in, tt.in) {
			t.Errorf("FormatCPUList modified its input: %v became %v", in, tt.in)
		}
	}
}

// FuzzParseCPUList checks that ParseCPUList never panics and that what it
// accepts survives FormatCPUList and ParseCPUList again unchanged. The seed
// corpus is in testdata/fuzz/FuzzParseCPUList.
func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0-3,6,8-9", "", "0", "1-0", "0-65535", ",", " 1 - 2 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := ParseCPUList(s)
		if err != nil {
			return
		}
		if !slices.IsSorted(cpus) || len(slices.Compact(slices.Clone(cpus))) != len(cpus) {
			t.Fatalf("ParseCPUList(%q) = %v: not sorted and unique", s, cpus)
		}
		text := FormatCPUList(cpus)
		again, err := ParseCPUList(text)
		if err != nil || !slices.Equal(again, cpus) {
			t.Fatalf("round trip of %q: FormatCPUList gave %q, parsed back as %v, %v", s, text, again, err)
		}
	})
}
