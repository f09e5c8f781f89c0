package probe

import (
	"errors"
	"testing"
)

func TestPerfCounter(t *testing.T) {
	for _, cpu := range []int{-1, 0} {
		c, err := OpenPerfCounter(PerfCacheMisses, cpu)
		if err != nil {
			if !errors.Is(err, ErrPerfUnsupported) {
				t.Logf("cpu %d: %v (not classed as unsupported)", cpu, err)
			} else {
				t.Logf("cpu %d: unsupported here: %v", cpu, err)
			}
			continue
		}
		if _, err := c.Read(); err != nil {
			t.Error(err)
		}
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}
	if _, err := OpenPerfCounter(PerfEvent(42), -1); err == nil {
		t.Error("unknown event: no error")
	}
}
