package model_test

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/presets"
)

// TestFractionHint: a share above 1 gets the percentage reading only where
// it reads as one (2 to 100: gemv_overlap 73 is 0.73); just past 1 (an
// overlap of 1.5) it is a share past its end, and the error says what 1
// means instead of calling it 1.5%.
func TestFractionHint(t *testing.T) {
	base, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v         float64
		want, not string
	}{
		{1.5, "engines[0].gemv_overlap: 1.5 is outside [0, 1] (a share: 1 is all of it, the most there is)", "%"},
		{1.01, "1.01 is outside [0, 1] (a share: 1 is all of it", "%"},
		{2, "2 is outside [0, 1] (a fraction, not a percentage: 2% is 0.02)", ""},
		{73, "73 is outside [0, 1] (a fraction, not a percentage: 73% is 0.73)", ""},
		{150, "150 is outside [0, 1]", "("},
	} {
		s := base.Clone()
		s.Engines[0].GemvOverlap = tc.v
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.not != "" && strings.Contains(err.Error(), tc.not)) {
			t.Errorf("gemv_overlap %g: %v; want %q without %q", tc.v, err, tc.want, tc.not)
		}
	}
}

// TestIndependentThreadLoadsValid: the threads' load phases are 0 or 1,
// and 1 needs each thread's stream rate; the error names the field.
func TestIndependentThreadLoadsValid(t *testing.T) {
	base, err := presets.SoC("i9-13900k")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v, perThread float64
		want         string
	}{
		{1, 30.6, ""},
		{0.5, 30.6, "engines[0].independent_thread_loads: 0.5: want 0 (lockstep) or 1 (independent)"},
		{1, 0, "engines[0].independent_thread_loads: needs bandwidth_per_thread_gb_s"},
	} {
		s := base.Clone()
		s.Engines[0].IndependentThreadLoads, s.Engines[0].BandwidthPerThreadGBs = tc.v, tc.perThread
		err := s.Validate()
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("independent_thread_loads %g, per thread %g: %v; want %q", tc.v, tc.perThread, err, tc.want)
		}
	}
}
