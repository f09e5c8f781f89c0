package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LLCBytes returns the size of the last-level cache from /sys: see
// LLCBytesAt.
func LLCBytes() (int64, error) { return LLCBytesAt("/sys") }

// LLCBytesAt returns the size in bytes of the largest cache at the highest
// level listed under sysfsRoot/devices/system/cpu/cpu*/cache/index*/ (files
// level, size and type; instruction caches are skipped). An error wraps
// ErrNoCacheInfo when there is none, as on some arm64 kernels.
func LLCBytesAt(sysfsRoot string) (int64, error) {
	pattern := filepath.Join(sysfsRoot, "devices/system/cpu/cpu[0-9]*/cache/index[0-9]*")
	dirs, err := filepath.Glob(pattern)
	if err != nil {
		return 0, fmt.Errorf("probe: glob %s: %w", pattern, err)
	}
	bestLevel, best := -1, int64(0)
	for _, d := range dirs {
		if t, err := readTrim(filepath.Join(d, "type")); err == nil && t == "Instruction" {
			continue
		}
		ls, err := readTrim(filepath.Join(d, "level"))
		if err != nil {
			continue // an index without a level tells nothing
		}
		level, err := strconv.Atoi(ls)
		if err != nil {
			return 0, fmt.Errorf("probe: %s: level %q: %w", filepath.Join(d, "level"), ls, err)
		}
		ss, err := readTrim(filepath.Join(d, "size"))
		if err != nil {
			continue
		}
		size, err := parseCacheSize(ss)
		if err != nil {
			return 0, fmt.Errorf("probe: %s: %w", filepath.Join(d, "size"), err)
		}
		if level > bestLevel || (level == bestLevel && size > best) {
			bestLevel, best = level, size
		}
	}
	if bestLevel < 0 {
		return 0, fmt.Errorf("probe: %s: %w", pattern, ErrNoCacheInfo)
	}
	return best, nil
}

// parseCacheSize reads sysfs cache sizes such as "32K", "3072K", "1M" or
// "512".
func parseCacheSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad cache size %q", s)
	}
	return n * mult, nil
}

func readTrim(path string) (string, error) {
	b, err := os.ReadFile(path)
	return strings.TrimSpace(string(b)), err
}

// fallbackLLC stands in for the last-level cache when sysfs does not give it.
const fallbackLLC = 64 << 20

// DRAM working sets: at least DRAMMultiple times the last-level cache and
// at least MinDRAMWorkingSet, so that a stream reads DRAM on any host,
// one whose cache sysfs does not report, or reports smaller than it is
// (a VM's), included. A stream of 256 MiB on a 2-vCPU EPYC VM without
// cache information in sysfs read 50 GB/s with two threads, one of 1 GiB
// 42 and one of 4 GiB 28, where the full calibration fits 28.
const (
	DRAMMultiple      = 8
	MinDRAMWorkingSet = 1 << 30
)

// WorkingSetBytes returns the streaming working set that defeats a cache
// of llc bytes: DRAMMultiple times it, at least MinDRAMWorkingSet, capped
// at maxBytes when maxBytes is positive.
func WorkingSetBytes(llc, maxBytes int64) int64 {
	ws := max(DRAMMultiple*llc, MinDRAMWorkingSet)
	if maxBytes > 0 && ws > maxBytes {
		ws = maxBytes
	}
	return ws
}

// DefaultWorkingSet is WorkingSetBytes(LLCBytes(), maxBytes) (a 64 MiB
// cache when sysfs does not tell), capped at a quarter of the memory
// available (/proc/meminfo's MemAvailable) and at least 64 MiB; maxBytes
// 0 means no cap of its own.
func DefaultWorkingSet(maxBytes int64) int64 {
	return defaultWorkingSet(maxBytes)
}

func defaultWorkingSet(maxBytes int64) int64 {
	llc, err := LLCBytes()
	if err != nil {
		llc = fallbackLLC
	}
	ws := WorkingSetBytes(llc, maxBytes)
	if avail := memAvailable("/proc/meminfo"); avail > 0 && ws > avail/4 {
		ws = max(avail/4, 64<<20)
	}
	return ws
}

// memAvailable reads MemAvailable from a meminfo file, in bytes; 0 when
// it cannot.
func memAvailable(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return n << 10
				}
			}
		}
	}
	return 0
}

// Where HostLLC found the last-level cache's size.
const (
	LLCFromSysfs = "sysfs"
	LLCFromCPUID = "cpuid"
)

// HostLLC returns the size of this machine's last-level cache and where it
// was read: from /sys (LLCBytes), else, where the kernel lists no cache
// (some virtual machines and arm64 kernels), from the processor's own
// description (CPUID on x86-64). An error wraps ErrNoCacheInfo when
// neither tells.
func HostLLC() (int64, string, error) {
	if n, err := LLCBytes(); err == nil {
		return n, LLCFromSysfs, nil
	}
	if n := llcCPUID(); n > 0 {
		return n, LLCFromCPUID, nil
	}
	return 0, "", fmt.Errorf("probe: no cache size in /sys or from the processor: %w", ErrNoCacheInfo)
}
