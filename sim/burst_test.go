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

// TestSolveIndependentThreadLoads checks the threads-out-of-phase DRAM
// model (model.Engine.IndependentThreadLoads) on the arithmetic of the
// 13900K's INT-1 rows (docs/threads.md): 3.83 GB of weights, the DRAM's
// sustained 68.3 GB/s, a Raptor Cove's 30.6 GB/s stream, the compute of a
// token 44.6 ms over four P-cores and half that over eight. In lockstep
// the loads and the compute add; out of phase each thread loads at its
// own stream and the DRAM caps only the mean, so -t 4 is the threads'
// serial time and -t 8 the DRAM's.
func TestSolveIndependentThreadLoads(t *testing.T) {
	const bytes, dram, stream = 3.83e9, 68.3e9, 30.6e9
	for _, tc := range []struct {
		threads  int
		computeS float64
		want     float64 // seconds out of phase
	}{
		{4, 0.0446, bytes/(4*stream) + 0.0446},
		{8, 0.0223, bytes / dram},
	} {
		n := float64(tc.threads)
		lock := part{bytes: bytes, computeS: tc.computeS, capBs: math.Min(dram, n*stream), slowdown: 1}
		free := lock
		free.streamBs = n * stream
		var a, b [1]timing
		solve([]part{lock}, dram, model.ShareMaxMin, a[:])
		solve([]part{free}, dram, model.ShareMaxMin, b[:])
		if relDiff(a[0].totalS, bytes/lock.capBs+tc.computeS) > 1e-9 {
			t.Errorf("-t %d lockstep: %g s, want loads then compute %g", tc.threads, a[0].totalS, bytes/lock.capBs+tc.computeS)
		}
		if relDiff(b[0].totalS, tc.want) > 1e-9 {
			t.Errorf("-t %d out of phase: %g s, want %g", tc.threads, b[0].totalS, tc.want)
		}
		if b[0].duty != 1 || b[0].totalS > a[0].totalS {
			t.Errorf("-t %d out of phase: duty %g, %g s against lockstep %g", tc.threads, b[0].duty, b[0].totalS, a[0].totalS)
		}
		t.Logf("-t %d: lockstep %.1f ms, out of phase %.1f ms (INT-1 measured 79.1 ms at -t 4, 54.7 at -t 8)", tc.threads, 1e3*a[0].totalS, 1e3*b[0].totalS)
	}
	// Beside another engine that streams, the steady engine's mean
	// demand is shared and it slows.
	free := part{bytes: bytes, computeS: 0.0223, capBs: dram, slowdown: 1, streamBs: 8 * stream}
	other := part{bytes: 1e9, computeS: 0.001, capBs: 30e9, slowdown: 1}
	var alone [1]timing
	var both [2]timing
	solve([]part{free}, dram, model.ShareMaxMin, alone[:])
	solve([]part{free, other}, dram, model.ShareMaxMin, both[:])
	if both[0].totalS <= alone[0].totalS {
		t.Errorf("beside a streaming engine %g s, alone %g s: want slower", both[0].totalS, alone[0].totalS)
	}
}
