package topology

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// Paths of the sysfs and procfs files this package reads, relative to the
// root given to Discover.
const (
	cpuDir     = "sys/devices/system/cpu"
	cpufreqDir = cpuDir + "/cpufreq"
	devfreqDir = "sys/class/devfreq"
	cpuinfo    = "proc/cpuinfo"
	pCoreList  = "sys/devices/cpu_core/cpus" // Intel hybrid P-cores
	eCoreList  = "sys/devices/cpu_atom/cpus" // Intel hybrid E-cores
)

// readText returns the trimmed content of name. ok is false, with a nil
// error, when the file does not exist; other failures name the file.
func readText(fsys fs.FS, name string) (text string, ok bool, err error) {
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", name, err)
	}
	return strings.TrimSpace(string(b)), true, nil
}

// readInt reads a file holding one decimal integer. A missing file gives
// def with a nil error; malformed content is an error naming the file.
func readInt(fsys fs.FS, name string, def int) (int, error) {
	text, ok, err := readText(fsys, name)
	if err != nil || !ok {
		return def, err
	}
	v, err := strconv.Atoi(text)
	if err != nil {
		return def, fmt.Errorf("%s: %q is not an integer", name, text)
	}
	return v, nil
}

// readCPUList reads a file in CPU list format. A missing file gives nil.
func readCPUList(fsys fs.FS, name string) ([]int, error) {
	text, ok, err := readText(fsys, name)
	if err != nil || !ok {
		return nil, err
	}
	cpus, err := ParseCPUList(text)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return cpus, nil
}

// readCPUFields reads a file of space-separated CPU numbers, the format of
// cpufreq related_cpus and affected_cpus ("4 5"). A missing file gives nil.
func readCPUFields(fsys fs.FS, name string) ([]int, error) {
	text, ok, err := readText(fsys, name)
	if err != nil || !ok {
		return nil, err
	}
	cpus := []int{}
	for _, f := range strings.Fields(text) {
		id, err := parseCPUID(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		cpus = append(cpus, id)
	}
	return cpus, nil
}

// parseSizeKiB parses a cache size as sysfs writes it ("32K", "3072K");
// "M" and "G" suffixes and plain byte counts are accepted as well.
func parseSizeKiB(s string) (int, error) {
	mult, digits := 0, s
	switch {
	case strings.HasSuffix(s, "K"):
		mult, digits = 1, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, digits = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "G"):
		mult, digits = 1<<20, s[:len(s)-1]
	}
	v, err := strconv.Atoi(digits)
	if err != nil || v < 0 || v > 1<<30 {
		return 0, fmt.Errorf("cache size %q is not like \"512K\"", s)
	}
	if mult == 0 {
		return v / 1024, nil
	}
	return v * mult, nil
}
