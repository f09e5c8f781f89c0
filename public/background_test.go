package public

import (
	"math"
	"testing"
)

// TestDesktopBackground: the desktop hosts' background work is what
// SMT-7/t16 set (the 6800H's tg128 drop from -t 8 to -t 16, which fills
// its hardware threads), and it is checked on a row that set nothing:
// INT-1/t32, the 13900K's tg128 with all 32 hardware threads, turns down
// from -t 8 within the ratio target, and INT-1's best -t is the measured
// one. Without it (FamilyBackgroundCPUs emptied) INT-1/t32 misses the
// ratio target and its sweep's best -t is wrong, so the check can fail.
// The prompt rows of the same chips, whose ops are long, keep what they
// had: SMT-6/t16 within the ratio target, INT-2's best -t (32) right.
func TestDesktopBackground(t *testing.T) {
	rows, err := Rows()
	if err != nil {
		t.Fatal(err)
	}
	tps := map[string]float64{}
	for _, r := range rows {
		tps[r.ID] = r.TPS
	}
	if got := math.Round(100*(1-tps["SMT-7/t16"]/tps["SMT-7/t8"])) / 100; got != DesktopBackgroundCPUs {
		t.Errorf("DesktopBackgroundCPUs %g, but 1 - SMT-7/t16 / SMT-7/t8 is %g", DesktopBackgroundCPUs, got)
	}
	score := func() (map[string]Result, map[string]Sweep) {
		res, sw := map[string]Result{}, map[string]Sweep{}
		for _, fam := range []string{"intel", "amd"} {
			rep, err := Score(rows, Options{Family: fam})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Results {
				res[r.ID] = r
			}
			for _, s := range rep.Sweeps {
				sw[s.ID] = s
			}
		}
		return res, sw
	}
	res, sw := score()
	if r := res["SMT-7/t16"]; r.Status != Setting {
		t.Errorf("SMT-7/t16: status %q, want %q (it set the value)", r.Status, Setting)
	}
	for _, id := range []string{"INT-1/t32", "SMT-6/t16"} {
		r := res[id]
		t.Logf("%s: measured %.2f, blsim %.2f t/s; ratio to the sweep's best %.3f, blsim %.3f (%+.1f%%)", id, r.TPS, r.Predicted, r.RatioMeasured, r.RatioPredicted, r.RatioErrPct)
		if r.Status != Scored || (r.HasRatio && math.Abs(r.RatioErrPct) > RatioTargetPct) {
			t.Errorf("%s (%s): ratio error %+.1f%%, want within %d%%", id, r.Status, r.RatioErrPct, RatioTargetPct)
		}
	}
	for id, want := range map[string]int{"INT-1": 8, "INT-2": 32} {
		if s := sw[id]; !s.OK || s.PredictedBestThreads != want {
			t.Errorf("%s: blsim's best -t %d (%.1f%% short of the measured best), want the measured -t %d", id, s.PredictedBestThreads, s.ShortfallPct, want)
		}
	}
	saved := FamilyBackgroundCPUs
	FamilyBackgroundCPUs = map[string]float64{}
	defer func() { FamilyBackgroundCPUs = saved }()
	res, sw = score()
	if r := res["INT-1/t32"]; math.Abs(r.RatioErrPct) <= RatioTargetPct {
		t.Errorf("without background work INT-1/t32's ratio error is %+.1f%%: the check cannot tell the mechanism", r.RatioErrPct)
	}
	if sw["INT-1"].OK {
		t.Error("without background work INT-1's best -t is still right: the check cannot tell the mechanism")
	}
}
