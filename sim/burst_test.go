package sim

import (
	"math"
	"reflect"
	"testing"

	"github.com/blsim/blsim/model"
)

func TestShareBandwidth(t *testing.T) {
	many := make([]float64, 11) // more engines than the stack buffer holds
	for i := range many {
		many[i] = float64(11 - i)
	}
	tests := []struct {
		name   string
		demand []float64
		total  float64
		policy model.Sharing
		want   []float64
	}{
		{"under total: all served", []float64{3, 4}, 10, model.ShareMaxMin, []float64{3, 4}},
		{"maxmin: small demand served first", []float64{2, 20}, 10, model.ShareMaxMin, []float64{2, 8}},
		{"maxmin: order of engines does not matter", []float64{20, 2}, 10, model.ShareMaxMin, []float64{8, 2}},
		{"maxmin: equal split of big demands", []float64{20, 30}, 10, model.ShareMaxMin, []float64{5, 5}},
		{"maxmin: ties", []float64{6, 6, 1}, 10, model.ShareMaxMin, []float64{4.5, 4.5, 1}},
		{"proportional", []float64{10, 30}, 20, model.ShareProportional, []float64{5, 15}},
		{"one idle engine", []float64{0, 30}, 20, model.ShareMaxMin, []float64{0, 20}},
		{"many engines", many, 11, model.ShareMaxMin, []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := make([]float64, len(tc.demand))
			shareBandwidth(out, tc.demand, tc.total, tc.policy)
			for i := range out {
				if math.Abs(out[i]-tc.want[i]) > 1e-12 {
					t.Fatalf("got %v, want %v", out, tc.want)
				}
			}
		})
	}
}

// TestSolveMemo: the per-run memo of solve gives the same answers, bit for
// bit, as solving afresh, for repeated and for different partition sets.
func TestSolveMemo(t *testing.T) {
	s := mustSoC(t, seedSoC)
	w := mustWorkload(t, seedWorkload)
	r := newRunner(s, w, tokenSplit(0.12, 50))
	big := part{engine: 0, bytes: 3e8, computeS: 0.01, overlap: 0.1, capBs: 20.2e9, slowdown: 1, ops: 1e12}
	little := part{engine: 1, bytes: 1e8, computeS: 0.02, overlap: 0.1, capBs: 10.5e9, slowdown: 1, ops: 2e11}
	other := little
	other.bytes *= 2
	sets := [][]part{{big, little}, {big, other}, {big, little}, {little, big}, {big}, {big, other}}
	for i, ps := range sets {
		want := make([]timing, len(ps))
		got := make([]timing, len(ps))
		solve(ps, r.totalBs, s.DRAM.Sharing, want)
		r.solve(ps, got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("set %d: memoised %+v, fresh %+v", i, got, want)
		}
	}
	if len(r.solved) != 3 {
		t.Errorf("%d solves remembered, want 3 distinct multi-partition sets", len(r.solved))
	}
}

// TestSolveContention: two streaming partitions slow each other down, and
// never receive more than their demand or more than the DRAM together.
func TestSolveContention(t *testing.T) {
	const total = 21e9
	tests := []struct {
		name     string
		a, b     part
		wantSlow bool // a is slower with b than alone
	}{
		{"both memory-bound", part{bytes: 1e9, computeS: 0.001, overlap: 0.1, capBs: 20e9, slowdown: 1},
			part{bytes: 1e9, computeS: 0.001, overlap: 0.1, capBs: 10e9, slowdown: 1}, true},
		{"other compute-only", part{bytes: 1e9, computeS: 0.001, overlap: 0.1, capBs: 20e9, slowdown: 1},
			part{bytes: 0, computeS: 1, overlap: 0.1, capBs: 10e9, slowdown: 1}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			alone := make([]timing, 1)
			solve([]part{tc.a}, total, model.ShareMaxMin, alone)
			both := make([]timing, 2)
			solve([]part{tc.a, tc.b}, total, model.ShareMaxMin, both)
			if slow := both[0].totalS > alone[0].totalS*(1+1e-12); slow != tc.wantSlow {
				t.Errorf("alone %g s, with the other %g s; want slower=%v", alone[0].totalS, both[0].totalS, tc.wantSlow)
			}
			for i, tm := range both {
				if tm.bwBs > tm.demandBs*(1+1e-12) || tm.bwBs <= 0 && []part{tc.a, tc.b}[i].bytes > 0 {
					t.Errorf("partition %d receives %g of demand %g", i, tm.bwBs, tm.demandBs)
				}
				if tm.duty < 0 || tm.duty > 1 {
					t.Errorf("partition %d duty %g", i, tm.duty)
				}
			}
		})
	}
}
