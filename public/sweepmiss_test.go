package public

import (
	"math"
	"testing"

	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/sim"
)

// sweepRun is one row of a sweep as measured and as blsim simulates it.
type sweepRun struct {
	row Row
	res Result
	out *sim.Result
}

// sweepOf simulates the rows of a sweep by their -t, with the sets made
// on every row's SoC.
func sweepOf(t *testing.T, id string, sets ...Set) map[int]sweepRun {
	t.Helper()
	rows, err := Rows()
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]sweepRun{}
	for _, r := range rows {
		if r.Sweep != id {
			continue
		}
		res, o, err := simulate(r, sets)
		if err != nil || o == nil {
			t.Fatalf("%s: %v (%s)", r.ID, err, res.Why)
		}
		out[r.Threads] = sweepRun{r, res, o}
	}
	return out
}

// ratioMAPE is a sweep's within-sweep ratio MAPE as blsim check public
// scores it (the scored rows against the measured best).
func ratioMAPE(t *testing.T, id, family string, sets ...Set) float64 {
	t.Helper()
	rows, err := Rows()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Score(rows, Options{Family: family, Sets: sets})
	if err != nil {
		t.Fatal(err)
	}
	var errs []float64
	for _, r := range rep.Results {
		if r.Sweep == id && r.Status == Scored && r.HasRatio {
			errs = append(errs, r.RatioErrPct)
		}
	}
	return mape(errs)
}

