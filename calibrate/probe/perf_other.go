//go:build !linux

package probe

// PerfCounter is an open perf_event hardware counter; Linux only.
type PerfCounter struct{}

// OpenPerfCounter returns ErrNeedLinux on this system.
func OpenPerfCounter(PerfEvent, int) (*PerfCounter, error) { return nil, ErrNeedLinux }

// Read returns ErrNeedLinux on this system.
func (c *PerfCounter) Read() (uint64, error) { return 0, ErrNeedLinux }

// Close returns ErrNeedLinux on this system.
func (c *PerfCounter) Close() error { return ErrNeedLinux }
