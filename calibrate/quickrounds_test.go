package calibrate

import (
	"fmt"
	"slices"
	"testing"
)

// TestRecordedQuickRounds refits ten pairs of quick calibrations recorded
// side by side on the 2-vCPU build machine, each pair in a quiet window of
// its own (2026-12-02, 22:59-23:28 UTC, main at 6252533): `blsim calibrate
// --cluster big=0-1 --quick --plans fit+heldout` as it was, one round of
// the dispatcher grid (one-N.jsonl), then with `--rounds 3 --shuffle`,
// what a quick calibration now does by default (three-N.jsonl; no first
// round of theirs was disturbed, so none would have skipped its later
// rounds). A profile is written where the fit passes calibrate's check.
// Three rounds wrote 7 profiles against 6, held out at most 5% in 4 tries
// against 3, and the median held-out error fell from 8.66% to 6.28%; the
// issue's 10 of 10 at most 5% is not met (docs/busy-machine.md).
// Refitted with the fit's further starts for the bandwidth caps
// (fit.CapStartShares, ninth session): one round 10 profiles, 6 within 5%,
// median 4.30%; three rounds 10, 9, 3.54%.
func TestRecordedQuickRounds(t *testing.T) {
	skipShort(t)
	t.Parallel()
	type score struct {
		profiles, within5 int
		heldOut           []float64
	}
	// The twenty refits are independent: two at a time, read in order.
	var paths []string
	for i := 1; i <= 10; i++ {
		for _, name := range []string{"one", "three"} {
			paths = append(paths, fmt.Sprintf("testdata/quick-vm-rounds/%s-%d.jsonl", name, i))
		}
	}
	fits := quickHoldouts(t, paths)
	var one, three score
	for i := 1; i <= 10; i++ {
		for j, c := range []struct {
			name string
			s    *score
		}{{"one", &one}, {"three", &three}} {
			f := fits[2*(i-1)+j]
			if f.err != nil {
				t.Fatalf("testdata/quick-vm-rounds/%s-%d.jsonl: %v", c.name, i, f.err)
			}
			written, h := f.r.Check() == nil, f.v.MAPE
			if written {
				c.s.profiles++
				if h <= 5 {
					c.s.within5++
				}
			}
			c.s.heldOut = append(c.s.heldOut, h)
			t.Logf("pair %d, %s round(s): profile %v, held out %.2f%%", i, c.name, written, h)
		}
	}
	median := func(xs []float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	t.Logf("one round: %d profiles, %d at most 5%%, median held out %.2f%%; three: %d, %d, %.2f%%",
		one.profiles, one.within5, median(one.heldOut), three.profiles, three.within5, median(three.heldOut))
	if three.profiles != 10 || one.profiles != 10 || three.within5 != 9 || one.within5 != 6 {
		t.Errorf("profiles (at most 5%%): one round %d (%d), three %d (%d); refitted with the cap starts 10 (6) and 10 (9)", one.profiles, one.within5, three.profiles, three.within5)
	}
	if m1, m3 := median(one.heldOut), median(three.heldOut); m3 >= m1 {
		t.Errorf("median held out: three rounds %.2f%%, one %.2f%%: want three lower (refitted 3.54 and 4.30%%)", m3, m1)
	}
}
