package topology

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxCPUID is the largest CPU number ParseCPUList accepts. Linux caps
// NR_CPUS at 8192; the extra room keeps odd kernels working while stopping
// "0-4000000000" from allocating gigabytes.
const MaxCPUID = 65535

// ParseCPUList parses a Linux CPU list such as "0-3,6,8-9", the format of
// sysfs files like cpu/online and cache/index*/shared_cpu_list and of
// taskset -c. Surrounding white space is ignored and an empty list yields
// an empty, non-nil slice (sysfs writes "\n" for an empty set). The result
// is sorted and free of duplicates.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	cpus := []int{}
	if s == "" {
		return cpus, nil
	}
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("cpu list %q: empty element", s)
		}
		lo, hi, isRange := strings.Cut(part, "-")
		first, err := parseCPUID(lo)
		if err != nil {
			return nil, fmt.Errorf("cpu list %q: %w", s, err)
		}
		last := first
		if isRange {
			if last, err = parseCPUID(hi); err != nil {
				return nil, fmt.Errorf("cpu list %q: %w", s, err)
			}
			if last < first {
				return nil, fmt.Errorf("cpu list %q: range %q runs backwards", s, part)
			}
		}
		for id := first; id <= last; id++ {
			cpus = append(cpus, id)
		}
	}
	slices.Sort(cpus)
	return slices.Compact(cpus), nil
}

func parseCPUID(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("missing cpu number")
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("cpu number %q is not a non-negative integer", s)
		}
	}
	id, err := strconv.Atoi(s)
	if err != nil || id > MaxCPUID {
		return 0, fmt.Errorf("cpu number %q is above %d", s, MaxCPUID)
	}
	return id, nil
}

// FormatCPUList writes cpus in the Linux CPU list format, merging runs into
// ranges: []int{0, 1, 2, 3, 6, 8, 9} becomes "0-3,6,8-9". The input need not
// be sorted; duplicates are dropped and the input is not modified. An empty
// input gives "".
func FormatCPUList(cpus []int) string {
	ids := slices.Clone(cpus)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ids[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(ids[j]))
		}
		i = j + 1
	}
	return b.String()
}
