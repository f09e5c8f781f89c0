package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

func planN(mode model.Mode, engines []string, threads []int) model.Plan {
	return model.Plan{Mode: mode, Engines: engines, Threads: threads, Poll: 50}
}

// TestBestNMatchesGrid: on the three-cluster cix-p1 the N-way optimiser
// finds the optimum of a fine grid over the simplex (step 0.01 around the
// optimum, 0.02 elsewhere) — as high a t/s, at the same fractions.
func TestBestNMatchesGrid(t *testing.T) {
	s := mustSoC(t, "cix-p1")
	w := mustWorkload(t, seedWorkload)
	p := planN(model.TokenSplit, []string{"big", "mid", "little"}, []int{4, 4, 4})
	frp, r, err := BestN(s, w, p)
	fr := frp.Fracs
	if err != nil {
		t.Fatal(err)
	}
	grid := func(step float64, lo, hi [2]float64) ([]float64, float64) {
		var cfgs []Config
		for i := math.Round(lo[0] / step); i*step <= hi[0]+1e-9; i++ {
			for j := math.Round(lo[1] / step); j*step <= hi[1]+1e-9 && (i+j)*step <= 1+1e-9; j++ {
				a, b := i*step, j*step
				q := p
				q.Fracs = []float64{math.Max(0, 1-a-b), a, b}
				if q.Fracs[0] < 1e-9 {
					q.Fracs = []float64{0, a / (a + b), b / (a + b)}
				}
				cfgs = append(cfgs, Config{SoC: s, Plan: q})
			}
		}
		res, err := Sweep(w, cfgs)
		if err != nil {
			t.Fatal(err)
		}
		bi := 0
		for i := range res {
			if res[i].TPS > res[bi].TPS {
				bi = i
			}
		}
		return cfgs[bi].Plan.Fracs, res[bi].TPS
	}
	gf, gt := grid(0.02, [2]float64{0, 0}, [2]float64{1, 1})
	ff, ft := grid(0.01, [2]float64{math.Max(0, gf[1]-0.06), math.Max(0, gf[2]-0.06)}, [2]float64{gf[1] + 0.06, gf[2] + 0.06})
	if ft < gt {
		ff, ft = gf, gt
	}
	t.Logf("BestN %.4f/%.4f/%.4f %.4f t/s; grid %.2f/%.2f/%.2f %.4f t/s", fr[0], fr[1], fr[2], r.TPS, ff[0], ff[1], ff[2], ft)
	if sum := fr[0] + fr[1] + fr[2]; math.Abs(sum-1) > 1e-12 {
		t.Errorf("fractions sum to %.15g", sum)
	}
	if r.TPS < ft*(1-1e-4) {
		t.Errorf("BestN %.5f t/s below the grid's %.5f", r.TPS, ft)
	}
	for i := range fr {
		if math.Abs(fr[i]-ff[i]) > 0.02 {
			t.Errorf("engine %s: BestN fraction %.4f, grid %.2f", p.Engines[i], fr[i], ff[i])
		}
	}
	if want := GainPct(r.TPS, mustRun(t, s, w, model.NewNative("big", 4, 50)).TPS); !(want > 5) {
		t.Errorf("three clusters of cix-p1 gain %.2f%%; want a clear win", want)
	}
}

// TestBestNTwoEngines: with two CPU clusters BestN agrees with Best.
func TestBestNTwoEngines(t *testing.T) {
	s := mustSoC(t, seedSoC)
	w := mustWorkload(t, seedWorkload)
	for _, mode := range []model.Mode{model.TokenSplit, model.ExpertSplit} {
		fp, r, err := Best(s, w, model.NewPlan(mode, []string{"big", "little"}, []int{4, 4}, model.SharesOf(0), 50))
		f := fp.Fracs[1]
		if err != nil {
			t.Fatal(err)
		}
		frp, rn, err := BestN(s, w, planN(mode, []string{"big", "little"}, []int{4, 4}))
		fr := frp.Fracs
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: Best %.4f %.5f t/s, BestN %.4f %.5f t/s", mode, f, r.TPS, fr[1], rn.TPS)
		if rn.TPS < r.TPS*(1-1e-5) || math.Abs(fr[1]-f) > 0.01 {
			t.Errorf("%s: BestN %.4f (%.5f t/s) vs Best %.4f (%.5f t/s)", mode, fr[1], rn.TPS, f, r.TPS)
		}
	}
}

// TestBestNDeterministic: same inputs, same answer, bit for bit.
func TestBestNDeterministic(t *testing.T) {
	s := mustSoC(t, "rk3588-npu")
	w := mustWorkload(t, seedWorkload)
	p := planN(model.TokenSplit, []string{"big", "little", "npu"}, []int{4, 4, 3})
	f1p, r1, err := BestN(s, w, p)
	f1 := f1p.Fracs
	if err != nil {
		t.Fatal(err)
	}
	f2p, r2, err := BestN(s, w, p)
	f2 := f2p.Fracs
	if err != nil {
		t.Fatal(err)
	}
	for i := range f1 {
		if f1[i] != f2[i] {
			t.Errorf("fractions differ: %v vs %v", f1, f2)
		}
	}
	if r1.TPS != r2.TPS {
		t.Errorf("t/s differ: %v vs %v", r1.TPS, r2.TPS)
	}
}

