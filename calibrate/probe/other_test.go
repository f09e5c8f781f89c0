//go:build !linux

package probe

import (
	"errors"
	"testing"
	"time"
)

func TestNeedLinux(t *testing.T) {
	for name, call := range map[string]func() error{
		"Pin":                 func() error { return Pin(0) },
		"NewPool":             func() error { _, err := NewPool([]int{0}, 0); return err },
		"StreamRead":          func() error { _, err := StreamRead([]int{0}, 0, 1<<20, nil); return err },
		"streamReadContended": func() error { _, err := streamReadContended([]int{0}, []int{1}, 1<<20, nil); return err },
		"StreamReadTogether":  func() error { _, err := StreamReadTogether([]int{0, 1}, 1<<20, nil); return err },
		"KernelThroughput":    func() error { _, err := KernelThroughput([]int{0}, 0, KernelF32, nil); return err },
		"FutexWake":           func() error { _, err := FutexWake(0, 1, time.Millisecond, nil); return err },
		"SpinHandoff":         func() error { _, err := SpinHandoff(0, 1, nil); return err },
		"SpinUnit":            func() error { _, err := SpinUnit(0, nil); return err },
		"Barrier":             func() error { _, err := Barrier([]int{0, 1}, nil); return err },
		"CurrentCPU":          func() error { _, err := CurrentCPU(); return err },
	} {
		if err := call(); !errors.Is(err, ErrNeedLinux) {
			t.Errorf("%s: err = %v, want ErrNeedLinux", name, err)
		}
	}
}
