//go:build !linux

package topology

import (
	"fmt"
	"runtime"
)

// AllowedCPUs returns the CPUs the calling thread may run on. It needs
// Linux's sched_getaffinity(2); elsewhere it returns an error.
func AllowedCPUs() ([]int, error) {
	return nil, fmt.Errorf("topology: AllowedCPUs needs Linux (sched_getaffinity); this is %s", runtime.GOOS)
}