// TestBestNInvalid: plans BestN cannot search give a one-line error.
func TestBestNInvalid(t *testing.T) {
	s := mustSoC(t, "rk3588-npu")
	w := mustWorkload(t, seedWorkload)
	for _, tc := range []struct {
		name string
		p    model.Plan
		want string
	}{
		{"native", model.NewNative("big", 4, 50), "native plan"},
		{"one engine", planN(model.TokenSplit, []string{"big"}, []int{4}), "needs two or more"},
		{"unknown engine", planN(model.TokenSplit, []string{"big", "gpu"}, []int{4, 4}), `no engine "gpu"`},
		{"npu by experts", planN(model.ExpertSplit, []string{"big", "npu"}, []int{4, 3}), `"npu" cannot take a share of expert_matmul in expert split mode`},
		{"npu main", planN(model.TokenSplit, []string{"npu", "big"}, []int{3, 4}), "cannot be the main engine"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := BestN(s, w, tc.p)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v; want one line containing %q", err, tc.want)
			}
		})
	}
}

// TestNPUTwoEngineUnchanged: the rk3588-npu preset is rk3588 plus an NPU:
// its big+little plans predict the same, bit for bit.
func TestNPUTwoEngineUnchanged(t *testing.T) {
	a, b := mustSoC(t, seedSoC), mustSoC(t, "rk3588-npu")
	w := mustWorkload(t, seedWorkload)
	for _, p := range []model.Plan{native(50), tokenSplit(0.12, 50), expertSplit(0.12, 0), tokenSplit(0.3, 0)} {
		ra, rb := mustRun(t, a, w, p), mustRun(t, b, w, p)
		if ra.TPS != rb.TPS || ra.WallS != rb.WallS || ra.Bound != rb.Bound {
			t.Errorf("%s: rk3588 %v t/s, rk3588-npu %v t/s", p, ra.TPS, rb.TPS)
		}
	}
}

// TestNPUSplit: the NPU as a concurrent token slice on the seed's board.
// Its partition pays submit + setup (no pool wake), reads converted
// weights, shares DRAM; the best split is a WIN, and its share and gain
// are in the range the preset's documented assumptions give.
func TestNPUSplit(t *testing.T) {
	s := mustSoC(t, "rk3588-npu")
	w := mustWorkload(t, seedWorkload)
	nat := mustRun(t, s, w, native(50))
	frp, r, err := BestN(s, w, planN(model.TokenSplit, []string{"big", "npu"}, []int{4, 3}))
	fr := frp.Fracs
	if err != nil {
		t.Fatal(err)
	}
	gain := GainPct(r.TPS, nat.TPS)
	t.Logf("big+npu best: npu %.4f, %.3f t/s vs native %.3f (%+.2f%%)", fr[1], r.TPS, nat.TPS, gain)
	if !(fr[1] > 0.5 && fr[1] < 0.95) || !(gain > 10 && gain < 25) {
		t.Errorf("npu share %.3f gain %.2f%%; want the NPU to take most tokens for a 10-25%% gain", fr[1], gain)
	}
	// Submit latency and per-op setup are paid once per split op, on the
	// NPU's handoff: 120 split ops per ubatch of qwen3.5 (40 layers x 3).
	e, _, _ := s.Engine("npu")
	wantHandoff := float64(r.Split.Ops) * (e.SubmitUS + e.SetupUSPerOp) * 1e-6
	if got := r.Engines[1].HandoffS; math.Abs(got-wantHandoff) > 1e-9 {
		t.Errorf("npu handoff %.6f s, want ops x (submit + setup) = %.6f s", got, wantHandoff)
	}
	// Conversion traffic: the NPU's bytes shrink when its weights need
	// no conversion.
	c := s.Clone()
	ce, _, _ := c.Engine("npu")
	ce.ConvertBytesPerWeightByte = nil
	q := planN(model.TokenSplit, []string{"big", "npu"}, []int{4, 3})
	q.Fracs = fr
	rc := mustRun(t, c, w, q)
	if !(rc.Engines[1].Bytes < r.Engines[1].Bytes*0.8) || !(rc.TPS > r.TPS) {
		t.Errorf("without conversion: npu bytes %.3g vs %.3g, t/s %.3f vs %.3f", rc.Engines[1].Bytes, r.Engines[1].Bytes, rc.TPS, r.TPS)
	}
	// Memory of its own: no contention, so at least as fast; the SoC's
	// DRAM carries only the CPU's bytes.
	ce.ConvertBytesPerWeightByte = map[model.KernelClass]float64{"q4": 0.78, "q6": 0.22}
	own := false
	ce.SharesDRAM = &own
	ro := mustRun(t, c, w, q)
	if !(ro.TPS > r.TPS) {
		t.Errorf("npu with its own memory %.3f t/s, shared %.3f", ro.TPS, r.TPS)
	}
	if relDiff(ro.BytesMoved, ro.BytesDemanded) > 1e-9 || relDiff(ro.BytesDemanded+ro.Engines[1].Bytes, r.BytesDemanded) > 1e-9 {
		t.Errorf("own memory: DRAM bytes %.6g moved %.6g; npu %.6g; shared total %.6g", ro.BytesDemanded, ro.BytesMoved, ro.Engines[1].Bytes, r.BytesDemanded)
	}
}

