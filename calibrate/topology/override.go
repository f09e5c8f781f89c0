package topology

import (
	"fmt"
	"slices"
	"strings"
)

// ParseClusterFlag parses the value of one --cluster flag, NAME=CPULIST,
// such as "big=4-7" or "little=0-3". NAME starts with a letter and holds
// letters, digits, '_' and '-'; CPULIST is in the format of ParseCPUList
// and must not be empty. Errors are one line naming the flag.
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

func flagError(flag, msg string) error {
	return fmt.Errorf("--cluster %q: %s", flag, msg)
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
// Errors are one line naming the offending flag: bad syntax, a name given
// twice, a CPU in two clusters, a CPU that is not online, or a CPU outside
// allowed.
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
	byID := cpusByID(t.CPUs)
	owner := map[int]string{}       // cpu -> flag that claimed it
	nameFlag := map[string]string{} // cluster name -> flag
	clusters := make([]Cluster, 0, len(flags))
	for _, flag := range flags {
		name, cpus, err := ParseClusterFlag(flag)
		if err != nil {
			return Topology{}, err
		}
		if first, dup := nameFlag[name]; dup {
			return Topology{}, flagError(flag, fmt.Sprintf("cluster %q already defined by --cluster %q", name, first))
		}
		nameFlag[name] = flag
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
			if prev, taken := owner[id]; taken {
				return Topology{}, flagError(flag, fmt.Sprintf("cpu %d is already in --cluster %q", id, prev))
			}
			owner[id] = flag
			c, ok := byID[id]
			if !ok {
				c = CPU{ID: id, ClusterID: -1, PackageID: -1, CoreID: -1, ThreadSiblings: []int{id}}
			}
			members = append(members, c)
		}
		clusters = append(clusters, summarize(name, members, byID))
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
