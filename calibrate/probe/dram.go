package probe

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// DMCLoad is one reading of a DRAM controller's devfreq load file, such as
// the RK3588's /sys/class/devfreq/dmc/load ("NN@FREQHz").
type DMCLoad struct {
	Device  string  // devfreq device name, e.g. "dmc"
	Percent float64 // busy share of the last sampling window, 0-100
	FreqHz  int64   // controller frequency
}

// ParseDMCLoad parses a devfreq load file's text, "NN@FREQHz" with an
// optional trailing newline, e.g. "23@1560000000Hz".
func ParseDMCLoad(s string) (pct float64, freqHz int64, err error) {
	s = strings.TrimSpace(s)
	l, f, ok := strings.Cut(s, "@")
	if !ok {
		return 0, 0, fmt.Errorf("probe: devfreq load %q: want NN@FREQHz", s)
	}
	pct, err = strconv.ParseFloat(l, 64)
	if err != nil || pct < 0 || pct > 100 {
		return 0, 0, fmt.Errorf("probe: devfreq load %q: load %q is not a percentage", s, l)
	}
	f = strings.TrimSuffix(f, "Hz")
	freqHz, err = strconv.ParseInt(f, 10, 64)
	if err != nil || freqHz < 0 {
		return 0, 0, fmt.Errorf("probe: devfreq load %q: frequency %q is not a number of Hz", s, f)
	}
	return pct, freqHz, nil
}

// DRAMLoad reads the load of every devfreq device whose name contains "dmc"
// under sysfsRoot/class/devfreq ("" means /sys). It only reads: the load
// file reports the last window of the governor. The error wraps ErrNoDMC
// when no such device exists, as on x86.
func DRAMLoad(sysfsRoot string) ([]DMCLoad, error) {
	if sysfsRoot == "" {
		sysfsRoot = "/sys"
	}
	pattern := filepath.Join(sysfsRoot, "class/devfreq/*dmc*/load")
	files, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("probe: glob %s: %w", pattern, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("probe: %s: %w", pattern, ErrNoDMC)
	}
	var out []DMCLoad
	for _, f := range files {
		s, err := readTrim(f)
		if err != nil {
			return out, fmt.Errorf("probe: read %s: %w", f, err)
		}
		pct, hz, err := ParseDMCLoad(s)
		if err != nil {
			return out, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, DMCLoad{Device: filepath.Base(filepath.Dir(f)), Percent: pct, FreqHz: hz})
	}
	return out, nil
}
