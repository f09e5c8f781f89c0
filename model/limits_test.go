package model_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blsim/blsim/presets"
)

// TestTooManyEngines: a SoC with more than MaxEngines engines is refused,
// naming the count, before any engine is checked.
func TestTooManyEngines(t *testing.T) {
	skipShort(t)
	base, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{65, 100000} {
		s := base.Clone()
		for len(s.Engines) < n {
			e := s.Engines[1]
			e.Name = fmt.Sprintf("e%d", len(s.Engines))
			s.Engines = append(s.Engines, e)
		}
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("engines: %d engines: at most 64", n)) {
			t.Errorf("%d engines: %v", n, err)
		}
	}
}

// TestTooManyUbatches: a prompt cut into more than MaxUbatches ubatches is
// refused, naming the count and the limit.
func TestTooManyUbatches(t *testing.T) {
	w, err := presets.Workload("qwen3.5-35b-a3b")
	if err != nil {
		t.Fatal(err)
	}
	w.Run.PromptTokens, w.Run.Ubatch = 1<<20, 1
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), "run.ubatch: prompt 1048576 in ubatches of 1 is 1048576 ubatches: at most 4096") {
		t.Errorf("1M ubatches: %v", err)
	}
	w.Run.PromptTokens = 4096
	if err := w.Validate(); err != nil {
		t.Errorf("4096 ubatches: %v", err)
	}
}
