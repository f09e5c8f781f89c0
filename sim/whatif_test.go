package sim

import (
	"testing"
)

// TestWhatIfHardware: where DRAM is the bottleneck, more bandwidth (LPDDR5,
// DDR5) or a stronger second cluster ("balanced") makes the best token
// split pay more than on the seed's RK3588.
func TestWhatIfHardware(t *testing.T) {
	w := mustWorkload(t, seedWorkload)
	best := func(soc string) (frac, gain float64) {
		s := mustSoC(t, soc)
		fp, r, err := Best(s, w, tokenSplit(0, 50))
		f := fp.Fracs[1]
		if err != nil {
			t.Fatalf("Best on %s: %v", soc, err)
		}
		n := mustRun(t, s, w, native(50))
		return f, GainPct(r.TPS, n.TPS)
	}
	baseFrac, base := best(seedSoC)
	t.Logf("%s: best frac %.4f gain %.3f%%", seedSoC, baseFrac, base)
	tests := []struct {
		name, soc string
		// minMargin is how many percentage points above rk3588 the gain
		// must be.
		minMargin float64
	}{
		{"LPDDR5 board", "rk3588-lp5", 0.5},
		{"DDR5 board", "ddr5", 0.5},
		{"balanced clusters", "balanced", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, g := best(tc.soc)
			t.Logf("%s: best frac %.4f gain %.3f%%", tc.soc, f, g)
			if !(g > base+tc.minMargin) {
				t.Errorf("best gain %.3f%% on %s, want above %s's %.3f%% by %g points", g, tc.soc, seedSoC, base, tc.minMargin)
			}
			if !(f > 0 && f <= MaxSecondFrac) {
				t.Errorf("best fraction %g outside (0, %g]", f, MaxSecondFrac)
			}
		})
	}
}

// TestBestBeatsGrid: the search is at least as good as every point of a
// fine grid of fractions, up to the grid's resolution.
func TestBestBeatsGrid(t *testing.T) {
	w := mustWorkload(t, seedWorkload)
	for _, soc := range []string{seedSoC, "balanced"} {
		t.Run(soc, func(t *testing.T) {
			s := mustSoC(t, soc)
			_, r, err := Best(s, w, tokenSplit(0, 50))
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i <= 100; i++ {
				f := MaxSecondFrac * float64(i) / 100
				g := mustRun(t, s, w, tokenSplit(f, 50))
				if g.TPS > r.TPS*(1+1e-4) {
					t.Errorf("frac %.3f gives %.5f t/s, above Best's %.5f", f, g.TPS, r.TPS)
				}
			}
		})
	}
}
