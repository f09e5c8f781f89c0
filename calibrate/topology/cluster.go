package topology

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Cluster is a set of CPUs that blsim models as one kind of core.
type Cluster struct {
	Name string // "big", "little", "mid", "cpu", or the user's --cluster name
	CPUs []int  // sorted logical CPU numbers
	// CoreType is the members' core type; a cluster the user built from
	// several types joins them with "+", such as "Cortex-A55+Cortex-A76".
	CoreType string
	// MaxFreqKHz and CapacityUnits are the largest among the members.
	MaxFreqKHz    int
	CapacityUnits int
	// L2KiBPerCore is the L2 size divided by the physical cores sharing
	// it: 512 for an RK3588 Cortex-A76, 512 for an Alder Lake E-core
	// (2 MiB per module of four).
	L2KiBPerCore int
	// SharedCacheKiB is the size of the highest cache level that more than
	// one core shares (the L3 of the RK3588 DSU, 3072); 0 if none is.
	SharedCacheKiB int
	// SMTWays is the hardware threads of each of the cluster's cores
	// among its CPUs (the fewest any core has there): 1 without SMT.
	SMTWays int
	// CoreCPUs is each physical core's first CPU (its lowest id in the
	// cluster), increasing; SMTCPUs the cores' other hardware threads,
	// SMTWays-1 a core in the order of CoreCPUs (a SoC engine's cpus and
	// smt_cpus). Without SMT CoreCPUs is CPUs and SMTCPUs empty.
	CoreCPUs []int
	SMTCPUs  []int
	// Package is the cluster's physical_package_id (its socket) on a
	// machine of several sockets, whose cluster names end in "-s" and that
	// id ("cpu-s1"); 0 on a machine of one.
	Package int
}

// Siblings is the hardware threads of the core whose first CPU is first
// (first included), in the order ways are numbered; nil for a CPU that is
// no core's first.
func (c Cluster) Siblings(first int) []int {
	for i, id := range c.CoreCPUs {
		if id == first {
			return append([]int{id}, c.SMTCPUs[i*(c.SMTWays-1):(i+1)*(c.SMTWays-1)]...)
		}
	}
	return nil
}

// capacityTolerancePct is how far apart (in percent of the larger value)
// two CPUs' cpu_capacity, or, when core type and capacity are unknown, max
// frequency, may be and still share a cluster.
const capacityTolerancePct = 5

// groupCPUs applies the grouping rule described in the package doc and
// returns clusters ranked fastest first and named: the clusters of each
// package (socket) apart, where the machine has several.
func groupCPUs(cpus []CPU) []Cluster {
	packages := splitByPackage(cpus)
	byID := cpusByID(cpus)
	var clusters []Cluster
	for _, pkg := range packages {
		var cs []Cluster
		for _, g := range groupByType(pkg) {
			cs = append(cs, summarize("", g, byID))
		}
		rankClusters(cs)
		for i, name := range clusterNames(len(cs)) {
			if len(packages) > 1 {
				name += "-s" + strconv.Itoa(pkg[0].PackageID)
				cs[i].Package = pkg[0].PackageID
			}
			cs[i].Name = name
		}
		clusters = append(clusters, cs...)
	}
	rankClusters(clusters)
	return clusters
}

// splitByPackage splits cpus by topology/physical_package_id, in the
// order each package first appears, where the packages are sockets: CPUs
// of different packages that share a cache are one package (arm64 kernels
// before the cpu-map topology took the package id from the MPIDR cluster
// affinity, so an RK3588's one DSU could read as three packages).
func splitByPackage(cpus []CPU) [][]CPU {
	pkgOf := map[int]int{}
	for _, c := range cpus {
		pkgOf[c.ID] = c.PackageID
	}
	parts := groupBy(cpus, func(c CPU) int { return c.PackageID })
	if len(parts) < 2 {
		return [][]CPU{cpus}
	}
	for _, c := range cpus {
		if c.PackageID < 0 {
			return [][]CPU{cpus}
		}
		for _, cache := range []Cache{c.L1D, c.L2, c.L3} {
			for _, id := range cache.SharedCPUs {
				if p, ok := pkgOf[id]; ok && p != c.PackageID {
					return [][]CPU{cpus}
				}
			}
		}
	}
	return parts
}

// groupByType groups cpus by core type, splitting a type as the package
// doc says.
func groupByType(cpus []CPU) [][]CPU {
	var groups [][]CPU
	for _, members := range groupBy(cpus, func(c CPU) string { return c.CoreType }) {
		switch {
		case slices.ContainsFunc(members, func(c CPU) bool { return c.CapacityUnits > 0 }):
			groups = append(groups, splitByTolerance(members, func(c CPU) int { return c.CapacityUnits })...)
		case members[0].CoreType == "":
			groups = append(groups, splitByTolerance(members, func(c CPU) int { return c.MaxFreqKHz })...)
		default:
			groups = append(groups, splitByCore(members)...)
		}
	}
	return groups
}

// coreKind is what tells two kinds of core apart when the kernel does
// not name them: a core's L1d and L2 sizes and its hardware threads.
type coreKind struct{ l1d, l2, threads int }

// splitByCore splits CPUs of one named core type (a cpuinfo model name,
// which a hybrid chip's cores share) by their cores' kind, in the order
// each kind first appears: an Intel hybrid part whose tree lacks the
// cpu_core/cpu_atom lists (hwloc's capture of an i7-1370P, in testdata)
// has P-cores of 48K L1d, 1280K L2 and two threads, and E-cores of 32K,
// 2048K shared by a module of four, and one thread.
func splitByCore(members []CPU) [][]CPU {
	return groupBy(members, func(c CPU) coreKind {
		return coreKind{c.L1D.SizeKiB, c.L2.SizeKiB, max(len(c.ThreadSiblings), 1)}
	})
}

