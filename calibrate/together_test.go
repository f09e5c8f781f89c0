package calibrate

import (
	"testing"

	"github.com/blsim/blsim/calibrate/probe"
)

// TestTogetherWorkingSet: the stream of all engines at once reads the one
// stream's working set in all, shared among its CPUs, never n of them: an
// 8-CPU RK3588 would have needed 8 GiB on a 4 GB board.
func TestTogetherWorkingSet(t *testing.T) {
	const gib = int64(1) << 30
	for _, c := range []struct {
		ws   int64
		n    int
		each int64
	}{
		{gib, 1, gib},
		{gib, 2, gib / 2},
		{gib, 8, gib / 8},
		{4 * gib, 8, gib / 2},
		// Never below the DRAM minimum in all.
		{64 << 20, 8, probe.MinDRAMWorkingSet / 8},
	} {
		got := TogetherWorkingSet(c.ws, c.n)
		if got != c.each {
			t.Errorf("TogetherWorkingSet(%d, %d) = %d, want %d", c.ws, c.n, got, c.each)
		}
		if total := got * int64(c.n); c.n > 1 && total > max(c.ws, probe.MinDRAMWorkingSet) {
			t.Errorf("%d CPUs read %d bytes in all, more than the one stream's %d", c.n, total, c.ws)
		}
	}
}
