package busy

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// threadNow is the calling thread's ID, CPU and CPU time.
func threadNow() (ThreadExit, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return ThreadExit{}, false
	}
	var cpu, node uint32
	if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), uintptr(unsafe.Pointer(&node)), 0); e != 0 {
		return ThreadExit{}, false
	}
	return ThreadExit{TID: unix.Gettid(), CPU: int(cpu), Secs: float64(ts.Nano()) / 1e9}, true
}