// groupBy groups cpus by key, the groups in the order each key first
// appears and each group in cpus' order.
func groupBy[K comparable](cpus []CPU, key func(CPU) K) [][]CPU {
	var groups [][]CPU
	index := map[K]int{}
	for _, c := range cpus {
		k := key(c)
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], c)
	}
	return groups
}

// splitByTolerance splits members wherever key drops more than
// capacityTolerancePct below the largest key of the current part.
func splitByTolerance(members []CPU, key func(CPU) int) [][]CPU {
	sorted := slices.Clone(members)
	slices.SortStableFunc(sorted, func(a, b CPU) int { return cmp.Compare(key(b), key(a)) })
	var parts [][]CPU
	top := 0
	for i, c := range sorted {
		if i == 0 || key(c)*100 < top*(100-capacityTolerancePct) {
			parts = append(parts, nil)
			top = key(c)
		}
		parts[len(parts)-1] = append(parts[len(parts)-1], c)
	}
	for _, p := range parts {
		slices.SortFunc(p, func(a, b CPU) int { return cmp.Compare(a.ID, b.ID) })
	}
	return parts
}

// rankClusters orders clusters fastest first: by capacity, then maximum
// frequency, then lowest CPU number.
func rankClusters(cs []Cluster) {
	slices.SortStableFunc(cs, func(a, b Cluster) int {
		return cmp.Or(
			cmp.Compare(b.CapacityUnits, a.CapacityUnits),
			cmp.Compare(b.MaxFreqKHz, a.MaxFreqKHz),
			cmp.Compare(a.CPUs[0], b.CPUs[0]),
		)
	})
}

// clusterNames names n ranked clusters, fastest first.
func clusterNames(n int) []string {
	switch n {
	case 0:
		return nil
	case 1:
		return []string{"cpu"}
	case 2:
		return []string{"big", "little"}
	case 3:
		return []string{"big", "mid", "little"}
	}
	names := []string{"big"}
	for i := 1; i < n-1; i++ {
		names = append(names, "mid"+strconv.Itoa(i))
	}
	return append(names, "little")
}

func cpusByID(cpus []CPU) map[int]CPU {
	m := make(map[int]CPU, len(cpus))
	for _, c := range cpus {
		m[c.ID] = c
	}
	return m
}

// summarize builds a Cluster from its members; byID resolves the CPUs that
// share a cache so that SMT threads count as one core.
func summarize(name string, members []CPU, byID map[int]CPU) Cluster {
	cl := Cluster{Name: name}
	var types []string
	for _, c := range members {
		cl.CPUs = append(cl.CPUs, c.ID)
		if c.CoreType != "" && !slices.Contains(types, c.CoreType) {
			types = append(types, c.CoreType)
		}
		cl.MaxFreqKHz = max(cl.MaxFreqKHz, c.MaxFreqKHz)
		cl.CapacityUnits = max(cl.CapacityUnits, c.CapacityUnits)
	}
	slices.Sort(cl.CPUs)
	cl.CoreType = strings.Join(types, "+")
	cl.CoreCPUs, cl.SMTCPUs, cl.SMTWays = coresOf(cl.CPUs, byID)
	for _, c := range members {
		if c.L2.SizeKiB > 0 {
			cl.L2KiBPerCore = c.L2.SizeKiB / max(1, coresSharing(c.L2, byID))
			break
		}
	}
	for _, c := range members {
		if cl.SharedCacheKiB = sharedCacheKiB(c, byID); cl.SharedCacheKiB > 0 {
			break
		}
	}
	return cl
}

// coresOf groups cpus (sorted) by physical core, taking each CPU's
// ThreadSiblings among cpus: each core's first CPU, the other hardware
// threads of each (ways-1 a core, the lowest ids), and ways, the fewest
// hardware threads any core has among cpus.
func coresOf(cpus []int, byID map[int]CPU) (first, rest []int, ways int) {
	in := map[int]bool{}
	for _, id := range cpus {
		in[id] = true
	}
	var cores [][]int
	seen := map[int]bool{}
	for _, id := range cpus {
		if seen[id] {
			continue
		}
		core := []int{id}
		for _, sib := range byID[id].ThreadSiblings {
			if sib != id && in[sib] && !seen[sib] {
				core = append(core, sib)
			}
		}
		slices.Sort(core)
		for _, c := range core {
			seen[c] = true
		}
		cores = append(cores, core)
	}
	ways = 0
	for _, c := range cores {
		if ways == 0 || len(c) < ways {
			ways = len(c)
		}
	}
	for _, c := range cores {
		first = append(first, c[0])
		rest = append(rest, c[1:ways]...)
	}
	return first, rest, max(ways, 1)
}

// coresSharing counts the physical cores among the CPUs sharing cache,
// taking SMT siblings as one core. CPUs not in byID (offline) count as
// one core each.
func coresSharing(cache Cache, byID map[int]CPU) int {
	cores := map[int]bool{}
	for _, id := range cache.SharedCPUs {
		key := id
		if c, ok := byID[id]; ok && len(c.ThreadSiblings) > 0 {
			key = c.ThreadSiblings[0]
		}
		cores[key] = true
	}
	return len(cores)
}

// sharedCacheKiB returns the size of the highest cache level of c that
// more than one core shares, or 0.
func sharedCacheKiB(c CPU, byID map[int]CPU) int {
	for _, cache := range []Cache{c.L3, c.L2} {
		if cache.SizeKiB > 0 && coresSharing(cache, byID) > 1 {
			return cache.SizeKiB
		}
	}
	return 0
}