// TestIntelSweepMisses holds docs/threads.md's diagnosis of the 13900K
// sweeps' ratio misses (INT-1 tg128, INT-2 pp512; "Why INT-1, INT-2 and
// SMT-7 miss"): what bounds each missing row's time in blsim, and which
// way each candidate mechanism moves the scores. Nothing here is set
// from the rows; the what-ifs are not applied to the presets.
func TestIntelSweepMisses(t *testing.T) {
	tg := sweepOf(t, "INT-1")
	for _, n := range []int{4, 8, 16, 24, 32} {
		r := tg[n]
		b := r.out.Bound
		t.Logf("%s: measured %.2f, blsim %.2f t/s; compute %.2f, DRAM %.2f, cluster cap %.2f, handoff %.2f of the time; DRAM utilisation %.2f",
			r.row.ID, r.row.TPS, r.res.Predicted, b.Compute, b.DRAM, b.EngineCap, b.Handoff, r.out.DRAMUtilMean)
	}
	// -t 8: the measured token moves the weights at the DRAM's sustained
	// rate, which only loads overlapped with the compute reach; blsim's
	// x86 one-token overlap is the prefill's (0.086), so its t8 is a
	// quarter low and every INT-1 ratio to it (the measured best) is off.
	t8 := tg[8]
	run, err := t8.row.Run()
	if err != nil {
		t.Fatal(err)
	}
	gbs := t8.row.TPS * t8.out.BytesDemanded / float64(run.GenTokens) / 1e9
	sustained := t8.out.BytesMoved / t8.out.WallS / t8.out.DRAMUtilMean / 1e9
	t.Logf("INT-1/t8 measured moves %.1f GB/s against the DRAM's sustained %.1f; blsim's token has compute %.2f of its time beside DRAM %.2f", gbs, sustained, t8.out.Bound.Compute, t8.out.Bound.DRAM)
	if !(gbs >= 0.95*sustained && t8.out.Bound.Compute > 0.2 && t8.res.Predicted < 0.8*t8.row.TPS) {
		t.Errorf("INT-1/t8: measured %.1f GB/s (sustained %.1f), blsim compute share %.2f, %.2f against %.2f t/s: the diagnosis no longer holds", gbs, sustained, t8.out.Bound.Compute, t8.res.Predicted, t8.row.TPS)
	}
	// -t 24: the E-cores' share of 2023's fixed slices goes through the
	// E cluster's cap (gracemont's derived 0.5 x sustained), so blsim's
	// -t 24 falls below its -t 16 where the measured one rises.
	if b := tg[24].out.Bound; !(b.EngineCap > 0.3) || !(tg[24].res.Predicted < tg[16].res.Predicted) || !(tg[24].row.TPS > tg[16].row.TPS) {
		t.Errorf("INT-1/t24: cap share %.2f, blsim %.2f against t16 %.2f, measured %.2f against %.2f: want the cap to bind and blsim to fall where the rows rise",
			b.EngineCap, tg[24].res.Predicted, tg[16].res.Predicted, tg[24].row.TPS, tg[16].row.TPS)
	}

	// INT-2: -t 24 and -t 32 both wait for the E-cores at every op (fixed
	// slices), so blsim's ratio of the two is 24/32 whatever the E-cores'
	// rate; the measured 0.852 wants -t 32 gated below the E-cores (the
	// P-cores' second threads, a matmul SMT yield below about -0.04).
	for _, sets := range [][]Set{nil, {{Path: "engines.little.kernel_ops_per_cycle.q4_0", Value: 8}}} {
		pp := sweepOf(t, "INT-2", sets...)
		ratio := pp[24].res.Predicted / pp[32].res.Predicted
		idle24 := pp[24].out.Engines[0].IdleS / pp[24].out.WallS
		idle32 := pp[32].out.Engines[0].IdleS / pp[32].out.WallS
		t.Logf("INT-2 %v: -t 24 over -t 32 blsim %.3f, measured %.3f; the P-cores idle %.2f and %.2f of the time", sets, ratio, pp[24].row.TPS/pp[32].row.TPS, idle24, idle32)
		if math.Abs(ratio/0.75-1) > 0.02 || idle24 < 0.15 || idle32 < 0.15 {
			t.Errorf("INT-2 %v: -t 24 over -t 32 %.3f, P idle %.2f/%.2f: want 24/32 within 2%% with the P-cores waiting", sets, ratio, idle24, idle32)
		}
	}

	// SMT-7/t1 sets the zen3 part's one-token overlap (0.77), which makes
	// blsim's -t 1 decode its measured rate; without it (the prefill's
	// overlap) -t 1 is about a third low. The value agrees with what the
	// rows say without blsim: one Zen 3 core reads at most
	// bandwidth_per_thread_gb_s (BusSpeed and STREAM, parts/cores/zen3.yaml),
	// and the same core's prompt (SMT-6/t1) gives its compute a token, so
	// loads then compute would take far longer than the measured token.
	soc6800, err := presets.SoC("ryzen-7-6800h")
	if err != nil {
		t.Fatal(err)
	}
	e := &soc6800.Engines[0]
	one := sweepOf(t, "SMT-7")[1]
	noOverlap := sweepOf(t, "SMT-7", Set{Path: "engines.*.gemv_overlap", Value: e.MemComputeOverlap})[1]
	run1, err := one.row.Run()
	if err != nil {
		t.Fatal(err)
	}
	bytes := one.out.BytesDemanded / float64(run1.GenTokens)
	loadS, computeS, tokenS := bytes/(e.BandwidthPerThreadGBs*1e9), 1/sweepOf(t, "SMT-6")[1].row.TPS, 1/one.row.TPS
	derived := (loadS + computeS - tokenS) / computeS
	t.Logf("%s: measured %.2f, blsim %.2f t/s (%.2f at the prefill's overlap %.3f); compute %.2f, the core's stream cap %.2f of the time; rows and stream: loads %.3f s + compute %.3f s against %.3f s measured: overlap %.2f (the part's %.2f)",
		one.row.ID, one.row.TPS, one.res.Predicted, noOverlap.res.Predicted, e.MemComputeOverlap, one.out.Bound.Compute, one.out.Bound.EngineCap, loadS, computeS, tokenS, derived, e.GemvOverlap)
	if math.Abs(one.res.Predicted/one.row.TPS-1) > 0.02 || !(noOverlap.res.Predicted < 0.75*one.row.TPS) || math.Abs(derived-e.GemvOverlap) > 0.05 {
		t.Errorf("SMT-7/t1: blsim %.2f (%.2f without the overlap) against %.2f; the rows give overlap %.2f, the part %.2f: the value no longer holds", one.res.Predicted, noOverlap.res.Predicted, one.row.TPS, derived, e.GemvOverlap)
	}

	// SMT-6 (the 6800H's compute-bound prompt): its cores' clock falls
	// with the cores busy, from AMD's single-core max boost to the
	// all-core clock (docs/threads.md, "The clock by busy cores"), and a
	// thread of -t 1 does that much more than each of -t 2's, and a little
	// more (-t 2 pays the pool's barriers and thread-scaling loss).
	big := e
	for n := 2; n <= big.Cores; n++ {
		if !(big.ClockAt(n) < big.ClockAt(n-1)) {
			t.Errorf("ryzen-7-6800h: %.3f GHz with %d cores busy, %.3f with %d: want the clock to fall with every busy core", big.ClockAt(n), n, big.ClockAt(n-1), n-1)
		}
	}
	pp := sweepOf(t, "SMT-6")
	perThread := pp[1].res.Predicted / (pp[2].res.Predicted / 2)
	t.Logf("SMT-6: blsim -t 1 %.2f, -t 2 %.2f t/s: one thread does %.3f of each of two's work (the clocks' %.3f; measured %.3f)",
		pp[1].res.Predicted, pp[2].res.Predicted, perThread, big.ClockAt(1)/big.ClockAt(2), pp[1].row.TPS/(pp[2].row.TPS/2))
	if clocks := big.ClockAt(1) / big.ClockAt(2); perThread < clocks || perThread > 1.04*clocks {
		t.Errorf("SMT-6: -t 1 does %.3f of each -t 2 thread's work, the clocks give %.3f", perThread, big.ClockAt(1)/big.ClockAt(2))
	}

	// The 13900K's P-cores run Intel's Turbo Boost 2.0 table (5.4 GHz with
	// up to two busy, 5.3 with up to eight: presets/socs/i9-13900k.yaml),
	// which took INT-1 from 10.7% to 10.5% and INT-2 from 13.6% to 12.6%;
	// 2023's Q4_0 loop at each core's own bound (the parts'
	// generic_q4_0_ops_per_cycle: the P-core's FMA chain, 16 ops/cycle
	// where 18.2 was carried from zen5; the E-core's micro-ops, 10) then
	// took INT-2 from 8.9% to 7.1% and INT-1 from 11.0% to 11.7%, still
	// short (docs/threads.md).
	i9, err := presets.SoC("i9-13900k")
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]float64{1: 5.4, 2: 5.4, 3: 5.3, 8: 5.3} {
		if got := i9.Engines[0].ClockAt(n); math.Abs(got-want) > 1e-9 {
			t.Errorf("i9-13900k: %.2f GHz with %d P-cores busy, Turbo Boost 2.0 gives %.1f", got, n, want)
		}
	}
	if a, b := ratioMAPE(t, "INT-1", "intel"), ratioMAPE(t, "INT-2", "intel"); a > 11.75 || b > 7.15 || a <= 10 || b > 10 {
		t.Errorf("INT-1 %.2f%%, INT-2 %.2f%%: the docs say 11.7%% (short of 10%%) and 7.1%% (within it)", a, b)
	}

	// The Zen 3 value does not carry to Raptor Lake: given to the 13900K's
	// cores it takes INT-1 further from the target (its -t 4 rises with
	// its -t 8), and the x86 parts' prefill overlap takes SMT-7 back out.
	int1, int1ov := ratioMAPE(t, "INT-1", "intel"), ratioMAPE(t, "INT-1", "intel", Set{Path: "engines.*.gemv_overlap", Value: e.GemvOverlap})
	smt7, smt7no := ratioMAPE(t, "SMT-7", "amd"), ratioMAPE(t, "SMT-7", "amd", Set{Path: "engines.*.gemv_overlap", Value: e.MemComputeOverlap})
	t.Logf("ratio MAPE: INT-1 %.1f%%, with zen3's overlap %.2f %.1f%%; SMT-7 %.1f%%, with the prefill's %.3f %.1f%%", int1, e.GemvOverlap, int1ov, smt7, e.MemComputeOverlap, smt7no)
	if !(int1ov > int1 && smt7 <= 10 && smt7no > smt7) {
		t.Errorf("INT-1 %.1f -> %.1f with zen3's overlap, SMT-7 %.1f (%.1f without): want INT-1 worse, SMT-7 within 10%% and worse without it", int1, int1ov, smt7, smt7no)
	}
}

