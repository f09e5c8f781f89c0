package topology

import (
	"fmt"
	"slices"
	"strings"
)

// ParseClusterFlag parses the value of one --cluster flag, NAME=CPULIST,
// such as "big=4-7" or "little=0-3". NAME starts with a letter and holds
// letters, digits, '_' and '-'; CPULIST is in the format of ParseCPUList
// and must not be empty. Errors are one line quoting s, as
// `cluster "big:4-7": want NAME=CPULIST, such as big=4-7`; they do not name
// the flag, which the caller adds.
func ParseClusterFlag(s string) (name string, cpus []int, err error) {
	name, list, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok {
		return "", nil, flagError(s, "want NAME=CPULIST, such as big=4-7")
	}
	if err := checkClusterName(name); err != nil {
		return "", nil, flagError(s, err.Error())
	}
	cpus, err = ParseCPUList(list)
	if err != nil {
		return "", nil, flagError(s, err.Error())
	}
	if len(cpus) == 0 {
		return "", nil, flagError(s, "empty cpu list")
	}
	return name, cpus, nil
}

func checkClusterName(name string) error {
	if name == "" {
		return fmt.Errorf("missing cluster name before '='")
	}
	for i, r := range name {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		digit := r >= '0' && r <= '9'
		if i == 0 && !letter || !letter && !digit && r != '_' && r != '-' {
			return fmt.Errorf("cluster name %q: want a letter, then letters, digits, '_' or '-'", name)
		}
	}
	return nil
}

// flagError is an error about one cluster spec, NAME=CPULIST.
func flagError(spec, msg string) error {
	return fmt.Errorf("cluster %q: %s", spec, msg)
}

// ParseClusters parses cluster specs, NAME=CPULIST each (ParseClusterFlag),
// in order, and checks that no name is given twice and that no CPU is in
// two clusters. Errors are one line quoting the offending spec.
func ParseClusters(specs []string) (names []string, cpus [][]int, err error) {
	first := map[string]string{} // cluster name -> the spec that named it
	owner := map[int]string{}    // cpu -> the cluster that claimed it
	for _, spec := range specs {
		name, list, err := ParseClusterFlag(spec)
		if err != nil {
			return nil, nil, err
		}
		if prev, dup := first[name]; dup {
			return nil, nil, flagError(spec, fmt.Sprintf("cluster %q already defined by %q", name, prev))
		}
		first[name] = spec
		for _, c := range list {
			if other, dup := owner[c]; dup {
				return nil, nil, flagError(spec, fmt.Sprintf("cpu %d is already in cluster %s", c, other))
			}
			owner[c] = name
		}
		names, cpus = append(names, name), append(cpus, list)
	}
	return names, cpus, nil
}

// Override replaces the discovered clusters of t with those named by
// --cluster flags, in flag order, keeping t's per-CPU facts (core type,
// frequency, caches) to describe them. No flags return t unchanged. The
// flags need not cover every CPU: leaving CPUs out keeps blsim off them.
//
// allowed is the process's affinity mask (probe.AllowedCPUs on Linux); every
// CPU named must be in it, since work pinned elsewhere would fail or
// silently migrate. A nil allowed skips that check (tests, other OSes).
//
// Errors are one line quoting the offending spec (not naming the flag,
// which the caller adds): bad syntax, a name given twice, a CPU in two
// clusters, a CPU that is not online, or a CPU outside allowed.
func Override(t Topology, flags []string, allowed []int) (Topology, error) {
	if len(flags) == 0 {
		return t, nil
	}
	online := t.Online
	if len(online) == 0 {
		for _, c := range t.CPUs {
			online = append(online, c.ID)
		}
	}
	names, lists, err := ParseClusters(flags)
	if err != nil {
		return Topology{}, err
	}
	byID := cpusByID(t.CPUs)
	clusters := make([]Cluster, 0, len(flags))
	for i, flag := range flags {
		cpus := lists[i]
		if bad := missing(cpus, online); len(bad) > 0 {
			return Topology{}, flagError(flag, fmt.Sprintf("%s not online (online: %s)", cpuWord(bad), FormatCPUList(online)))
		}
		if allowed != nil {
			if bad := missing(cpus, allowed); len(bad) > 0 {
				return Topology{}, flagError(flag, fmt.Sprintf("%s outside this process's allowed CPUs %s (taskset or cgroup cpuset)", cpuWord(bad), FormatCPUList(allowed)))
			}
		}
		members := make([]CPU, 0, len(cpus))
		for _, id := range cpus {
			c, ok := byID[id]
			if !ok {
				c = CPU{ID: id, ClusterID: -1, PackageID: -1, CoreID: -1, ThreadSiblings: []int{id}}
			}
			members = append(members, c)
		}
		clusters = append(clusters, summarize(names[i], members, byID))
	}
	t.Clusters = clusters
	return t, nil
}

// missing returns the members of cpus not in set.
func missing(cpus, set []int) []int {
	var out []int
	for _, id := range cpus {
		if !slices.Contains(set, id) {
			out = append(out, id)
		}
	}
	return out
}

func cpuWord(cpus []int) string {
	if len(cpus) == 1 {
		return fmt.Sprintf("cpu %d is", cpus[0])
	}
	return fmt.Sprintf("cpus %s are", FormatCPUList(cpus))
}
