package model_test

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

// TestBackgroundStall: the host's background work stalls a pool only
// where the pool, with its busy tasks, leaves no CPU hardware thread of
// the chip idle: on the hybrid fixture (8 P-cores of two threads, 16
// E-cores) that is -t 32 over both clusters, or fewer threads beside
// busy tasks; a pool on the P-cores alone, however many threads, leaves
// the E-cores to it, and a --cpu-mask does not narrow where other
// processes run. A token graph's op stalls for the whole background
// share, a prompt's for its share over the pool's threads.
func TestBackgroundStall(t *testing.T) {
	s := loadSMT(t)
	s.Handoff.BackgroundCPUs = 0.2
	pool := func(p, e int) model.Plan {
		if e == 0 {
			return model.NewPool([]string{"p"}, []int{p}, 50)
		}
		return model.NewPool([]string{"p", "e"}, []int{p, e}, 50)
	}
	busy := pool(12, 16)
	busy.BusyCores = []int{4, 0}
	masked := pool(16, 16)
	masked.Allowed = []model.CoreSet{{Cores: 8, Ways: 2}, {Cores: 16, Ways: 1}}
	narrowed := pool(8, 16)
	narrowed.Allowed = []model.CoreSet{{Cores: 8, Ways: 1}, {Cores: 16, Ways: 1}}
	split := pool(16, 16)
	split.Mode = model.TokenSplit
	for _, tc := range []struct {
		name          string
		p             model.Plan
		fills         bool
		token, prompt float64
	}{
		{"-t 8 on the P-cores", pool(8, 0), false, 0, 0},
		{"-t 16 on the P-cores and their siblings", pool(16, 0), false, 0, 0},
		{"-t 24: P-cores and E-cores, the siblings idle", pool(8, 16), false, 0, 0},
		{"-t 32: every hardware thread", pool(16, 16), true, 0.2, 0.2 / 32},
		{"-t 28 beside 4 busy tasks", busy, true, 0.2, 0.2 / 28},
		{"-t 32 with a mask of all", masked, true, 0.2, 0.2 / 32},
		{"-t 24 with the siblings masked out", narrowed, false, 0, 0},
		{"a split plan", split, false, 0, 0},
	} {
		if got := tc.p.FillsCPUs(s); got != tc.fills {
			t.Errorf("%s: FillsCPUs %v, want %v", tc.name, got, tc.fills)
		}
		tok, pr := tc.p.BackgroundStall(s, true), tc.p.BackgroundStall(s, false)
		if math.Abs(tok-tc.token) > 1e-12 || math.Abs(pr-tc.prompt) > 1e-12 {
			t.Errorf("%s: stall %g (token), %g (prompt), want %g, %g", tc.name, tok, pr, tc.token, tc.prompt)
		}
	}
	s.Handoff.BackgroundCPUs = 0
	if got := pool(16, 16).BackgroundStall(s, true); got != 0 {
		t.Errorf("no background work: stall %g, want 0", got)
	}
}

// TestBackgroundCPUsValidated: a background share outside [0, 0.9] is
// refused, naming the field.
func TestBackgroundCPUsValidated(t *testing.T) {
	for _, v := range []float64{-0.1, 0.95, math.NaN()} {
		s := loadSMT(t)
		s.Handoff.BackgroundCPUs = v
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), "handoff.background_cpus") {
			t.Errorf("background_cpus %g: %v, want an error naming handoff.background_cpus", v, err)
		}
	}
	s := loadSMT(t)
	if err := s.Set("handoff.background_cpus", 0.3); err != nil || s.Handoff.BackgroundCPUs != 0.3 {
		t.Errorf("Set handoff.background_cpus: %v (%g)", err, s.Handoff.BackgroundCPUs)
	}
}
