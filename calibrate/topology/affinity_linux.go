//go:build linux

package topology

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"
)

// AllowedCPUs returns the CPUs the calling thread may run on, from
// sched_getaffinity(2): the set taskset, cgroup cpusets and container
// runtimes restrict. Pass it to Override.
//
// It makes the same system call as golang.org/x/sys/unix.SchedGetaffinity,
// through package syscall, because x/sys v0.50.0 needs a go.mod "go 1.26.0"
// line. Unlike x/sys it also works on kernels built for more than 1024
// CPUs, by growing the mask until the kernel accepts it.
func AllowedCPUs() ([]int, error) {
	const wordBits = int(unsafe.Sizeof(uintptr(0))) * 8
	for words := 1024 / wordBits; words*wordBits <= MaxCPUID+1; words *= 2 {
		// The kernel fills an array of unsigned long, which is uintptr.
		mask := make([]uintptr, words)
		n, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0,
			uintptr(len(mask))*unsafe.Sizeof(mask[0]), uintptr(unsafe.Pointer(&mask[0])))
		if errno == syscall.EINVAL {
			continue // mask shorter than the kernel's nr_cpu_ids
		}
		if errno != 0 {
			return nil, fmt.Errorf("topology: sched_getaffinity: %w", errno)
		}
		var cpus []int
		for id := 0; id < int(n)*8; id++ {
			if mask[id/wordBits]&(1<<(id%wordBits)) != 0 {
				cpus = append(cpus, id)
			}
		}
		return cpus, nil
	}
	return nil, errors.New("topology: sched_getaffinity: kernel CPU mask larger than MaxCPUID")
}
