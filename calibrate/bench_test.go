package calibrate

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/runner"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

func benchGrid(t *testing.T, little string) runner.Config {
	t.Helper()
	g := runner.Grid{Command: []string{"llama-bench", "-p", "512"},
		Env:  []runner.Axis{{Name: "ORK_MOE_BIGLITTLE", Values: []string{"1"}}, {Name: "ORK_BL_LITTLE_FRAC", Values: []string{"0.1", "0.2", "0.3"}}},
		Args: []runner.Axis{{Name: "-t", Values: []string{"4"}}}}
	if little != "" {
		g.Env = append(g.Env, runner.Axis{Name: "ORK_BL_LITTLE_THREADS", Values: []string{little}})
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	return runner.Config{Grid: g, Mapping: runner.DefaultMapping()}
}

// Holdout patterns must leave points both to hold out and to fit.
func TestCheckHoldout(t *testing.T) {
	cfg := benchGrid(t, "4")
	if err := CheckHoldout(cfg, []string{"f=0.2"}); err != nil {
		t.Errorf("one fraction held out: %v", err)
	}
	for _, tc := range []struct{ holdout, msg string }{
		{"f=0.25", `no point of the grid matches (a point's label reads "token f=0.1 poll=50 t=4+4 pp512 ub=512")`},
		{"token", "every test of the grid matches: none is left to fit"},
	} {
		if err := CheckHoldout(cfg, []string{tc.holdout}); err == nil || err.Error() != tc.msg {
			t.Errorf("%s: %v, want %q", tc.holdout, err, tc.msg)
		}
	}
}

// A run of several tests (pp, tg, pp+tg) counts once per test: holding out
// its tg tests leaves its pp tests to fit.
func TestCheckHoldoutTests(t *testing.T) {
	g := runner.Grid{Command: []string{"llama-bench", "-p", "64", "-n", "32", "-pg", "64,32"},
		Args: []runner.Axis{{Name: "-t", Values: []string{"1", "2"}}}}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	cfg := runner.Config{Grid: g, Mapping: runner.DefaultMapping()}
	if err := CheckHoldout(cfg, []string{"tg32", "pp64+tg32"}); err != nil {
		t.Errorf("tg held out: %v", err)
	}
	if err := CheckHoldout(cfg, []string{"tg32", "pp64+tg32", "pp64"}); err == nil || !strings.Contains(err.Error(), "every test") {
		t.Errorf("every test held out: %v", err)
	}
	if err := CheckHoldout(cfg, []string{"tg128"}); err == nil || !strings.Contains(err.Error(), "no point") {
		t.Errorf("no tg128 in the grid: %v", err)
	}
}

// Adapted to a prior, the default mapping runs the little engine on all
// its cores, and a record whose plan the prior cannot run is flagged.
func TestAdaptGrid(t *testing.T) {
	prior, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	two := prior.Clone() // a board with two little cores
	for i := range two.Engines {
		if two.Engines[i].Name == "little" {
			two.Engines[i].Cores = 2
		}
	}
	cfg := benchGrid(t, "")
	before := cfg.Mapping.Defaults
	AdaptGrid(&cfg, two, false)
	if got := cfg.Mapping.Defaults["ORK_BL_LITTLE_THREADS"]; got != "2" || before["ORK_BL_LITTLE_THREADS"] != "4" {
		t.Errorf("ORK_BL_LITTLE_THREADS defaults to %s, want the little engine's 2 cores (was %s)", got, before["ORK_BL_LITTLE_THREADS"])
	}
	AdaptGrid(&cfg, prior, false)
	if cfg.PlanCheck == nil {
		t.Fatal("no plan check")
	}
	if why := cfg.PlanCheck(model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(0.2), 50)); why != "" {
		t.Errorf("a plan rk3588 runs is flagged: %s", why)
	}
	why := cfg.PlanCheck(model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{8, 4}, model.SharesOf(0.2), 50))
	if !strings.Contains(why, "the profile rk3588 cannot run this record's plan") || !strings.Contains(why, `"n_threads: total"`) {
		t.Errorf("8 big threads: %q", why)
	}
	own := benchGrid(t, "")
	AdaptGrid(&own, two, true)
	for k, v := range own.Mapping.Defaults {
		if before[k] != v {
			t.Errorf("own mapping: default %s changed to %s", k, v)
		}
	}
}
