package sim

import (
	"math"
	"testing"

	"github.com/blsim/blsim/model"
)

// TestClockByBusyCores: an engine that lists its clock by busy cores runs
// a pool of n threads at the n-th entry, and at clock_ghz past the list.
// On the rk3588 big cores, a prefill (compute-bound) at -t 1 with a
// 10%-faster one-core clock runs close to 10% faster; at -t 4, past the
// list, nothing changes.
func TestClockByBusyCores(t *testing.T) {
	s, w := mustSoC(t, seedSoC), mustWorkload(t, seedWorkload)
	fast := s.Clone()
	big, _, err := fast.Engine("big")
	if err != nil {
		t.Fatal(err)
	}
	big.ClockGHzByBusyCores = []float64{big.ClockGHz * 1.1, big.ClockGHz * 1.05}
	if err := fast.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		threads  int
		min, max float64
	}{
		{1, 1.05, 1.1 + 1e-9},
		{2, 1.02, 1.05 + 1e-9},
		{3, 1, 1},
		{4, 1, 1},
	} {
		p := model.NewPool([]string{"big"}, []int{tc.threads}, 50)
		r := mustRun(t, fast, w, p).TPS / mustRun(t, s, w, p).TPS
		if r < tc.min-1e-9 || r > tc.max || (tc.min == tc.max && math.Abs(r-1) > 1e-12) {
			t.Errorf("-t %d: %.4fx the speed without the list, want %g-%g", tc.threads, r, tc.min, tc.max)
		}
	}
	big.ClockGHzByBusyCores = []float64{2400}
	if err := fast.Validate(); err == nil {
		t.Error("a clock of 2400 GHz in the list was accepted")
	}
}
