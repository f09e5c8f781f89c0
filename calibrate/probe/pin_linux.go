package probe

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

const haveLinux = true

// allowed is the set of CPUs the process may run on, read at package
// initialisation, which runs on the main thread before anything is pinned.
var allowed, allowedErr = readAllowed()

func readAllowed() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("probe: read this process's CPU affinity: %w", err)
	}
	return cpuList(&set), nil
}

func cpuList(set *unix.CPUSet) []int {
	var cpus []int
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// AllowedCPUs returns the CPUs this process could run on when it started.
func AllowedCPUs() ([]int, error) {
	if allowedErr != nil {
		return nil, allowedErr
	}
	return append([]int(nil), allowed...), nil
}

// checkCPU reports a *CPUError unless cpu is in the process's allowed set.
func checkCPU(cpu int) error {
	if allowedErr != nil {
		return allowedErr
	}
	for _, c := range allowed {
		if c == cpu {
			return nil
		}
	}
	return &CPUError{CPU: cpu, Allowed: append([]int(nil), allowed...)}
}

// Pin locks the calling goroutine to its OS thread and restricts that thread
// to cpu. The goroutine stays locked: call Unpin to release it, or let the
// goroutine exit locked so the runtime discards the thread. Pin returns a
// *CPUError, without locking, when cpu is not one the process may run on.
func Pin(cpu int) error {
	if err := checkCPU(cpu); err != nil {
		return err
	}
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("probe: pin thread to cpu %d: %w", cpu, err)
	}
	return nil
}

// pinSet is Pin to a set of CPUs: the thread may run on any of cpus.
func pinSet(cpus []int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		if err := checkCPU(c); err != nil {
			return err
		}
		set.Set(c)
	}
	runtime.LockOSThread()
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("probe: pin thread to cpus %s: %w", formatCPUs(cpus), err)
	}
	return nil
}

// Unpin gives the calling thread back the process's initial CPU set and
// unlocks the goroutine from it, undoing Pin.
func Unpin() error {
	if allowedErr != nil {
		return allowedErr
	}
	var set unix.CPUSet
	for _, c := range allowed {
		set.Set(c)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("probe: restore thread affinity to cpus %s: %w", formatCPUs(allowed), err)
	}
	runtime.UnlockOSThread()
	return nil
}

// CurrentCPU returns the CPU the calling thread is running on (getcpu(2);
// golang.org/x/sys/unix has no wrapper for it).
func CurrentCPU() (int, error) {
	var cpu, node uint32
	_, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), uintptr(unsafe.Pointer(&node)), 0)
	if e != 0 {
		return -1, fmt.Errorf("probe: getcpu: %w", e)
	}
	return int(cpu), nil
}

func gettid() int { return unix.Gettid() }

// threadAsleep reports whether thread tid of this process is in
// interruptible sleep (state S), as a thread blocked in futex wait is.
func threadAsleep(tid int) (bool, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/stat", tid))
	if err != nil {
		return false, fmt.Errorf("probe: read thread %d state: %w", tid, err)
	}
	// "tid (comm) S ...": comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false, fmt.Errorf("probe: thread %d stat %q has no state", tid, b)
	}
	return b[i+2] == 'S', nil
}

// threadCPUNanos is the CPU time the calling OS thread has run, in
// nanoseconds (CLOCK_THREAD_CPUTIME_ID): unlike the wall clock, it does
// not run while the thread waits for its CPU.
func threadCPUNanos() (int64, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, fmt.Errorf("probe: thread CPU clock: %w", err)
	}
	return ts.Nano(), nil
}
