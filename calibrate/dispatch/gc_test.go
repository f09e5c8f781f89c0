package dispatch

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestHoldGCNested: overlapping timed runs leave the collector as it was
// once the last ends, whatever order they end in, and the collector is
// never off without a memory limit.
func TestHoldGCNested(t *testing.T) {
	pct := debug.SetGCPercent(100)
	defer debug.SetGCPercent(pct)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(limit)

	a := holdGC()
	b := holdGC()
	if got := debug.SetMemoryLimit(-1); got == math.MaxInt64 {
		t.Error("the collector is off with no memory limit")
	}
	a() // the first run ends first
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("one run still under way, yet the collector is back at %d%%", got)
	}
	b()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after both runs the collector is at %d%%, want 100%%", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("after both runs the memory limit is %d, want none", got)
	}
}
