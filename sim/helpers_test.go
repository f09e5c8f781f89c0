package sim

import (
	"math"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// The seed experiment's configuration.
const (
	seedSoC      = "rk3588"
	seedWorkload = "qwen3.5-35b-a3b"
)

func mustSoC(tb testing.TB, name string) *model.SoC {
	tb.Helper()
	s, err := presets.SoC(name)
	if err != nil {
		tb.Fatalf("soc preset %q: %v", name, err)
	}
	return s
}

func mustWorkload(tb testing.TB, name string) *model.Workload {
	tb.Helper()
	w, err := presets.Workload(name)
	if err != nil {
		tb.Fatalf("workload preset %q: %v", name, err)
	}
	return w
}

func mustRun(tb testing.TB, s *model.SoC, w *model.Workload, p model.Plan) *Result {
	tb.Helper()
	r, err := Run(s, w, p)
	if err != nil {
		tb.Fatalf("Run(%s, %s, %s): %v", s.Name, w.Name, p, err)
	}
	return r
}

func mustSet(tb testing.TB, s *model.SoC, path string, x float64) {
	tb.Helper()
	if err := s.Set(path, x); err != nil {
		tb.Fatalf("Set(%s): %v", path, err)
	}
}

func mustGet(tb testing.TB, s *model.SoC, path string) float64 {
	tb.Helper()
	x, err := s.Get(path)
	if err != nil {
		tb.Fatalf("Get(%s): %v", path, err)
	}
	return x
}

func native(poll int) model.Plan { return model.NewNative("big", 4, poll) }

func tokenSplit(frac float64, poll int) model.Plan {
	return model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(frac), poll)
}

func expertSplit(frac float64, poll int) model.Plan {
	return model.NewPlan(model.ExpertSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(frac), poll)
}

// relDiff is |a-b| relative to |b|.
func relDiff(a, b float64) float64 { return math.Abs(a-b) / math.Abs(b) }

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// busy is p with busy[i] of engine i's cores running something else.
func busy(p model.Plan, n ...int) model.Plan {
	p.BusyCores = n
	return p
}

// twoClusterSoCs are the SoC presets the preset-wide tests' split and
// pool plans are written for: engines named big and little of four cores
// each, which native(), tokenSplit() and expertSplit() fill with 4+4
// threads (pi5 has one cluster; a phone's little cluster may have two
// cores, a desktop's eight).
func twoClusterSoCs() []string {
	var out []string
	for _, n := range presets.SoCNames() {
		s, err := presets.SoC(n)
		if err != nil {
			continue
		}
		big, _, e1 := s.Engine("big")
		little, _, e2 := s.Engine("little")
		if e1 == nil && e2 == nil && big.Cores == 4 && little.Cores == 4 {
			out = append(out, n)
		}
	}
	return out
}
