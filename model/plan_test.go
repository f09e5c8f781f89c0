package model_test

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

func TestPlanValidate(t *testing.T) {
	s := presetSoCsOne(t, "rk3588") // big and little, 4 cores each
	split := func(f func(p *model.Plan)) model.Plan {
		p := model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(0.12), 50)
		f(&p)
		return p
	}
	for _, tc := range []struct {
		name string
		plan model.Plan
		want []string // fragments of the error; none: valid
	}{
		{"native", model.NewNative("big", 4, 0), nil},
		{"native little", model.NewNative("little", 1, 100), nil},
		{"token split", model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(0.12), 50), nil},
		{"expert split", model.NewPlan(model.ExpertSplit, []string{"little", "big"}, []int{2, 3}, model.SharesOf(0.9), 0), nil},
		{"split all to second", model.NewPlan(model.ExpertSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(1), 0), nil},
		{"native ignores fractions", model.Plan{Mode: model.Native, Engines: []string{"big"}, Threads: []int{4}}, nil},
		{"fractions sum below 1", split(func(p *model.Plan) { p.Fracs = []float64{0.5, 0.4} }), []string{"sum to 0.9", "not 1"}},
		{"fractions sum above 1", split(func(p *model.Plan) { p.Fracs = []float64{0.7, 0.5} }), []string{"sum to 1.2"}},
		{"fraction above 1", split(func(p *model.Plan) { p.Fracs = []float64{-0.5, 1.5} }), []string{`"big"`, "-0.5", "outside [0,1]"}},
		{"fraction above 1 second", split(func(p *model.Plan) { p.Fracs = []float64{0, 1.25} }), []string{`"little"`, "1.25", "outside [0,1]"}},
		{"fraction NaN", split(func(p *model.Plan) { p.Fracs = []float64{math.NaN(), 1} }), []string{"NaN", "outside [0,1]"}},
		{"fraction count", split(func(p *model.Plan) { p.Fracs = []float64{1} }), []string{"2 engines but 1 fractions"}},
		{"poll 101", model.NewNative("big", 4, 101), []string{"poll 101", "0..100"}},
		{"poll -1", model.NewNative("big", 4, -1), []string{"poll -1"}},
		{"too many threads", model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{4, 5}, model.SharesOf(0.1), 0), []string{`"little"`, "5 threads", "4 cores"}},
		{"no threads", model.NewNative("big", 0, 0), []string{`"big"`, "0 threads"}},
		{"unknown engine", model.NewPlan(model.TokenSplit, []string{"big", "npu"}, []int{4, 1}, model.SharesOf(0.1), 0), []string{`"npu"`, "big, little"}},
		{"duplicate engine", model.NewPlan(model.TokenSplit, []string{"big", "big"}, []int{2, 2}, model.SharesOf(0.5), 0), []string{`"big"`, "listed twice"}},
		{"thread count mismatch", split(func(p *model.Plan) { p.Threads = []int{4} }), []string{"2 engines but 1 thread counts"}},
		{"no engines", model.Plan{Mode: model.Native}, []string{"no engines"}},
		{"unknown mode", split(func(p *model.Plan) { p.Mode = "layer" }), []string{`"layer"`, "native, token, expert or pool"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.plan.Validate(s)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("valid plan rejected: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted %+v", tc.plan)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), "plan: ") {
				t.Errorf("error %q lacks the plan: prefix", err)
			}
		})
	}
}

func TestPlanString(t *testing.T) {
	for _, tc := range []struct {
		name string
		plan model.Plan
		want string
	}{
		{"native", model.NewNative("big", 4, 50), "native poll=50 t=4"},
		{"token", model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(0.12), 50), "token f=0.12 poll=50 t=4+4"},
		{"expert", model.NewPlan(model.ExpertSplit, []string{"big", "little"}, []int{4, 2}, model.SharesOf(1.0/3), 0), "expert f=0.333 poll=0 t=4+2"},
		{"three engines", model.Plan{Mode: model.TokenSplit, Engines: []string{"a", "b", "c"}, Fracs: []float64{0.5, 0.25, 0.25}, Threads: []int{1, 2, 3}, Poll: 1},
			"token f=0.25/0.25 poll=1 t=1+2+3"},
	} {
		if got := tc.plan.String(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestNewPlanShares(t *testing.T) {
	p := model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(0.3), 0)
	if p.Fracs[0]+p.Fracs[1] != 1 || p.Fracs[1] != 0.3 || p.Engines[0] != "big" || p.Threads[1] != 4 {
		t.Errorf("NewPlan: %+v", p)
	}
	if err := p.CheckShape(); err != nil {
		t.Error(err)
	}
	three := model.SharesOf(0.1, 0.3)
	if len(three) != 3 || math.Abs(three[0]-0.6) > 1e-12 || three[1] != 0.1 || three[2] != 0.3 {
		t.Errorf("SharesOf(0.1, 0.3) = %v, want [0.6 0.1 0.3]", three)
	}
}

// The modes are listed once (model.Modes, model.SplitModes): every check
// asks them.
func TestModesListedOnce(t *testing.T) {
	all := model.Modes()
	if len(all) != 4 || all[0] != model.Native || all[len(all)-1] != model.PoolPlan {
		t.Fatalf("Modes() = %v", all)
	}
	for _, m := range all {
		p := model.Plan{Mode: m, Engines: []string{"big"}, Threads: []int{1}, Fracs: []float64{1}}
		if err := p.CheckShape(); err != nil {
			t.Errorf("mode %s: %v", m, err)
		}
		if m.IsSplit() != (m == model.TokenSplit || m == model.ExpertSplit) {
			t.Errorf("%s.IsSplit() = %v", m, m.IsSplit())
		}
	}
	if model.Mode("layer").Known() || model.Mode("layer").IsSplit() {
		t.Error("an unlisted mode is known")
	}
	bad := model.Plan{Mode: "layer", Engines: []string{"big"}, Threads: []int{1}}
	if err := bad.CheckShape(); err == nil || !strings.Contains(err.Error(), "want native, token, expert or pool") {
		t.Errorf("unknown mode: %v", err)
	}
	if got := model.ModeList(model.SplitModes()); got != "token or expert" {
		t.Errorf("ModeList(SplitModes()) = %q", got)
	}
	s := model.SplitModes()
	s[0] = "changed"
	if model.SplitModes()[0] != model.TokenSplit {
		t.Error("SplitModes returns the list itself, not a copy")
	}
}
