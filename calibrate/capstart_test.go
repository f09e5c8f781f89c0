package calibrate

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/blsim/blsim/calibrate/fit"
)

// TestRecordedQuickCapStarts refits one-cluster quick calibrations of the
// 2-vCPU build machine (`blsim calibrate --cluster big=0-1 --quick --plans
// fit+heldout`) with and without the fit's further starts for the
// bandwidth caps (fit.CapStartShares). The 24 tries of quick-vm-heldout,
// quick-vm-rounds/three-* and quick-vm-starts/{q1-*,b-0} are the ones the
// shares were chosen on; the 8 of quick-vm-starts/{A,B}-* were measured
// after (A: main's quick grid, B: with the f32 points, alternating,
// 2026-12-03 08:25-08:50 UTC) and first scored 7 -> 8 profiles, 2 -> 3
// within 5%, median 8.51 -> 6.37%, with sustained DRAM started low too.
// Leaving sustained DRAM where its stream measured it (a recorded full
// calibration's test showed the start moving it) gave the figures held
// here on both sets: so the later eight are no longer untouched by the
// choice, and a new campaign (docs/busy-machine.md) is the check. Without the starts the quick
// stream's reading of the cap (25-67 GB/s from one try to the next) stays
// where it is whenever it is above the runs' demand: three-6's fit put it
// at 67 GB/s and missed its two-thread runs by up to 59%.
func TestRecordedQuickCapStarts(t *testing.T) {
	skipShort(t)
	glob := func(patterns ...string) []string {
		var out []string
		for _, p := range patterns {
			f, err := filepath.Glob(p)
			if err != nil || len(f) == 0 {
				t.Fatalf("%s: no fixtures", p)
			}
			out = append(out, f...)
		}
		return out
	}
	chosen := glob("testdata/quick-vm-heldout/*.jsonl", "testdata/quick-vm-rounds/three-*.jsonl",
		"testdata/quick-vm-starts/q1-*.jsonl", "testdata/quick-vm-starts/b-0.jsonl")
	fresh := glob("testdata/quick-vm-starts/[AB]-*.jsonl")
	type score struct {
		written, within5 int
		median           float64
	}
	// refit scores files refitted with the cap starts' shares set to
	// shares, through quickHoldouts: with fit.CapStartShares as it is, the
	// tries TestRecordedQuickHeldOut and TestRecordedQuickRounds score too
	// are refitted once for all three (this test runs first, alone, as it
	// sets fit.CapStartShares; theirs wait on t.Parallel).
	refit := func(files []string, shares []float64) score {
		saved := fit.CapStartShares
		fit.CapStartShares = shares
		defer func() { fit.CapStartShares = saved }()
		var s score
		held := make([]float64, len(files))
		for i, x := range quickHoldouts(t, files) {
			if x.err != nil {
				t.Fatalf("%s: %v", files[i], x.err)
			}
			held[i] = x.v.MAPE
			if x.r.Check() == nil {
				s.written++
				if held[i] <= 5 {
					s.within5++
				}
			}
		}
		slices.Sort(held)
		s.median = held[len(held)/2]
		return s
	}
	for _, c := range []struct {
		name          string
		files         []string
		before, after score
	}{
		{"chosen on", chosen, score{21, 7, 6.89}, score{24, 22, 3.53}},
		{"later", fresh, score{7, 2, 8.51}, score{8, 5, 3.05}},
	} {
		before, after := refit(c.files, nil), refit(c.files, fit.CapStartShares)
		t.Logf("%s (%d tries): without the cap starts %d profiles, %d at most 5%%, median held out %.2f%%; with them %d, %d, %.2f%%",
			c.name, len(c.files), before.written, before.within5, before.median, after.written, after.within5, after.median)
		near := func(a, b score) bool {
			return a.written == b.written && a.within5 == b.within5 && a.median > b.median-0.01 && a.median < b.median+0.01
		}
		if !near(before, c.before) || !near(after, c.after) {
			t.Errorf("%s: got %+v → %+v, recorded %+v → %+v", c.name, before, after, c.before, c.after)
		}
		if after.within5 <= before.within5 || after.median >= before.median {
			t.Errorf("%s: the cap starts did not help: %+v → %+v", c.name, before, after)
		}
	}
}
