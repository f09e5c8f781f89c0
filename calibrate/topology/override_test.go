package topology

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseClusterFlag(t *testing.T) {
	tests := []struct {
		in      string
		name    string
		cpus    []int
		wantErr string
	}{
		{in: "big=4-7", name: "big", cpus: []int{4, 5, 6, 7}},
		{in: "little=0-3", name: "little", cpus: []int{0, 1, 2, 3}},
		{in: "p_core-2=0,2", name: "p_core-2", cpus: []int{0, 2}},
		{in: "big", wantErr: `cluster "big": want NAME=CPULIST`},
		{in: "=4-7", wantErr: `cluster "=4-7": missing cluster name`},
		{in: "big=", wantErr: `cluster "big=": empty cpu list`},
		{in: "big=7-4", wantErr: `cluster "big=7-4": cpu list "7-4": range "7-4" runs backwards`},
		{in: "big=4-x", wantErr: `cluster "big=4-x"`},
		{in: "4big=1", wantErr: `cluster name "4big"`},
		{in: "b g=1", wantErr: `cluster name "b g"`},
		{in: "big=1=2", wantErr: `cluster "big=1=2"`},
	}
	for _, tt := range tests {
		name, cpus, err := ParseClusterFlag(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseClusterFlag(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || name != tt.name || !slices.Equal(cpus, tt.cpus) {
			t.Errorf("ParseClusterFlag(%q) = %q, %v, %v; want %q, %v", tt.in, name, cpus, err, tt.name, tt.cpus)
		}
	}
}

func TestParseClusters(t *testing.T) {
	names, cpus, err := ParseClusters([]string{"big=4-7", "little=0-3"})
	if err != nil || !slices.Equal(names, []string{"big", "little"}) || len(cpus) != 2 || !slices.Equal(cpus[1], []int{0, 1, 2, 3}) {
		t.Errorf("ParseClusters = %v, %v, %v", names, cpus, err)
	}
	if names, cpus, err := ParseClusters(nil); err != nil || names != nil || cpus != nil {
		t.Errorf("no specs: %v, %v, %v", names, cpus, err)
	}
	for _, tc := range []struct {
		specs []string
		want  string
	}{
		{[]string{"big=1", "big:0"}, `cluster "big:0": want NAME=CPULIST, such as big=4-7`},
		{[]string{"big=1", "big=0"}, `cluster "big=0": cluster "big" already defined by "big=1"`},
		{[]string{"big=1", "little=1"}, `cluster "little=1": cpu 1 is already in cluster big`},
	} {
		if _, _, err := ParseClusters(tc.specs); err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %q", tc.specs, err, tc.want)
		}
	}
}

func TestOverride(t *testing.T) {
	rk, err := Discover(filepath.Join("testdata", "rk3588"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Override(rk, []string{"big=6-7", "little=0-3", "mixed=3-5"}, nil)
	if err == nil {
		t.Fatalf("overlap accepted: %+v", got.Clusters)
	}
	got, err = Override(rk, []string{"fast=6-7", "slow=0-1", "mixed=3-4"}, []int{0, 1, 2, 3, 4, 5, 6, 7})
	if err != nil {
		t.Fatal(err)
	}
	want := []Cluster{
		{Name: "fast", CPUs: []int{6, 7}, CoreType: "Cortex-A76", MaxFreqKHz: 2304000, CapacityUnits: 1024, L2KiBPerCore: 512, SharedCacheKiB: 3072},
		{Name: "slow", CPUs: []int{0, 1}, CoreType: "Cortex-A55", MaxFreqKHz: 1800000, CapacityUnits: 414, L2KiBPerCore: 128, SharedCacheKiB: 3072},
		{Name: "mixed", CPUs: []int{3, 4}, CoreType: "Cortex-A55+Cortex-A76", MaxFreqKHz: 2256000, CapacityUnits: 1024, L2KiBPerCore: 128, SharedCacheKiB: 3072},
	}
	if len(got.Clusters) != len(want) {
		t.Fatalf("got %d clusters, want %d", len(got.Clusters), len(want))
	}
	for i := range want {
		g, w := got.Clusters[i], want[i]
		if g.Name != w.Name || !slices.Equal(g.CPUs, w.CPUs) || g.CoreType != w.CoreType || g.MaxFreqKHz != w.MaxFreqKHz ||
			g.CapacityUnits != w.CapacityUnits || g.L2KiBPerCore != w.L2KiBPerCore || g.SharedCacheKiB != w.SharedCacheKiB {
			t.Errorf("cluster %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	if len(rk.Clusters) != 2 || rk.Clusters[0].Name != "big" {
		t.Errorf("Override changed its input: %+v", rk.Clusters)
	}
	same, err := Override(rk, nil, nil)
	if err != nil || len(same.Clusters) != 2 {
		t.Errorf("no flags: %+v, %v", same.Clusters, err)
	}
}

func TestOverrideErrors(t *testing.T) {
	vm, err := Discover(filepath.Join("testdata", "x86-vm")) // online 0-1, possible 0-3
	if err != nil {
		t.Fatal(err)
	}
	rk, err := Discover(filepath.Join("testdata", "rk3588"))
	if err != nil {
		t.Fatal(err)
	}
	taskset := []int{0, 1, 2, 3, 4, 5} // e.g. taskset -c 0-5
	tests := []struct {
		name    string
		topo    Topology
		flags   []string
		allowed []int
		wantErr string
	}{
		{"bad syntax", rk, []string{"big=4-7", "little:0-3"}, nil, `cluster "little:0-3": want NAME=CPULIST`},
		{"duplicate name", rk, []string{"big=4-5", "big=6-7"}, nil, `cluster "big=6-7": cluster "big" already defined by "big=4-5"`},
		{"overlap", rk, []string{"big=4-7", "little=0-4"}, nil, `cluster "little=0-4": cpu 4 is already in cluster big`},
		{"cpu beyond the machine", rk, []string{"big=4-9"}, nil, `cluster "big=4-9": cpus 8-9 are not online (online: 0-7)`},
		{"possible but offline", vm, []string{"cpu=0-2"}, nil, `cluster "cpu=0-2": cpu 2 is not online (online: 0-1)`},
		{"outside affinity mask", rk, []string{"little=0-3", "big=4-7"}, taskset, `cluster "big=4-7": cpus 6-7 are outside this process's allowed CPUs 0-5`},
		{"empty mask", rk, []string{"little=0"}, []int{}, `cluster "little=0": cpu 0 is outside`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Override(tt.topo, tt.flags, tt.allowed)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
	if _, err := Override(rk, []string{"big=4-5"}, taskset); err != nil {
		t.Errorf("CPUs inside the mask rejected: %v", err)
	}
}
