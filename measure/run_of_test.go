package measure

import (
	"testing"

	"github.com/blsim/blsim/model"
)

// TestRunOf: a record's test overrides the workload's own run, its ubatch
// at most its prompt; a tg record keeps the workload's ubatch; a record
// without a test ran the workload's own.
func TestRunOf(t *testing.T) {
	own := model.Run{PromptTokens: 512, Ubatch: 512}
	for _, tc := range []struct {
		r    *Run
		want model.Run
	}{
		{nil, own},
		{&Run{}, own},
		{&Run{PromptTokens: 64, Ubatch: 512}, model.Run{PromptTokens: 64, Ubatch: 64}},
		{&Run{PromptTokens: 256, Ubatch: 0, Depth: 1024}, model.Run{PromptTokens: 256, Ubatch: 1, Depth: 1024}},
		{&Run{GenTokens: 32, Ubatch: 7}, model.Run{Ubatch: 512, GenTokens: 32}},
		{&Run{PromptTokens: 64, Ubatch: 16, GenTokens: 32}, model.Run{PromptTokens: 64, Ubatch: 16, GenTokens: 32}},
	} {
		if got := tc.r.Of(own); got != tc.want {
			t.Errorf("%+v.Of(%+v) = %+v, want %+v", tc.r, own, got, tc.want)
		}
	}
}
