package predict

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

// slowLittle is rk3588 with a little cluster so slow (its clock at the
// profile's floor, 0.05 GHz, and 0.01 GB/s) that one thread of it takes
// longer over the split ops than big's four even at the smallest share:
// no token-split balance point. (An expert split cut at whole experts
// still has one, at 0.002: the little cluster's first expert.)
func slowLittle(t *testing.T) (*model.SoC, *model.Workload) {
	t.Helper()
	s, w := load(t, "rk3588")
	s = s.Clone()
	for path, v := range map[string]float64{"engines.little.clock_ghz": 0.05, "engines.little.bandwidth_max_gb_s": 0.01} {
		if err := s.Set(path, v); err != nil {
			t.Fatal(err)
		}
	}
	return s, w
}

// Balance says when there is none (issue 29: it returned NaN): the
// prediction's balance says why, with no share (0, not NaN),
// Prediction.Balance reports none, and the JSON document carries the
// reason.
func TestBalanceNone(t *testing.T) {
	s, w := slowLittle(t)
	p, err := Run(Request{SoC: s, Workload: w, Modes: []model.Mode{model.TokenSplit}, Threads: []int{4, 1}, Poll: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Balances) != len(p.Modes()) || len(p.Balances) == 0 {
		t.Fatalf("%d balances for modes %v", len(p.Balances), p.Modes())
	}
	for _, b := range p.Balances {
		if !strings.Contains(b.None, "little takes longer over the split ops than big") || b.Frac != 0 || math.IsNaN(b.Frac) {
			t.Errorf("%s: balance %+v, want none with why, at share 0", b.Mode, b)
		}
		if f, ok := p.Balance(b.Mode); ok {
			t.Errorf("%s: Prediction.Balance %v, true; want none", b.Mode, f)
		}
	}
	doc, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), `"none":"little takes longer`) {
		t.Errorf("the JSON document does not say why there is no balance point:\n%.400s", doc)
	}
	// The seed's own profile has one: the test above is of the slow
	// little cluster, not of a Balance that always says none.
	s0, _ := load(t, "rk3588")
	p0, err := Run(Request{SoC: s0, Workload: w, Threads: []int{4, 1}, Poll: 50})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p0.Balance(model.TokenSplit); !ok {
		t.Errorf("rk3588 at 4+1 threads: no balance point: %+v", p0.Balances)
	}
}
