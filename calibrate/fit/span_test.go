package fit

import (
	"reflect"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

// TestGaps: the lines a grid's span gets, as the check before running and
// the fit's notes print them.
func TestGaps(t *testing.T) {
	pp := func(p, ub int) model.Run { return model.Run{PromptTokens: p, Ubatch: ub} }
	tg := func(n int) model.Run { return model.Run{GenTokens: n, Ubatch: 512} }
	for _, tc := range []struct {
		name string
		runs []model.Run
		want []string
	}{
		{"llama-bench's default test alone", []model.Run{pp(512, 64), pp(512, 512)}, []string{
			"one prompt length (512): attention's cost rides on the prior; add -p 128,2048",
			"no tg: decode rests on the prior; add -n 32"}},
		{"one prompt and a tg", []model.Run{pp(512, 512), tg(32)}, []string{
			"one prompt length (512): attention's cost rides on the prior; add -p 128,2048"}},
		{"two prompt lengths", []model.Run{pp(128, 128), pp(2048, 512)}, []string{"no tg: decode rests on the prior; add -n 32"}},
		{"two lengths and a tg", []model.Run{pp(128, 128), pp(2048, 512), tg(32)}, nil},
		{"a depth", []model.Run{{PromptTokens: 512, Ubatch: 512, Depth: 4096}, tg(128)}, []string{
			"one prompt length and depth (512 at depth 4096): attention's cost rides on the prior; add -p 128,2048"}},
		{"tg alone", []model.Run{tg(32), tg(128)}, nil},
		{"nothing", nil, nil},
	} {
		var got []string
		for _, g := range Gaps(model.SpanOf(tc.runs)) {
			got = append(got, g.Line)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSpanOutside(t *testing.T) {
	s := model.SpanOf([]model.Run{{PromptTokens: 512, Ubatch: 64}, {PromptTokens: 512, Ubatch: 512}})
	if got := s.String(); got != "pp 512 at depth 0, ubatch 64-512" {
		t.Errorf("String() = %q", got)
	}
	for _, tc := range []struct {
		run  model.Run
		want string
	}{
		{model.Run{PromptTokens: 512, Ubatch: 256}, ""},
		{model.Run{PromptTokens: 2048, Ubatch: 512}, "prompt 2048 outside the fitted 512"},
		{model.Run{PromptTokens: 64, Ubatch: 16}, "prompt 64 outside the fitted 512; ubatch 16 outside the fitted 64-512"},
		{model.Run{PromptTokens: 512, Ubatch: 512, Depth: 1024}, "depth 1024 outside the fitted 0"},
		{model.Run{GenTokens: 32, Ubatch: 512}, "tg 32 where the fit ran none"},
	} {
		if got := strings.Join(s.Outside(tc.run), "; "); got != tc.want {
			t.Errorf("Outside(%+v) = %q, want %q", tc.run, got, tc.want)
		}
	}
}
