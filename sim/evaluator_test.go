package sim

import (
	"math"
	"testing"

	"github.com/blsim/blsim/model"
)

// An Evaluator simulates each plan once on the SoC and once on each draw,
// however many intervals share it: two intervals over one native cost
// native's draws once (issue 29: each interval re-simulated native on the
// same draws), and a plan run again is remembered. Its results are the
// package functions' (GainInterval, Run), bit for bit.
func TestEvaluatorDoesWorkOnce(t *testing.T) {
	s, w := mustSoC(t, "rk3588"), mustWorkload(t, "qwen3.5-35b-a3b")
	const draws = 6
	ev := NewEvaluator(s, w, draws)
	a, b := tokenSplit(0.12, 50), expertSplit(0.2, 50)
	ia, err := ev.Interval(native(50), a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Interval(native(50), b); err != nil {
		t.Fatal(err)
	}
	if n := ev.Runs(); n != 3*draws {
		t.Errorf("two intervals over one native: %d runs, want %d (native's draws once, each plan's once)", n, 3*draws)
	}
	r1, err := ev.Run(a)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := ev.Run(a)
	if err != nil {
		t.Fatal(err)
	}
	if n := ev.Runs(); n != 3*draws+1 || r1 != r2 {
		t.Errorf("a plan run twice: %d runs, want %d, and one result", n, 3*draws+1)
	}
	if got := mustRun(t, s, w, a); got.TPS != r1.TPS {
		t.Errorf("the evaluator's run %v t/s, Run's %v", r1.TPS, got.TPS)
	}
	iv, err := GainInterval(s, w, native(50), a, draws)
	if err != nil {
		t.Fatal(err)
	}
	if iv != ia {
		t.Errorf("the evaluator's interval %+v, GainInterval's %+v", ia, iv)
	}
}

// Adopt gives a plan a result without simulating it, for a what-if
// variant where the plan runs the same: Run then returns that result and
// simulates nothing; a plan already run keeps its own; a plan the SoC
// cannot run is refused as Run refuses it.
func TestEvaluatorAdopt(t *testing.T) {
	s, w := mustSoC(t, "rk3588"), mustWorkload(t, "qwen3.5-35b-a3b")
	from := NewEvaluator(s, w, 0)
	alone := tokenSplit(0, 50)
	r, err := from.Run(alone)
	if err != nil {
		t.Fatal(err)
	}
	ev := from.For(s.Clone())
	if err := ev.Adopt(alone, r); err != nil {
		t.Fatal(err)
	}
	got, err := ev.Run(alone)
	if err != nil {
		t.Fatal(err)
	}
	if got != r || ev.Runs() != 0 {
		t.Errorf("an adopted plan: %d runs and result %p, want 0 and %p", ev.Runs(), got, r)
	}
	own, err := ev.Run(native(50))
	if err != nil {
		t.Fatal(err)
	}
	if err := ev.Adopt(native(50), r); err != nil {
		t.Fatal(err)
	}
	if again, _ := ev.Run(native(50)); again != own {
		t.Error("Adopt replaced a plan's own result")
	}
	bad := alone
	bad.Engines = []string{"big", "gpu"}
	if err := ev.Adopt(bad, r); err == nil {
		t.Error("Adopt of a plan over an engine the SoC lacks: no error")
	}
	if err := ev.Adopt(tokenSplit(0.2, 50), nil); err == nil {
		t.Error("Adopt of no result: no error")
	}
}

// Balance says when there is none, and why, instead of a NaN share: a
// little cluster at the profile's lowest clock (0.05 GHz) and 0.01 GB/s,
// one thread, takes longer than big even at the smallest share; the same
// split on the seed's own profile has a balance point.
func TestBalanceNoneSaysWhy(t *testing.T) {
	s, w := mustSoC(t, "rk3588"), mustWorkload(t, "qwen3.5-35b-a3b")
	slow := s.Clone()
	for path, v := range map[string]float64{"engines.little.clock_ghz": 0.05, "engines.little.bandwidth_max_gb_s": 0.01} {
		if err := slow.Set(path, v); err != nil {
			t.Fatal(err)
		}
	}
	plan := model.Plan{Mode: model.TokenSplit, Engines: []string{"big", "little"}, Threads: []int{4, 1}, Poll: 50}
	b, err := NewEvaluator(slow, w, 0).Balance(plan)
	if err != nil {
		t.Fatal(err)
	}
	if b.None == "" || b.Frac != 0 || math.IsNaN(b.Frac) {
		t.Errorf("a little cluster slower than big at every share: %+v, want none with why", b)
	}
	if b, err := NewEvaluator(s, w, 0).Balance(plan); err != nil || b.None != "" || !(b.Frac > 0 && b.Frac < 1) {
		t.Errorf("rk3588 at 4+1 threads: %+v, %v; want a balance point", b, err)
	}
}