// TestNPUSensitivity: the split turns from LOSS to WIN as the NPU's
// throughput rises (at the studied best fractions), and stops winning as
// its submit latency grows to tens of milliseconds per op.
func TestNPUSensitivity(t *testing.T) {
	s := mustSoC(t, "rk3588-npu")
	w := mustWorkload(t, seedWorkload)
	p := planN(model.TokenSplit, []string{"big", "npu"}, []int{4, 3})
	g, err := Sensitivity(s, w, p, "npu", []float64{0.125, 0.25, 0.5, 1, 2}, []float64{1, 16, 256})
	if err != nil {
		t.Fatal(err)
	}
	for j, row := range g.Cells {
		var line []string
		for _, c := range row {
			line = append(line, string(c.FixedVerdict+"/"+c.BestVerdict))
		}
		t.Logf("submit %6.0f µs: %s", g.SubmitUS[j], strings.Join(line, " "))
	}
	fixed := g.WinBoundary(false)
	t.Logf("studied %.3f TOPS %.0f µs; LOSS->WIN at fixed fractions between %.3f and %.3f TOPS", g.AtTOPS, g.AtSubmitUS, fixed[0].LoTOPS, fixed[0].HiTOPS)
	row := g.Cells[0]
	if row[0].FixedVerdict != "LOSS" || row[len(row)-1].FixedVerdict != "WIN" {
		t.Errorf("at the studied submit latency: fixed-fraction verdicts %s .. %s, want LOSS .. WIN", row[0].FixedVerdict, row[len(row)-1].FixedVerdict)
	}
	if b := fixed[0]; b.NeverWins || !(b.LoTOPS > 0 && b.HiTOPS > b.LoTOPS && b.LoTOPS < g.AtTOPS) {
		t.Errorf("boundary %+v: want a LOSS->WIN crossing below the studied %.3f TOPS", b, g.AtTOPS)
	}
	// The best split never loses: it can always give the NPU nothing.
	for _, row := range g.Cells {
		for _, c := range row {
			if c.BestVerdict == "LOSS" {
				t.Errorf("best split LOSS at %.3f TOPS %.0f µs", c.TOPS, c.SubmitUS)
			}
		}
	}
	// 256 x 250 µs = 64 ms per split op: the NPU no longer pays.
	if last := g.Cells[2][3]; last.BestVerdict == "WIN" || last.FixedVerdict != "LOSS" {
		t.Errorf("at 64 ms per submit: best %s, fixed %s; want no win", last.BestVerdict, last.FixedVerdict)
	}
	if _, err := Sensitivity(s, w, p, "big", nil, nil); err == nil {
		t.Errorf("sensitivity of a CPU cluster: no error")
	}
}

// TestNelderMead: the simplex search finds a smooth minimum.
func TestNelderMead(t *testing.T) {
	f := func(x []float64) float64 {
		a, b := x[0]-1, x[1]+2
		return a*a + 10*b*b + 0.5*a*b
	}
	x, v := nelderMead(f, []float64{3, 3}, 0.5, 1e-14, 2000)
	if math.Abs(x[0]-1) > 1e-4 || math.Abs(x[1]+2) > 1e-4 || v > 1e-8 {
		t.Errorf("minimum at %v (%g), want (1, -2)", x, v)
	}
}

// BenchmarkBestN3 is the N-way optimiser on three CPU clusters (cix-p1)
// and on big+little+NPU (rk3588-npu).
func BenchmarkBestN3(b *testing.B) {
	w := mustWorkload(b, seedWorkload)
	for _, tc := range []struct {
		soc     string
		engines []string
		threads []int
	}{
		{"cix-p1", []string{"big", "mid", "little"}, []int{4, 4, 4}},
		{"rk3588-npu", []string{"big", "little", "npu"}, []int{4, 4, 3}},
	} {
		s := mustSoC(b, tc.soc)
		b.Run(tc.soc, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := BestN(s, w, planN(model.TokenSplit, tc.engines, tc.threads)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A rate of zero (a fit's step may try one) makes an op endless: the run
// must say so with a throughput of zero, not loop forever.
func TestZeroRateEnds(t *testing.T) {
	s, w := mustSoC(t, "rk3588"), mustWorkload(t, "qwen3.5-35b-a3b")
	s.Engines[0].KernelOpsPerCycle["q4"] = 0
	s.Engines[0].BandwidthMaxGBs = 0
	r, err := Run(s, w, model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(0.12), 50))
	if err != nil {
		t.Fatal(err)
	}
	if r.TPS != 0 {
		t.Errorf("TPS %g with a zero rate, want 0", r.TPS)
	}
}
