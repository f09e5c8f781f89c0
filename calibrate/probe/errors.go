package probe

import (
	"errors"
	"fmt"
)

// ErrNeedLinux is returned by every measuring function on systems other than
// Linux.
var ErrNeedLinux = errors.New("probe: measuring needs Linux")

// ErrNoCacheInfo is wrapped by LLCBytesAt's error when sysfs has no cache
// sizes.
var ErrNoCacheInfo = errors.New("probe: no cache information in sysfs")

// CPUError reports a CPU that cannot be used: negative, beyond the affinity
// mask's range, or outside the set this process may run on.
type CPUError struct {
	CPU     int
	Allowed []int // the CPUs the process may run on, when known
}

func (e *CPUError) Error() string {
	if e.Allowed == nil {
		return fmt.Sprintf("probe: cpu %d is not usable", e.CPU)
	}
	return fmt.Sprintf("probe: cpu %d is not usable; this process may run on cpus %s",
		e.CPU, formatCPUs(e.Allowed))
}

// formatCPUs writes a CPU list the way sysfs does: "0-3,6".
func formatCPUs(cpus []int) string {
	s := ""
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if s != "" {
			s += ","
		}
		if j > i {
			s += fmt.Sprintf("%d-%d", cpus[i], cpus[j])
		} else {
			s += fmt.Sprintf("%d", cpus[i])
		}
		i = j + 1
	}
	return s
}
