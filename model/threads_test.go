package model_test

import (
	"testing"

	"github.com/blsim/blsim/model"
)

// An engine's default thread count is four, capped at its cores, and is a
// thread count every preset's plans accept.
func TestDefaultThreads(t *testing.T) {
	for _, tc := range []struct {
		cores, want int
	}{
		{1, 1},
		{2, 2},
		{3, 3},
		{4, 4},
		{8, 4},
		{64, 4},
	} {
		e := model.Engine{Name: "big", Cores: tc.cores}
		if got := e.DefaultThreads(); got != tc.want {
			t.Errorf("%d cores: DefaultThreads() = %d, want %d", tc.cores, got, tc.want)
		}
	}
	for name, s := range presetSoCs(t) {
		for i := range s.Engines {
			e := &s.Engines[i]
			n := e.DefaultThreads()
			if n < 1 || n > e.Cores {
				t.Errorf("%s: %s: DefaultThreads() = %d outside 1..%d", name, e.Name, n, e.Cores)
			}
			if e.IsAccelerator() {
				continue // an accelerator is never the main engine
			}
			if err := model.NewNative(e.Name, n, 0).Validate(s); err != nil {
				t.Errorf("%s: %s: native plan at the default threads: %v", name, e.Name, err)
			}
		}
	}
}
