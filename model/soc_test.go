package model_test

import (
	"math"
	"strings"
	"testing"
)

func TestEngineRates(t *testing.T) {
	s := presetSoCsOne(t, "rk3588")
	big, i, err := s.Engine("big")
	if err != nil || i != 0 {
		t.Fatalf("Engine(big) = %d, %v", i, err)
	}
	if _, _, err := s.Engine("npu"); err == nil || !strings.Contains(err.Error(), `no engine "npu" (have big, little)`) {
		t.Errorf("Engine(npu): %v", err)
	}
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"one thread", big.ThreadRate(1), 1},
		{"no threads", big.ThreadRate(0), 0},
		{"four threads", big.ThreadRate(4), 4 / (1 + 0.03*3)},
		{"q4 GOPS 1 thread", big.MatmulGOPS("q4", 1), 28 * 2.3},
		{"q4 GOPS 4 threads", big.MatmulGOPS("q4", 4), 28 * 2.3 * 4 / 1.09},
		{"unknown class", big.MatmulGOPS("q3", 4), 0},
		{"scalar GOPS", big.ScalarGOPS(2), 2 * 2.3 * 2 / 1.03},
		{"cache alone", big.CacheBytesPerThread(1), 0.5 * 1024 * (512 + 3072)},
		{"cache shared by 4", big.CacheBytesPerThread(4), 0.5 * 1024 * (512 + 768)},
		{"cache shared by 0", big.CacheBytesPerThread(0), big.CacheBytesPerThread(1)},
	} {
		if math.Abs(tc.got-tc.want) > 1e-9*math.Max(1, tc.want) {
			t.Errorf("%s: %g, want %g", tc.name, tc.got, tc.want)
		}
	}
}

func TestHandoffWake(t *testing.T) {
	h := presetSoCsOne(t, "rk3588").Handoff // spin 1.5, futex 60, sleep exit 2400, 60 us per poll
	for _, tc := range []struct {
		name  string
		idle  float64
		poll  int
		want  float64
		spins float64
	}{
		{"poll 0 sleeps at once", 1, 0, 60 + 2400, 0},
		{"inside the window", 100, 50, 1.5, 3000},
		{"at the window edge", 3000, 50, 1.5, 3000},
		{"past the window", 3001, 50, 60 + 2400, 3000},
		{"idle 0 poll 0", 0, 0, 1.5, 0},
	} {
		if got := h.WakeUS(tc.idle, tc.poll); got != tc.want {
			t.Errorf("%s: WakeUS = %g, want %g", tc.name, got, tc.want)
		}
		if got := h.SpinWindowUS(tc.poll); got != tc.spins {
			t.Errorf("%s: SpinWindowUS = %g, want %g", tc.name, got, tc.spins)
		}
	}
}
