package sim

import (
	"math"
	"testing"

	"github.com/blsim/blsim/model"
)

// smtSoC is the hand-written hybrid fixture of package model's tests (8
// P-cores of two hardware threads, 16 E-cores), with its P cluster alone
// when alone is set.
func smtSoC(t *testing.T, alone bool) *model.SoC {
	t.Helper()
	s, err := model.LoadSoCFile("../model/testdata/smt/hybrid-smt.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if alone {
		s.Engines = s.Engines[:1]
	}
	return s
}

func tps(t *testing.T, s *model.SoC, w *model.Workload, p model.Plan) float64 {
	t.Helper()
	return mustRun(t, s, w, p).TPS
}

// TestSMTPool: a pool on an SMT cluster. Prefill's matmuls in fixed
// slices (2023's ggml, Llama-2-7B's Q4_0 rows divided evenly) gain the
// matmul yield at -t 16 and lose at -t 12, where four cores of two gate
// the slices; a matmul yield of 0 gives -t 16 what -t 8 gives, within the
// pool's own costs. Decode, DRAM-bound with no DRAM yield, gains nothing
// from the siblings. Without SMT (smt_ways 1) the same 16 threads are an
// oversubscribed pool, a time slice a barrier: far slower.
func TestSMTPool(t *testing.T) {
	s := smtSoC(t, true)
	w := mustWorkload(t, "llama-2-7b")
	pp := w.WithRun(model.Run{PromptTokens: 512, Ubatch: 512})
	tg := w.WithRun(model.Run{GenTokens: 16, Ubatch: 512})
	s.Engines[0].RepackedTypes = []string{"q4_0"} // fixed slices, as 2023's ggml divided every matmul
	pool := func(n int) model.Plan { return model.NewPool([]string{"p"}, []int{n}, 50) }

	y := s.Engines[0].SMTYield.Matmul
	pp8, pp12, pp16 := tps(t, s, pp, pool(8)), tps(t, s, pp, pool(12)), tps(t, s, pp, pool(16))
	t.Logf("pp512: -t 8 %.2f, -t 12 %.2f, -t 16 %.2f t/s (matmul yield %g)", pp8, pp12, pp16, y)
	if r := pp16 / pp8; !(r > 1 && r < 1+y+0.01) {
		t.Errorf("pp -t 16 / -t 8 = %.4f: want a gain up to the yield %g", r, y)
	}
	if r := pp12 / pp8; !(r > 0.7 && r < 0.9) {
		t.Errorf("pp -t 12 / -t 8 = %.4f: want about 12/8 x (1+y)/2 = %.3f", r, 12.0/8*(1+y)/2)
	}
	zero := s.Clone()
	zero.Engines[0].SMTYield.Matmul = 0
	zero.Engines[0].SMTYield.Attention = 0
	zero.Engines[0].SMTYield.Scalar = 0
	if r := tps(t, zero, pp, pool(16)) / tps(t, zero, pp, pool(8)); math.Abs(r-1) > 0.02 {
		t.Errorf("no yield: pp -t 16 / -t 8 = %.4f, want 1 within 2%%", r)
	}
	tg8, tg16 := tps(t, s, tg, pool(8)), tps(t, s, tg, pool(16))
	t.Logf("tg16: -t 8 %.2f, -t 16 %.2f t/s", tg8, tg16)
	if r := tg16 / tg8; !(r < 1.02) {
		t.Errorf("tg -t 16 / -t 8 = %.4f: a DRAM-bound decode gains nothing from siblings (dram yield 0)", r)
	}
	flat := s.Clone()
	flat.Engines[0].SMTWays, flat.Engines[0].SMTCPUs, flat.Engines[0].SMTYield = 0, nil, nil
	if r := tps(t, flat, tg, pool(16)) / tg8; !(r < 0.2) {
		t.Errorf("16 threads on 8 cores without SMT: %.3f of -t 8, want a collapse (time slices)", r)
	}
	// Past the 16 hardware threads the pool is time-sliced again.
	if r := tps(t, s, tg, pool(17)) / tg16; !(r < 0.2) {
		t.Errorf("-t 17 on 16 hardware threads: %.3f of -t 16, want a collapse", r)
	}
}

// TestSMTChunked: where threads claim chunks (the generic kernels of a
// prompt), a core of two threads claims for both: -t 12 is not gated by
// its paired cores as fixed slices are.
func TestSMTChunked(t *testing.T) {
	s := smtSoC(t, true)
	w := mustWorkload(t, "llama-2-7b").WithRun(model.Run{PromptTokens: 512, Ubatch: 512})
	pool := func(n int) model.Plan { return model.NewPool([]string{"p"}, []int{n}, 50) }
	chunked := tps(t, s, w, pool(12)) / tps(t, s, w, pool(8))
	s.Engines[0].RepackedTypes = []string{"q4_0"}
	fixed := tps(t, s, w, pool(12)) / tps(t, s, w, pool(8))
	t.Logf("-t 12 over -t 8: chunked %.3f, fixed slices %.3f", chunked, fixed)
	if !(chunked > fixed+0.1) || !(chunked > 0.95) {
		t.Errorf("-t 12 over -t 8: chunked %.3f, fixed %.3f: chunks should keep the paired cores from gating", chunked, fixed)
	}
}

// TestPlacedPool: a pool placed by a policy runs as its plan says: on the
// hybrid fixture -t 32 (P-cores with their siblings and every E-core)
// and a strict mask that puts five threads on four allowed cores, which
// is oversubscribed (a time slice a barrier).
func TestPlacedPool(t *testing.T) {
	s := smtSoC(t, false)
	w := mustWorkload(t, "llama-2-7b").WithRun(model.Run{GenTokens: 16, Ubatch: 512})
	pl, err := s.Place(32, model.PlaceLinux, model.PlaceOptions{Poll: 50})
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, s, w, pl.Plan)
	if r.Pool.DescheduledS != 0 || !(r.TPS > 0) {
		t.Errorf("-t 32 on 32 hardware threads: %.2f t/s, descheduled %g s", r.TPS, r.Pool.DescheduledS)
	}
	four, err := s.Place(4, model.PlaceLinux, model.PlaceOptions{Mask: []int{16, 17, 18, 19}, Poll: 50})
	if err != nil {
		t.Fatal(err)
	}
	five, err := s.Place(5, model.PlaceStrict, model.PlaceOptions{Mask: []int{15, 16, 17, 18, 19}, Allowed: []int{16, 17, 18, 19}, Poll: 50})
	if err != nil {
		t.Fatal(err)
	}
	r4, r5 := mustRun(t, s, w, four.Plan), mustRun(t, s, w, five.Plan)
	t.Logf("4 E-cores %.2f t/s; 5 threads pinned, one outside the CPU set: %.3f t/s (%s)", r4.TPS, r5.TPS, five.Plan)
	if !(r5.TPS < r4.TPS/20) || r5.Pool.DescheduledS <= 0 {
		t.Errorf("five threads on four allowed cores: %.3f t/s against %.2f, want a collapse", r5.TPS, r4.TPS)
	}
}
