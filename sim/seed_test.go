package sim

import (
	"math"
	"testing"
)

// TestSeed reproduces the seed experiment (DESIGN.md §1, §6): RK3588,
// Qwen3.5-35B-A3B, pp512. Native ~26.26 t/s, token-split balance point in
// 0.12-0.15, parity at frac 0.12 poll 50, and the poll=0 "+1 t/s" explained
// by handoff rather than by the little cores' compute.
func TestSeed(t *testing.T) {
	s := mustSoC(t, seedSoC)
	w := mustWorkload(t, seedWorkload)

	nat50 := mustRun(t, s, w, native(50))
	nat0 := mustRun(t, s, w, native(0))
	tok50 := mustRun(t, s, w, tokenSplit(0.12, 50))
	tok0 := mustRun(t, s, w, tokenSplit(0.12, 0))
	zero50 := mustRun(t, s, w, tokenSplit(0, 50))
	zero0 := mustRun(t, s, w, tokenSplit(0, 0))

	balance, err := Balance(s, w, tokenSplit(0, 50))
	if err != nil {
		t.Fatalf("Balance: %v", err)
	}
	gain50 := GainPct(tok50.TPS, nat50.TPS)
	iv, err := GainInterval(s, w, native(50), tokenSplit(0.12, 50), 0)
	if err != nil {
		t.Fatalf("GainInterval: %v", err)
	}
	t.Logf("native poll50 %.4f t/s, token 0.12 poll50 %.4f t/s (gain %.3f%%, 90%% interval [%.3f, %.3f]), balance %.4f",
		nat50.TPS, tok50.TPS, gain50, iv.LoPct, iv.HiPct, balance)
	t.Logf("poll0: native %.4f, token 0.12 %.4f, token 0 %.4f; poll50 token 0 %.4f",
		nat0.TPS, tok0.TPS, zero0.TPS, zero50.TPS)

	artefact := tok0.TPS - nat0.TPS    // the seed's poll-0 "+1 t/s"
	dispatcher := zero0.TPS - nat0.TPS // the same gain with the little idle
	tests := []struct {
		name   string
		got    float64
		lo, hi float64
	}{
		{"native poll50 t/s within 1% of 26.26", nat50.TPS, 26.26 * 0.99, 26.26 * 1.01},
		{"token split balance point", balance, 0.12, 0.15},
		{"token 0.12 poll50 gain % within ±1", gain50, -1, 1},
		{"native DRAM peak utilisation", nat50.DRAMUtilPeak, 0.93, 0.99},
		{"poll0 token 0.12 minus native t/s", artefact, 0.6, 1.4},
		{"poll0 frac-0 split gain share of the artefact", dispatcher / artefact, 0.7, math.Inf(1)},
		{"poll50 frac-0 split vs native, % ", math.Abs(GainPct(zero50.TPS, nat50.TPS)), 0, 0.2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !(tc.got >= tc.lo && tc.got <= tc.hi) {
				t.Errorf("got %.6g, want in [%g, %g]", tc.got, tc.lo, tc.hi)
			}
		})
	}

	t.Run("verdict at frac 0.12 poll 50 is PARITY", func(t *testing.T) {
		if iv.Draws == 0 {
			t.Errorf("interval has no draws: the rk3588 profile lists uncertainties")
		}
		if !(iv.LoPct <= iv.HiPct) || !finite(iv.LoPct) || !finite(iv.HiPct) {
			t.Errorf("bad interval %+v", iv)
		}
		if v := Judge(gain50, iv); v != "PARITY" {
			t.Errorf("Judge(%.3f, %+v) = %s, want PARITY", gain50, iv, v)
		}
	})

	// Verdict itself must be able to say something else.
	verdicts := []struct {
		name string
		gain float64
		iv   Interval
		want Verdict
	}{
		{"small gain", 0.5, Interval{LoPct: 0.2, HiPct: 0.8}, "PARITY"},
		{"interval spans zero", 3, Interval{LoPct: -0.5, HiPct: 6}, "PARITY"},
		{"clear win", 3, Interval{LoPct: 2, HiPct: 4}, "WIN"},
		{"clear loss", -3, Interval{LoPct: -4, HiPct: -2}, "LOSS"},
	}
	for _, tc := range verdicts {
		t.Run("Judge/"+tc.name, func(t *testing.T) {
			if got := Judge(tc.gain, tc.iv); got != tc.want {
				t.Errorf("Judge(%g, %+v) = %s, want %s", tc.gain, tc.iv, got, tc.want)
			}
		})
	}
}
