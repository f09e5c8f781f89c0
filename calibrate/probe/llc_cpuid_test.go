package probe

import (
	"runtime"
	"testing"
)

// TestLLCCPUID: on x86-64 the processor describes its caches, and the
// largest at the highest level is at least as large as an L1 and at most a
// few GiB; where /sys lists them too, the two agree within a factor of
// two (a VM may list a slice of the host's L3).
func TestLLCCPUID(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("CPUID is x86-64's")
	}
	n := llcCPUID()
	t.Logf("CPUID last-level cache: %d KiB", n>>10)
	if n < 32<<10 || n > 4<<30 {
		t.Fatalf("CPUID says the last-level cache is %d bytes", n)
	}
	if s, err := LLCBytes(); err == nil && (s > 2*n || n > 2*s) && s > 0 {
		t.Logf("/sys says %d KiB", s>>10)
	}
	if got, src, err := HostLLC(); err != nil || got <= 0 || src == "" {
		t.Errorf("HostLLC = %d, %q, %v", got, src, err)
	}
}
