package fit

import (
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// TestWithRunTests: a record's test replaces the workload's, pp, tg or
// pp+tg; a tg keeps the workload's ubatch.
func TestWithRunTests(t *testing.T) {
	w := &model.Workload{Run: model.Run{PromptTokens: 512, Ubatch: 512}}
	for _, tc := range []struct {
		r    *measure.Run
		want model.Run
	}{
		{nil, w.Run},
		{&measure.Run{PromptTokens: 512, Ubatch: 512}, w.Run},
		{&measure.Run{PromptTokens: 64, Ubatch: 16}, model.Run{PromptTokens: 64, Ubatch: 16}},
		{&measure.Run{PromptTokens: 64, Ubatch: 512}, model.Run{PromptTokens: 64, Ubatch: 64}},
		{&measure.Run{GenTokens: 32, Ubatch: 16}, model.Run{Ubatch: 512, GenTokens: 32}},
		{&measure.Run{PromptTokens: 64, Ubatch: 64, GenTokens: 32, Depth: 128}, model.Run{PromptTokens: 64, Ubatch: 64, GenTokens: 32, Depth: 128}},
	} {
		if got := WithRun(w, tc.r).Run; got != tc.want {
			t.Errorf("WithRun(%+v) = %+v, want %+v", tc.r, got, tc.want)
		}
	}
}
