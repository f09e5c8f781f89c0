package predict

import (
	"fmt"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

func TestTestApply(t *testing.T) {
	own := model.Run{PromptTokens: 512, Ubatch: 512, GenTokens: 0}
	for _, tc := range []struct {
		test        string
		prompt, gen int
		want        model.Run
		err         string
	}{
		{"pp", 0, 0, model.Run{PromptTokens: 512, Ubatch: 512}, ""},
		{"pp", 64, 0, model.Run{PromptTokens: 64, Ubatch: 512}, ""},
		{"pp", 0, 32, model.Run{}, "generates no tokens"},
		{"tg", 0, 0, model.Run{Ubatch: 512, GenTokens: 128}, ""},
		{"tg", 0, 32, model.Run{Ubatch: 512, GenTokens: 32}, ""},
		{"tg", 64, 0, model.Run{}, "has no prompt"},
		{"pg", 0, 0, model.Run{PromptTokens: 512, Ubatch: 512, GenTokens: 128}, ""},
		{"pg", 256, 16, model.Run{PromptTokens: 256, Ubatch: 512, GenTokens: 16}, ""},
		{"pg", -1, 0, model.Run{}, "want 0 or more"},
	} {
		test, err := ParseTest(tc.test)
		if err != nil {
			t.Fatal(err)
		}
		r := own
		err = test.Apply(&r, tc.prompt, tc.gen)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %d %d: err %v, want %q", tc.test, tc.prompt, tc.gen, err, tc.err)
			}
			continue
		}
		if err != nil || r != tc.want {
			t.Errorf("%s %d %d: %+v %v, want %+v", tc.test, tc.prompt, tc.gen, r, err, tc.want)
		}
	}
	if _, err := ParseTest("tg128"); err == nil || !strings.Contains(err.Error(), "pp, tg or pg") {
		t.Errorf("ParseTest(tg128): %v", err)
	}
	if TestPG.String() != "pg" || Test(7).String() != "Test(7)" {
		t.Error("String")
	}
}

// TestThreadsBeside: a tg request's sweep takes its pp test from the
// workload's own run and its tg test from the request; a pp request's tg
// test is DefaultGenTokens.
func TestThreadsBeside(t *testing.T) {
	s, w := load(t, "rk3588")
	q := Request{SoC: s, Workload: w, Poll: 50, Draws: 2}
	own := w.Run
	for _, tc := range []struct {
		run    model.Run
		pp, tg string
	}{
		{own, fmt.Sprintf("pp%d", own.PromptTokens), "tg128"},
		{model.Run{Ubatch: own.Ubatch, GenTokens: 32}, fmt.Sprintf("pp%d", own.PromptTokens), "tg32"},
		{model.Run{PromptTokens: 64, Ubatch: 64, GenTokens: 16}, "pp64", "tg16"},
	} {
		r := q
		r.Workload = q.Workload.WithRun(tc.run)
		sw, err := ThreadsBeside(r, own, nil)
		if err != nil {
			t.Fatalf("%+v: %v", tc.run, err)
		}
		if sw.PP != tc.pp || sw.TG != tc.tg {
			t.Errorf("%+v: sweep of %s and %s, want %s and %s", tc.run, sw.PP, sw.TG, tc.pp, tc.tg)
		}
	}
	if w := q.Workload.WithRun(own); w != q.Workload {
		t.Error("WithRun of the workload's own run made a copy")
	}
	if w := q.Workload.WithRun(model.Run{PromptTokens: 8, Ubatch: 8}); w == q.Workload || q.Workload.Run != own {
		t.Error("WithRun of another run changed the workload or did not copy it")
	}
}
