package probe

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Private futex operations; golang.org/x/sys/unix has no futex wrapper.
const (
	futexWaitPrivate = 128 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakePrivate = 129 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
)

// futexWait sleeps while *addr == val. It may return early (EAGAIN when the
// word already differs, EINTR on a signal); callers loop.
func futexWait(addr *uint32, val uint32) {
	// unix.Syscall6 tells the Go runtime the thread is in a system call, so
	// its P can be handed on while it sleeps; a raw syscall would hold the P
	// and could stall a stop-the-world.
	unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitPrivate, uintptr(val), 0, 0, 0)
}

// futexWake wakes up to n threads sleeping on addr and returns how many woke.
// Waking never blocks, so it is a raw system call, as in the Go runtime's own
// futexwakeup: going through the runtime's system-call entry and exit here
// was measured to add up to hundreds of µs to a wake.
func futexWake(addr *uint32, n int) int {
	r, _, _ := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakePrivate, uintptr(n), 0, 0, 0)
	return int(r)
}
