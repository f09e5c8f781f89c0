package probe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// PerfCounter is an open perf_event hardware counter.
type PerfCounter struct {
	fd    int
	event PerfEvent
	cpu   int
}

// OpenPerfCounter opens a hardware counter, best effort: on cpu for every
// thread when cpu >= 0 (which needs perf_event_paranoid <= 0 or
// CAP_PERFMON), or for the calling thread on any CPU when cpu < 0. When the
// kernel has no PMU for it (ENOENT, ENODEV, EOPNOTSUPP, common in virtual
// machines) or forbids it (EACCES, EPERM) the error wraps both
// ErrPerfUnsupported and the errno; callers should then go on without it.
func OpenPerfCounter(event PerfEvent, cpu int) (*PerfCounter, error) {
	var config uint64
	switch event {
	case PerfCycles:
		config = unix.PERF_COUNT_HW_CPU_CYCLES
	case PerfInstructions:
		config = unix.PERF_COUNT_HW_INSTRUCTIONS
	case PerfCacheReferences:
		config = unix.PERF_COUNT_HW_CACHE_REFERENCES
	case PerfCacheMisses:
		config = unix.PERF_COUNT_HW_CACHE_MISSES
	default:
		return nil, fmt.Errorf("probe: unknown perf event %d", int(event))
	}
	attr := unix.PerfEventAttr{
		Type:   unix.PERF_TYPE_HARDWARE,
		Size:   uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Config: config,
		Bits:   unix.PerfBitExcludeHv,
	}
	pid := -1
	if cpu < 0 {
		pid, cpu = 0, -1
	}
	fd, err := unix.PerfEventOpen(&attr, pid, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		where := fmt.Sprintf("cpu %d", cpu)
		if cpu < 0 {
			where = "this thread"
		}
		var errno unix.Errno
		if errors.As(err, &errno) {
			switch errno {
			case unix.ENOENT, unix.ENODEV, unix.EOPNOTSUPP, unix.EACCES, unix.EPERM, unix.ENOSYS:
				return nil, fmt.Errorf("probe: open perf %s counter on %s: %w: %w", event, where, ErrPerfUnsupported, err)
			}
		}
		return nil, fmt.Errorf("probe: open perf %s counter on %s: %w", event, where, err)
	}
	return &PerfCounter{fd: fd, event: event, cpu: cpu}, nil
}

// Read returns the count so far.
func (c *PerfCounter) Read() (uint64, error) {
	var b [8]byte
	n, err := unix.Read(c.fd, b[:])
	if err != nil {
		return 0, fmt.Errorf("probe: read perf %s counter: %w", c.event, err)
	}
	if n != 8 {
		return 0, fmt.Errorf("probe: read perf %s counter: got %d bytes, want 8", c.event, n)
	}
	return binary.NativeEndian.Uint64(b[:]), nil
}

// Close closes the counter.
func (c *PerfCounter) Close() error {
	if err := unix.Close(c.fd); err != nil {
		return fmt.Errorf("probe: close perf %s counter: %w", c.event, err)
	}
	return nil
}
