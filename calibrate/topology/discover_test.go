package topology

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestDiscoverFixtures(t *testing.T) {
	tests := []struct {
		fixture          string
		online, possible string
		clusters         []Cluster
	}{
		{
			// RK3588: three cpufreq policies (0-3, 4-5, 6-7) and three
			// cpu-map clusters, but one "big" cluster of Cortex-A76.
			fixture: "rk3588", online: "0-7", possible: "0-7",
			clusters: []Cluster{
				{Name: "big", CPUs: []int{4, 5, 6, 7}, CoreType: "Cortex-A76", MaxFreqKHz: 2304000, CapacityUnits: 1024, L2KiBPerCore: 512, SharedCacheKiB: 3072, SMTWays: 1, CoreCPUs: []int{4, 5, 6, 7}},
				{Name: "little", CPUs: []int{0, 1, 2, 3}, CoreType: "Cortex-A55", MaxFreqKHz: 1800000, CapacityUnits: 414, L2KiBPerCore: 128, SharedCacheKiB: 3072, SMTWays: 1, CoreCPUs: []int{0, 1, 2, 3}},
			},
		},
		{
			// Intel Core i7-1260P: 4 P-cores with SMT (cpu0-7), 8 E-cores
			// in two modules of four sharing 2 MiB L2 (cpu8-15).
			fixture: "i7-1260p", online: "0-15", possible: "0-15",
			clusters: []Cluster{
				{Name: "big", CPUs: []int{0, 1, 2, 3, 4, 5, 6, 7}, CoreType: "P-core", MaxFreqKHz: 4700000, L2KiBPerCore: 1280, SharedCacheKiB: 18432,
					SMTWays: 2, CoreCPUs: []int{0, 2, 4, 6}, SMTCPUs: []int{1, 3, 5, 7}},
				{Name: "little", CPUs: []int{8, 9, 10, 11, 12, 13, 14, 15}, CoreType: "E-core", MaxFreqKHz: 3400000, L2KiBPerCore: 512, SharedCacheKiB: 18432,
					SMTWays: 1, CoreCPUs: []int{8, 9, 10, 11, 12, 13, 14, 15}},
			},
		},
		{
			// Two online vCPUs of four possible; no cpufreq, no capacity.
			fixture: "x86-vm", online: "0-1", possible: "0-3",
			clusters: []Cluster{
				{Name: "cpu", CPUs: []int{0, 1}, CoreType: "Intel Xeon Processor (Icelake)", L2KiBPerCore: 4096, SharedCacheKiB: 16384, SMTWays: 1, CoreCPUs: []int{0, 1}},
			},
		},
		{
			// AMD Ryzen 7 6800H: 8 cores of two hardware threads, AMD's
			// numbering (cpuN and cpuN+8 are one core's), one L3.
			fixture: "ryzen-7-6800h", online: "0-15", possible: "0-15",
			clusters: []Cluster{
				{Name: "cpu", CPUs: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, CoreType: "AMD Ryzen 7 6800H with Radeon Graphics",
					MaxFreqKHz: 4785000, L2KiBPerCore: 512, SharedCacheKiB: 16384,
					SMTWays: 2, CoreCPUs: []int{0, 1, 2, 3, 4, 5, 6, 7}, SMTCPUs: []int{8, 9, 10, 11, 12, 13, 14, 15}},
			},
		},
		{
			// Captured (hwloc's test tree 20em64t-hybrid-1p6c2t+2ca4co1t,
			// an HP EliteBook with an i7-1370P): 6 P-cores with SMT
			// (cpu0-11, siblings adjacent), 8 E-cores in two modules
			// (cpu12-19). The tree has no cpu_core/cpu_atom lists, so the
			// two kinds share one model name and are told apart by
			// their caches and threads.
			fixture: "i7-1370p", online: "0-19", possible: "0-19",
			clusters: []Cluster{
				{Name: "big", CPUs: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, CoreType: "13th Gen Intel(R) Core(TM) i7-1370P", MaxFreqKHz: 5200000, L2KiBPerCore: 1280, SharedCacheKiB: 24576,
					SMTWays: 2, CoreCPUs: []int{0, 2, 4, 6, 8, 10}, SMTCPUs: []int{1, 3, 5, 7, 9, 11}},
				{Name: "little", CPUs: []int{12, 13, 14, 15, 16, 17, 18, 19}, CoreType: "13th Gen Intel(R) Core(TM) i7-1370P", MaxFreqKHz: 3900000, L2KiBPerCore: 512, SharedCacheKiB: 24576,
					SMTWays: 1, CoreCPUs: []int{12, 13, 14, 15, 16, 17, 18, 19}},
			},
		},
		{
			// Captured (hwloc's 32intel64-2p8co2t+8ve, a Supermicro
			// server): two Xeon Silver 4108 of 8 cores and two threads,
			// siblings cpuN and cpuN+16 as on AMD's numbering; no
			// cpufreq. A cluster a socket (physical_package_id 0: cpu0-7
			// and 16-23; 1: cpu8-15 and 24-31), each with its own L3.
			fixture: "xeon-silver-4108", online: "0-31", possible: "0-111",
			clusters: []Cluster{
				{Name: "cpu-s0", CPUs: []int{0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23},
					CoreType: "Intel(R) Xeon(R) Silver 4108 CPU @ 1.80GHz", L2KiBPerCore: 1024, SharedCacheKiB: 11264,
					SMTWays: 2, CoreCPUs: []int{0, 1, 2, 3, 4, 5, 6, 7}, SMTCPUs: []int{16, 17, 18, 19, 20, 21, 22, 23}},
				{Name: "cpu-s1", CPUs: []int{8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31},
					CoreType: "Intel(R) Xeon(R) Silver 4108 CPU @ 1.80GHz", L2KiBPerCore: 1024, SharedCacheKiB: 11264,
					SMTWays: 2, CoreCPUs: []int{8, 9, 10, 11, 12, 13, 14, 15}, SMTCPUs: []int{24, 25, 26, 27, 28, 29, 30, 31}, Package: 1},
			},
		},
		{
			// CIX P1-like: two Cortex-A720 groups whose capacities differ
			// by 8% split into big and mid; MIDR comes from /proc/cpuinfo.
			fixture: "cix-p1", online: "0-11", possible: "0-11",
			clusters: []Cluster{
				{Name: "big", CPUs: []int{8, 9, 10, 11}, CoreType: "Cortex-A720", MaxFreqKHz: 2600000, CapacityUnits: 1024, L2KiBPerCore: 512, SharedCacheKiB: 12288, SMTWays: 1, CoreCPUs: []int{8, 9, 10, 11}},
				{Name: "mid", CPUs: []int{4, 5, 6, 7}, CoreType: "Cortex-A720", MaxFreqKHz: 2400000, CapacityUnits: 945, L2KiBPerCore: 512, SharedCacheKiB: 12288, SMTWays: 1, CoreCPUs: []int{4, 5, 6, 7}},
				{Name: "little", CPUs: []int{0, 1, 2, 3}, CoreType: "Cortex-A520", MaxFreqKHz: 1800000, CapacityUnits: 380, L2KiBPerCore: 256, SharedCacheKiB: 12288, SMTWays: 1, CoreCPUs: []int{0, 1, 2, 3}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			topo, err := Discover(filepath.Join("testdata", tt.fixture))
			if err != nil {
				t.Fatal(err)
			}
			if got := FormatCPUList(topo.Online); got != tt.online {
				t.Errorf("Online = %s, want %s", got, tt.online)
			}
			if got := FormatCPUList(topo.Possible); got != tt.possible {
				t.Errorf("Possible = %s, want %s", got, tt.possible)
			}
			if !reflect.DeepEqual(topo.Clusters, tt.clusters) {
				t.Errorf("Clusters:\n got %+v\nwant %+v", topo.Clusters, tt.clusters)
			}
			if len(topo.CPUs) != len(topo.Online) {
				t.Errorf("%d CPUs for %d online", len(topo.CPUs), len(topo.Online))
			}
		})
	}
}

func TestDiscoverRK3588CPUs(t *testing.T) {
	topo, err := Discover(filepath.Join("testdata", "rk3588"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]CPU{
		0: {ID: 0, CoreType: "Cortex-A55", CapacityUnits: 414, MaxFreqKHz: 1800000, ClusterID: 0, PackageID: 0, CoreID: 0,
			ThreadSiblings: []int{0}, L1D: Cache{32, []int{0}}, L2: Cache{128, []int{0}}, L3: Cache{3072, []int{0, 1, 2, 3, 4, 5, 6, 7}},
			Policy: "policy0", Governor: "schedutil"},
		5: {ID: 5, CoreType: "Cortex-A76", CapacityUnits: 1024, MaxFreqKHz: 2256000, ClusterID: 1, PackageID: 0, CoreID: 1,
			ThreadSiblings: []int{5}, L1D: Cache{64, []int{5}}, L2: Cache{512, []int{5}}, L3: Cache{3072, []int{0, 1, 2, 3, 4, 5, 6, 7}},
			Policy: "policy4", Governor: "schedutil"},
		6: {ID: 6, CoreType: "Cortex-A76", CapacityUnits: 1024, MaxFreqKHz: 2304000, ClusterID: 2, PackageID: 0, CoreID: 0,
			ThreadSiblings: []int{6}, L1D: Cache{64, []int{6}}, L2: Cache{512, []int{6}}, L3: Cache{3072, []int{0, 1, 2, 3, 4, 5, 6, 7}},
			Policy: "policy6", Governor: "schedutil"},
	}
	for id, w := range want {
		if got := topo.CPUs[id]; !reflect.DeepEqual(got, w) {
			t.Errorf("cpu%d:\n got %+v\nwant %+v", id, got, w)
		}
	}
}

func TestDiscoverHybridSMT(t *testing.T) {
	topo, err := Discover(filepath.Join("testdata", "i7-1260p"))
	if err != nil {
		t.Fatal(err)
	}
	c := topo.CPUs[3]
	if c.CoreType != "P-core" || !slices.Equal(c.ThreadSiblings, []int{2, 3}) || c.L1D.SizeKiB != 48 || c.ClusterID != 4 || c.Governor != "powersave" {
		t.Errorf("cpu3 = %+v", c)
	}
	c = topo.CPUs[13]
	if c.CoreType != "E-core" || !slices.Equal(c.L2.SharedCPUs, []int{12, 13, 14, 15}) || c.MaxFreqKHz != 3400000 {
		t.Errorf("cpu13 = %+v", c)
	}
	if c := topo.CPUs[1]; c.ClusterID != 0 || c.PackageID != 0 {
		t.Errorf("cpu1 ids = cluster %d package %d", c.ClusterID, c.PackageID)
	}
}

// mapFS builds a minimal tree: online CPUs plus the given files.
func mapFS(online string, files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{cpuDir + "/online": {Data: []byte(online + "\n")}}
	cpus, _ := ParseCPUList(online)
	for _, id := range cpus {
		fsys[cpuDir+"/cpu"+FormatCPUList([]int{id})+"/online"] = &fstest.MapFile{Data: []byte("1\n")}
	}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

func TestDiscoverFallbacks(t *testing.T) {
	tests := []struct {
		name  string
		fsys  fstest.MapFS
		check func(t *testing.T, topo Topology)
	}{
		{
			name: "midr from cpuinfo, unknown part, per-cpu cpufreq, thread_siblings_list",
			fsys: mapFS("0-1", map[string]string{
				cpuinfo: "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd03\n\n" +
					"processor\t: 1\nCPU implementer\t: 0x51\nCPU part\t: 0x805\n",
				cpuDir + "/cpu0/cpufreq/cpuinfo_max_freq":         "1200000\n",
				cpuDir + "/cpu0/cpufreq/scaling_governor":         "ondemand\n",
				cpuDir + "/cpu1/topology/thread_siblings_list":    "1\n",
				cpuDir + "/cpu1/cache/index0/level":               "1\n",
				cpuDir + "/cpu1/cache/index0/type":                "Data\n",
				cpuDir + "/cpu1/cache/index0/size":                "1M\n",
				cpuDir + "/cpu1/cache/index2/level":               "2\n",
				cpuDir + "/cpu1/cache/index2/type":                "Unified\n",
				cpuDir + "/cpu1/regs/identification/not_midr_el1": "ignored\n",
			}),
			check: func(t *testing.T, topo Topology) {
				c0, c1 := topo.CPUs[0], topo.CPUs[1]
				if c0.CoreType != "Cortex-A53" || c0.MaxFreqKHz != 1200000 || c0.Governor != "ondemand" || c0.ClusterID != -1 || c0.PackageID != -1 {
					t.Errorf("cpu0 = %+v", c0)
				}
				if c1.CoreType != "arm64 0x51:0x805" || c1.L1D.SizeKiB != 1024 || !slices.Equal(c1.L1D.SharedCPUs, []int{1}) || c1.L2.SizeKiB != 0 {
					t.Errorf("cpu1 = %+v", c1)
				}
				if len(topo.Clusters) != 2 || !slices.Equal(topo.Possible, []int{0, 1}) {
					t.Errorf("clusters %+v, possible %v", topo.Clusters, topo.Possible)
				}
			},
		},
		{
			name: "unknown core type splits by max frequency beyond 5%",
			fsys: mapFS("0-3", map[string]string{
				cpufreqDir + "/policy0/related_cpus":     "0 1\n",
				cpufreqDir + "/policy0/cpuinfo_max_freq": "2000000\n",
				cpufreqDir + "/policy2/affected_cpus":    "2\n",
				cpufreqDir + "/policy2/cpuinfo_max_freq": "1960000\n",
				cpufreqDir + "/policy3/related_cpus":     "3\n",
				cpufreqDir + "/policy3/cpuinfo_max_freq": "1000000\n",
			}),
			check: func(t *testing.T, topo Topology) {
				var got []string
				for _, c := range topo.Clusters {
					got = append(got, c.Name+"="+FormatCPUList(c.CPUs))
				}
				if want := []string{"big=0-2", "little=3"}; !slices.Equal(got, want) {
					t.Errorf("clusters %v, want %v", got, want)
				}
			},
		},
		{
			name: "same core type within 5% capacity stays together",
			fsys: mapFS("0-2", map[string]string{
				cpuDir + "/cpu0/regs/identification/midr_el1": "0x00000000414fd0b0\n",
				cpuDir + "/cpu1/regs/identification/midr_el1": "0x00000000414fd0b0\n",
				cpuDir + "/cpu2/regs/identification/midr_el1": "0x00000000414fd0b0\n",
				cpuDir + "/cpu0/cpu_capacity":                 "1024\n",
				cpuDir + "/cpu1/cpu_capacity":                 "990\n",
				cpuDir + "/cpu2/cpu_capacity":                 "980\n",
			}),
			check: func(t *testing.T, topo Topology) {
				if len(topo.Clusters) != 1 || topo.Clusters[0].Name != "cpu" || topo.Clusters[0].CapacityUnits != 1024 {
					t.Errorf("clusters %+v", topo.Clusters)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			topo, err := discoverFS(tt.fsys)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, topo)
		})
	}
}

func TestDiscoverErrors(t *testing.T) {
	tests := []struct {
		name    string
		fsys    fstest.MapFS
		wantErr string // substring naming the file or field
	}{
		{"no online file", fstest.MapFS{"proc/cpuinfo": {Data: []byte("")}}, "online is missing"},
		{"empty online", mapFS("", nil), "lists no CPUs"},
		{"bad online", mapFS("0-x", nil), "sys/devices/system/cpu/online"},
		{"online cpu without directory", fstest.MapFS{cpuDir + "/online": {Data: []byte("0\n")}}, "cpu0 is listed online"},
		{"bad capacity", mapFS("0", map[string]string{cpuDir + "/cpu0/cpu_capacity": "big\n"}), "cpu0/cpu_capacity"},
		{"bad cluster_id", mapFS("0", map[string]string{cpuDir + "/cpu0/topology/cluster_id": "?\n"}), "cpu0/topology/cluster_id"},
		{"bad midr", mapFS("0", map[string]string{cpuDir + "/cpu0/regs/identification/midr_el1": "zz\n"}), "midr_el1"},
		{"bad cache size", mapFS("0", map[string]string{
			cpuDir + "/cpu0/cache/index0/level": "1\n", cpuDir + "/cpu0/cache/index0/type": "Data\n",
			cpuDir + "/cpu0/cache/index0/size": "lots\n"}), "cpu0/cache/index0/size"},
		{"bad shared_cpu_list", mapFS("0", map[string]string{
			cpuDir + "/cpu0/cache/index3/level": "3\n", cpuDir + "/cpu0/cache/index3/type": "Unified\n",
			cpuDir + "/cpu0/cache/index3/shared_cpu_list": "0-\n"}), "index3/shared_cpu_list"},
		{"bad related_cpus", mapFS("0", map[string]string{cpufreqDir + "/policy0/related_cpus": "0-1\n"}), "policy0/related_cpus"},
		{"bad max freq", mapFS("0", map[string]string{
			cpufreqDir + "/policy0/related_cpus": "0\n", cpufreqDir + "/policy0/cpuinfo_max_freq": "fast\n"}), "policy0/cpuinfo_max_freq"},
		{"bad hybrid list", mapFS("0", map[string]string{pCoreList: "0-\n"}), "cpu_core/cpus"},
		{"bad cpuinfo processor", mapFS("0", map[string]string{cpuinfo: "processor\t: zero\n"}), "proc/cpuinfo:1"},
		{"bad cpuinfo part", mapFS("0", map[string]string{cpuinfo: "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xdxyz\n"}), "CPU part"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := discoverFS(tt.fsys)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestDiscoverMissingRoot(t *testing.T) {
	_, err := Discover(filepath.Join("testdata", "no-such-machine"))
	if err == nil || !strings.Contains(err.Error(), "no-such-machine") {
		t.Errorf("error = %v, want one naming the root", err)
	}
}

func TestClusterNames(t *testing.T) {
	tests := []struct {
		n    int
		want []string
	}{
		{0, nil},
		{1, []string{"cpu"}},
		{2, []string{"big", "little"}},
		{3, []string{"big", "mid", "little"}},
		{5, []string{"big", "mid1", "mid2", "mid3", "little"}},
	}
	for _, tt := range tests {
		if got := clusterNames(tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("clusterNames(%d) = %v, want %v", tt.n, got, tt.want)
		}
	}
}

func TestTopologyCluster(t *testing.T) {
	topo, err := Discover(filepath.Join("testdata", "rk3588"))
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := topo.Cluster("little"); !ok || !slices.Equal(c.CPUs, []int{0, 1, 2, 3}) {
		t.Errorf("Cluster(little) = %+v, %v", c, ok)
	}
	if _, ok := topo.Cluster("mid"); ok {
		t.Error("Cluster(mid) found on a two-cluster SoC")
	}
}

// TestGroupBySocket: CPUs of two physical_package_ids that share no cache
// are two sockets, each its own clusters, named with their package
// ("big-s0", "little-s0", "big-s1"), fastest first; package ids that share
// a cache (an arm64 kernel that took the package id from the MPIDR
// cluster, beside one DSU's L3) or that the tree lacks (-1) split nothing.
func TestGroupBySocket(t *testing.T) {
	cpu := func(id, pkg int, kind string, l1, l2 int, l3 []int) CPU {
		return CPU{ID: id, PackageID: pkg, CoreType: kind, ClusterID: -1, CoreID: id, ThreadSiblings: []int{id},
			L1D: Cache{SizeKiB: l1, SharedCPUs: []int{id}}, L2: Cache{SizeKiB: l2, SharedCPUs: []int{id}}, L3: Cache{SizeKiB: 4096, SharedCPUs: l3}}
	}
	names := func(cs []Cluster) []string {
		var out []string
		for _, c := range cs {
			out = append(out, fmt.Sprintf("%s=%s/%d", c.Name, FormatCPUList(c.CPUs), c.Package))
		}
		return out
	}
	s0, s1, all := []int{0, 1, 2}, []int{3, 4, 5}, []int{0, 1, 2, 3, 4, 5}
	// A hybrid part in two sockets: two P-cores and an E-core each.
	twoSockets := []CPU{cpu(0, 0, "P", 48, 1280, s0), cpu(1, 0, "P", 48, 1280, s0), cpu(2, 0, "E", 32, 2048, s0),
		cpu(3, 1, "P", 48, 1280, s1), cpu(4, 1, "P", 48, 1280, s1), cpu(5, 1, "E", 32, 2048, s1)}
	twoSockets[2].MaxFreqKHz, twoSockets[5].MaxFreqKHz = 1, 1
	for i := range twoSockets {
		if twoSockets[i].CoreType == "P" {
			twoSockets[i].MaxFreqKHz = 2
		}
	}
	if got, want := names(groupCPUs(twoSockets)), []string{"big-s0=0-1/0", "big-s1=3-4/1", "little-s0=2/0", "little-s1=5/1"}; !slices.Equal(got, want) {
		t.Errorf("two sockets: %v, want %v", got, want)
	}
	shared := slices.Clone(twoSockets)
	for i := range shared {
		shared[i].L3.SharedCPUs = all
	}
	if got, want := names(groupCPUs(shared)), []string{"big=0-1,3-4/0", "little=2,5/0"}; !slices.Equal(got, want) {
		t.Errorf("package ids sharing an L3: %v, want %v", got, want)
	}
	unknown := slices.Clone(twoSockets)
	unknown[0].PackageID = -1
	if got, want := names(groupCPUs(unknown)), []string{"big=0-1,3-4/0", "little=2,5/0"}; !slices.Equal(got, want) {
		t.Errorf("a package id missing: %v, want %v", got, want)
	}
}
