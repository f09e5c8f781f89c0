package fit

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

func TestTwins(t *testing.T) {
	base, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	same := func(s *model.SoC) *model.SoC {
		s = s.Clone()
		s.Engines[1].CoreType, s.Engines[1].ClockGHz, s.Engines[1].Cores = s.Engines[0].CoreType, s.Engines[0].ClockGHz, s.Engines[0].Cores
		return s
	}
	for _, tc := range []struct {
		name string
		soc  func() *model.SoC
		want map[string]string
	}{
		{"big.LITTLE", func() *model.SoC { return base.Clone() }, map[string]string{}},
		{"one core type", func() *model.SoC { return same(base) }, map[string]string{"little": "big"}},
		{"other clock", func() *model.SoC { s := same(base); s.Engines[1].ClockGHz /= 2; return s }, map[string]string{}},
		{"other core count", func() *model.SoC { s := same(base); s.Engines[1].Cores = 2; return s }, map[string]string{}},
		{"type unknown", func() *model.SoC { s := same(base); s.Engines[0].CoreType, s.Engines[1].CoreType = "", ""; return s }, map[string]string{}},
	} {
		if got := twins(tc.soc()); len(got) != len(tc.want) || got["little"] != tc.want["little"] {
			t.Errorf("%s: twins %v, want %v", tc.name, got, tc.want)
		}
	}
	if p, ok := leaderPath("engines.little.kernel_ops_per_cycle.q8", map[string]string{"little": "big"}); !ok || p != "engines.big.kernel_ops_per_cycle.q8" {
		t.Errorf("leaderPath = %q %v", p, ok)
	}
	if _, ok := leaderPath("dram.sustained_gb_s", map[string]string{"little": "big"}); ok {
		t.Error("a SoC-wide parameter follows an engine")
	}
}

// TestTwinEnginesFitAsOne: on a SoC whose two engines are one core type,
// the fit moves each shared parameter once (both engines get the same
// value and σ, the second says which it is one with, a note says so), and
// with NoTie it fits them apart.
func TestTwinEnginesFitAsOne(t *testing.T) {
	base, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	base.Engines[1].CoreType, base.Engines[1].ClockGHz, base.Engines[1].Cores = base.Engines[0].CoreType, base.Engines[0].ClockGHz, base.Engines[0].Cores
	base.Engines[1].KernelOpsPerCycle = map[string]float64{}
	for k, v := range base.Engines[0].KernelOpsPerCycle {
		base.Engines[1].KernelOpsPerCycle[k] = v
	}
	truth := base.Clone()
	for _, e := range []string{"big", "little"} {
		_ = truth.Set("engines."+e+".kernel_ops_per_cycle.q4", 0.8*base.Engines[0].KernelOpsPerCycle["q4"])
	}
	ms := synth(t, truth, rand.New(rand.NewPCG(1, 2)), 0.01)
	free := []string{"engines.big.kernel_ops_per_cycle.q4", "engines.little.kernel_ops_per_cycle.q4", "handoff.futex_wake_us"}
	r, err := Fit(base, ms, Options{Free: free})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Params) != 3 {
		t.Fatalf("%d parameters reported, want 3", len(r.Params))
	}
	b, l := r.Params[0], r.Params[1]
	if b.Value != l.Value || b.Sigma != l.Sigma || l.SameAs != b.Path || b.SameAs != "" {
		t.Errorf("twins fitted apart: %+v, %+v", b, l)
	}
	if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "one core type") }) {
		t.Errorf("no note of the tie: %q", r.Notes)
	}
	got, _ := r.SoC.Get("engines.little.kernel_ops_per_cycle.q4")
	if got != b.Value {
		t.Errorf("profile's little q4 %g, fitted %g", got, b.Value)
	}
	apart, err := Fit(base, ms, Options{Free: free, NoTie: true})
	if err != nil {
		t.Fatal(err)
	}
	if apart.Params[0].Value == apart.Params[1].Value || apart.Params[1].SameAs != "" {
		t.Errorf("NoTie: %+v, %+v", apart.Params[0], apart.Params[1])
	}
}