// TestThreadsOutOfPhase records what the threads-out-of-phase DRAM model
// (model.Engine.IndependentThreadLoads, a what-if no preset sets) does to
// the rows it was built for: it closes PI-3's gap (the Pi 5's second
// thread) and INT-1/t8's absolute error, and it does not take INT-1's
// ratios under 10%, since blsim's -t 4 then runs on its P-cores' compute,
// which is too fast (docs/threads.md, "Why INT-1 and INT-2 miss").
func TestThreadsOutOfPhase(t *testing.T) {
	rows, err := Rows()
	if err != nil {
		t.Fatal(err)
	}
	on := Set{Path: "engines.*.independent_thread_loads", Value: 1}
	find := func(rep *Report, id string) Result {
		for _, r := range rep.Results {
			if r.ID == id {
				return r
			}
		}
		t.Fatalf("no row %s", id)
		return Result{}
	}
	score := func(family string, sets ...Set) *Report {
		rep, err := Score(rows, Options{Family: family, Sets: sets})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	pi, piOn := find(score("pi"), "PI-3"), find(score("pi", on), "PI-3")
	i8, i8On := find(score("intel"), "INT-1/t8"), find(score("intel", on), "INT-1/t8")
	int1, int1On := ratioMAPE(t, "INT-1", "intel"), ratioMAPE(t, "INT-1", "intel", on)
	t.Logf("PI-3 ratio error %+.1f%% -> %+.1f%%; INT-1/t8 %+.1f%% -> %+.1f%%; INT-1 ratio MAPE %.1f%% -> %.1f%%",
		pi.RatioErrPct, piOn.RatioErrPct, i8.ErrPct, i8On.ErrPct, int1, int1On)
	if math.Abs(pi.RatioErrPct) < 25 || math.Abs(piOn.RatioErrPct) > 5 {
		t.Errorf("PI-3 ratio error %+.1f%% in lockstep, %+.1f%% out of phase: want over 25%% and within 5%%", pi.RatioErrPct, piOn.RatioErrPct)
	}
	if math.Abs(i8.ErrPct) < 20 || math.Abs(i8On.ErrPct) > 5 {
		t.Errorf("INT-1/t8 %+.1f%% in lockstep, %+.1f%% out of phase: want over 20%% and within 5%%", i8.ErrPct, i8On.ErrPct)
	}
	if int1On <= 10 {
		t.Errorf("INT-1 ratio MAPE %.1f%% out of phase: the docs say it stays over 10%%", int1On)
	}
}
