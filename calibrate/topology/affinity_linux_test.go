//go:build linux

package topology

import (
	"runtime"
	"slices"
	"testing"
)

func TestAllowedCPUs(t *testing.T) {
	cpus, err := AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	if len(cpus) == 0 || !slices.IsSorted(cpus) {
		t.Fatalf("AllowedCPUs() = %v", cpus)
	}
	// The Go runtime sizes GOMAXPROCS from the same affinity mask.
	if n := runtime.NumCPU(); len(cpus) != n {
		t.Errorf("AllowedCPUs() has %d CPUs, runtime.NumCPU() = %d", len(cpus), n)
	}
}
