package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/blsim/blsim/model"
)

// claimReplay is ggml's chunk claiming replayed claim by claim, thread by
// thread: the reference claim must match.
func claimReplay(nchunk int, threads []int, c []float64) []float64 {
	type thread struct {
		eng  int
		done int // chunks claimed: the next claim is at done*c
	}
	var ts []thread
	for i, t := range threads {
		for range t {
			ts = append(ts, thread{eng: i})
		}
	}
	got := make([]float64, len(threads))
	next := 0
	for k := range ts { // every thread starts on the chunk of its index
		if next < nchunk {
			got[ts[k].eng]++
			ts[k].done = 1
			next++
		}
	}
	for next < nchunk {
		best := 0
		for k := range ts {
			tk, tb := float64(ts[k].done)*c[ts[k].eng], float64(ts[best].done)*c[ts[best].eng]
			if tk < tb || (tk == tb && ts[k].eng < ts[best].eng) {
				best = k
			}
		}
		got[ts[best].eng]++
		ts[best].done++
		next++
	}
	for i := range got {
		got[i] /= float64(nchunk)
	}
	return got
}

// TestClaimMatchesReplay: claim's shortcut gives every engine the chunks
// a claim-by-claim replay of ggml's counter does, exactly, over random
// pools (equal chunk times, ties, few and many chunks).
func TestClaimMatchesReplay(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 3000; trial++ {
		n := 1 + rng.IntN(4)
		threads := make([]int, n)
		c := make([]float64, n)
		nth := 0
		for i := range threads {
			threads[i] = 1 + rng.IntN(6)
			nth += threads[i]
			switch rng.IntN(3) {
			case 0:
				c[i] = 1 // ties across engines
			case 1:
				c[i] = float64(1 + rng.IntN(5)) // commensurate
			default:
				c[i] = 0.1 + 5*rng.Float64()
			}
		}
		nchunk := nth + rng.IntN(3000)
		if trial%10 == 0 {
			nchunk = 1 + rng.IntN(nth) // fewer chunks than threads
		}
		want := claimReplay(nchunk, threads, c)
		got := make([]float64, n)
		claim(nchunk, 1, threads, c, got)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("nchunk %d threads %v chunk times %v: shares %v, replay %v", nchunk, threads, c, got, want)
			}
		}
	}
}

// TestClaimForced: MUL_MAT_ID's threads each do their own chunk of every
// expert, however slow; the chunks they take come off the fast engines.
func TestClaimForced(t *testing.T) {
	out := make([]float64, 2)
	claim(64*8, 8, []int{4, 4}, []float64{1, 1000}, out) // 8 experts of 64 chunks
	if want := 4 * 8 / 512.0; math.Abs(out[1]-want) > 1e-12 || math.Abs(out[0]+out[1]-1) > 1e-12 {
		t.Errorf("shares %v, want the slow engine's forced %g", out, want)
	}
	claim(64*8, 8, []int{4, 4}, []float64{1, 1.5}, out) // not binding
	if out[1] <= 4*8/512.0 || math.Abs(out[0]+out[1]-1) > 1e-12 {
		t.Errorf("shares %v", out)
	}
}

// TestPoolChunks: ggml's chunking rules, op by op: 16x16 chunks claimed
// dynamically, 64 rows a chunk against one token, one fixed slice per
// thread with fewer than four chunks a thread, for repacked weights (a
// listed type, or, without types, bits that listed types alone have) and
// for scalar ops; flash attention four chunks a thread.
func TestPoolChunks(t *testing.T) {
	preset := mustSoC(t, seedSoC)
	// The generic kernels for every type: nothing repacked.
	s := preset.Clone()
	for i := range s.Engines {
		s.Engines[i].RepackedTypes = []string{}
	}
	generic := s.Clone()
	for i := range generic.Engines {
		generic.Engines[i].ExpertTokenTile = 16 // the generic MUL_MAT_ID
	}
	repacked := s.Clone()
	repacked.Engines[0].RepackedTypes = []string{"q8_0"}
	q40 := s.Clone()
	q40.Engines[0].RepackedTypes = []string{"q4_0"}
	w := mustWorkload(t, seedWorkload) // 256 experts top-8: ~16 tokens an expert at pp512
	typed := *w
	typed.Model.Types = map[string]string{"attention": "q8_0"}
	mat := model.Op{Kind: model.Matmul, Tensor: "attention", Out: 9216, Tokens: 512}
	vec := mat
	vec.Tokens = 1
	router := vec
	router.Out = 256
	gate := model.Op{Kind: model.ExpertMatmul, Tensor: "experts_gate_up", Out: 512, Tokens: 512}
	gateTG := gate
	gateTG.Tokens = 1
	for _, tc := range []struct {
		name   string
		soc    *model.SoC
		wl     *model.Workload
		op     model.Op
		nchunk int
		forced int
		fixed  bool
	}{
		{"matmul pp512", s, w, mat, 576 * 32, 1, false},
		{"matmul one token", s, w, vec, 144, 1, false},
		{"router one token", s, w, router, 8, 1, true},
		{"repacked matmul", repacked, &typed, mat, 8, 1, true},
		{"listed type not this one", q40, &typed, mat, 576 * 32, 1, false},
		{"no type, the bits of a listed type alone", repacked, w, mat, 8, 1, true},
		{"no type, the bits of a type not listed", q40, w, mat, 576 * 32, 1, false},
		{"the preset's q8_0 attention", preset, w, mat, 8, 1, true},
		{"experts generic pp512", generic, w, gate, 32 * 256, 256, false},
		{"experts generic one token", generic, w, gateTG, 8, 1, true},
		{"experts gemv path (expert_token_tile 1)", s, w, gate, 8, 1, true},
		{"scalar", s, w, model.Op{Kind: model.Scalar, Tokens: 512}, 8, 1, true},
		{"attention", s, w, model.Op{Kind: model.AttentionScores, Tokens: 512}, 32, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRunner(tc.soc, tc.wl, pool(4, 4, 50))
			nchunk, forced, fixed := r.chunks(&tc.op)
			if nchunk != tc.nchunk || forced != tc.forced || fixed != tc.fixed {
				t.Errorf("%d chunks, %d forced, fixed %v; want %d, %d, %v", nchunk, forced, fixed, tc.nchunk, tc.forced, tc.fixed)
			}
		})
	}
}

// phi3Mini is the phi-3-mini preset with its GGML types named: IQ4_XS
// (4.25 bpw) as #7176 ran it, Q4_0 or Q4_K_S (4.5) as PR #6915 did, the
// output head Q6_K in each mix.
func phi3Mini(t testing.TB, typ string) *model.Workload {
	w := *mustWorkload(t, "phi-3-mini")
	w.Name += "-" + typ
	if typ != "iq4_xs" {
		w.Model.BitsPerWeight.Attention, w.Model.BitsPerWeight.Dense = 4.5, 4.5
	}
	w.Model.Types = map[string]string{"attention": typ, "dense_ffn": typ, "output": "q6_k"}
	return &w
}

// kernel2024 is the kernel a 2024 llama.cpp build ran a weight type
// with on an arm64 core with the dot product: ggml's generic dot kernels
// (vec_dot), or, for Q4_0 and Q8_0 before PR #9330 (2024-09), llamafile's
// sgemm (tinyBLAS) at every batch size, one token included.
type kernel2024 int

const (
	vecDot kernel2024 = iota
	sgemm
)

// sgemmQ40Big is the A76 rate of llamafile's Q4_0 sgemm: the rate at which
// blsim gives PR #6915's phi3 Q4_0 pp512 at -t 4 on an RK3588S, 9.98 t/s.
const sgemmQ40Big = 8.5

// build2024 is s as a 2024 llama.cpp build ran it: no type repacked, the
// test's weight types at their 2024 kernel's rate, and either every matmul
// in a fixed row slice per thread (fixed: the builds before PR #6915, and
// sgemm, which ran Q4_0 then) or in PR #6915's dynamically claimed
// chunks. vec_dot runs iq4_xs at the profile's iq4_xs rate and the other
// types at its generic k-quant rate (q3_k's: PR #6915's Q4_K_S at -t 4);
// sgemm runs Q4_0 at sgemmQ40Big on the first engine and at the profile's
// iq4_xs ratio between the engines on the others (0.18x a thread, the
// seed's). A one-token sgemm walks three weight rows at once in one tile
// (gemm<3,1>), not vec_dot's streaming loop: it keeps the prefill's
// memory-compute overlap, and decode sets latencyBound on the engines
// whose prefetcher, by hypothesis, does not follow those three
// interleaved rows (see TestPoolRK3588PublicTables).
func build2024(t testing.TB, s *model.SoC, fixed bool, k kernel2024, latencyBound []string, types ...string) *model.SoC {
	t.Helper()
	c := s.Clone()
	base := c.Engines[0].KernelOpsPerCycle["iq4_xs"]
	for i := range c.Engines {
		e := &c.Engines[i]
		iq, ok1 := e.KernelOpsPerCycle["iq4_xs"]
		kq, ok2 := e.KernelOpsPerCycle["q3_k"]
		if !ok1 || !ok2 {
			t.Fatalf("%s: engine %s lacks the iq4_xs or q3_k rate", s.Name, e.Name)
		}
		e.RepackedTypes = []string{}
		for _, typ := range types {
			switch {
			case k == sgemm:
				e.KernelOpsPerCycle[typ] = sgemmQ40Big * iq / base
			case typ == "iq4_xs":
				e.KernelOpsPerCycle[typ] = iq
			default:
				e.KernelOpsPerCycle[typ] = kq
			}
			if fixed {
				e.RepackedTypes = append(e.RepackedTypes, typ)
			}
		}
		if k == sgemm {
			e.GemvOverlap = 0
			if slices.Contains(latencyBound, e.Name) {
				// One 64-byte line at a time, each at the DRAM latency
				// of a 128 MiB walk (docs/sources.md).
				e.BandwidthPerThreadGBs = lineBytes / latencyNS(e)
			}
		}
	}
	return c
}

const lineBytes = 64

// latencyNS is the DRAM latency of a 128 MiB walk on the RK3588's cores
// (docs/sources.md: A76 151 ns, A55 159 ns).
func latencyNS(e *model.Engine) float64 {
	if e.CoreType == "Cortex-A55" {
		return 159
	}
	return 151
}

// TestPoolRK3588PublicTables: stock llama.cpp's -t 8 against -t 4 on an
// RK3588S (Orange Pi 5), dense phi-3-mini, as two public reports measured
// it, and #14532's MoE decode, predicted on the rk3588 profile. With every
// matmul in fixed slices the A55s gate each op, prompt and eval alike; PR
// #6915's chunk claiming lets the A76s take what the A55s cannot. Each
// ratio must fall within 20% of the measured one (#14532's quant is not
// stated; it is taken as Q4_K_M). The -t 4 rates the profile took its
// values from are marked: iq4_xs's A76 rate (#7176's prompt), sgemm's
// Q4_0 rate (#6915's Q4_0 pp512), the A76's one-token overlap (#6915's
// Q4_K_S tg128) and the A55's (#7176's eval at -t 8); the others are
// predictions, logged beside the measured rates, and phi-3-mini's each
// within 20% of the report's.
//
// PR #6915's Q4_0 tg128 (5.12 -> 1.34 t/s) ran llamafile's sgemm for one
// token: gemm<3,1>, three weight rows walked together. Its -t 4 is what a
// walk without vec_dot's streaming overlap gives. Its -t 8, A55-gated,
// takes 0.75 s a token where #7176's IQ4_XS eval, vec_dot on the same
// board and model, took 0.26: the A55s then read 0.37 GB/s each, what one
// 64-byte line at a time at the A55's DRAM latency gives (0.40). That is
// the hypothesis the row is predicted under: the A55's prefetcher does not
// follow three interleaved rows, whose misses come 27 lines apart (the
// Cortex-A7 and A35 prefetchers recognise misses within four lines of
// each other; the A55's manual says only that it tracks several streams),
// and the in-order core waits for each line. No source measures it; an
// A55-only run of a 2024 build would.
func TestPoolRK3588PublicTables(t *testing.T) {
	s := mustSoC(t, seedSoC)
	// ./main's prompt "Hi! My name is": six tokens with the BOS.
	prompt := model.Run{PromptTokens: 6, Ubatch: 6}
	pp512 := model.Run{PromptTokens: 512, Ubatch: 512}
	qwen3 := *mustWorkload(t, "qwen3-30b-a3b")
	qwen3.Model.Types = map[string]string{"attention": "q4_k", "experts_gate_up": "q4_k", "experts_down": "q6_k", "router": "f32", "output": "q6_k"}
	type table struct {
		name   string
		wl     *model.Workload
		types  []string // the test's weight types, at their 2024 kernel's rate
		kernel kernel2024
		fixed  bool
		run    model.Run
		m4, m8 float64 // measured -t 4 and -t 8 t/s (0: not reported)
		set    string  // which measured rate set a profile value
		assert bool    // the ratio within 20%, and below 1 exactly when fixed
	}
	iq, q0, qk := phi3Mini(t, "iq4_xs"), phi3Mini(t, "q4_0"), phi3Mini(t, "q4_k")
	for _, tc := range []table{
		// ggml-org/llama.cpp#7176, b2785 and b2787: prompt 11.19 -> 4.39
		// t/s, eval 6.93 -> 3.81 t/s.
		{"7176 IQ4_XS prompt", iq, []string{"iq4_xs"}, vecDot, true, prompt, 11.19, 4.39, "-t 4", true},
		{"7176 IQ4_XS eval", iq, []string{"iq4_xs"}, vecDot, true, tg(128, 0), 6.93, 3.81, "-t 8", true},
		// PR #6915's comment of 2024-05-12: Q4_0 pp512 9.98 -> 3.63,
		// tg128 5.12 -> 1.34; Q4_K_S pp512 8.82 -> 9.09, tg128 7.02 at -t 4.
		{"6915 Q4_0 pp512", q0, []string{"q4_0"}, sgemm, true, pp512, 9.98, 3.63, "-t 4", true},
		{"6915 Q4_0 tg128", q0, []string{"q4_0"}, sgemm, true, tg(128, 0), 5.12, 1.34, "", true},
		{"6915 Q4_K_S pp512", qk, []string{"q4_k"}, vecDot, false, pp512, 8.82, 9.09, "-t 4", true},
		{"6915 Q4_K_S tg128", qk, []string{"q4_k"}, vecDot, false, tg(128, 0), 7.02, 0, "-t 4", false},
		// ggml-org/llama.cpp#14532 (2025-07): Qwen3-30B-A3B decode 3.44
		// t/s at -t 8, 5.66 on the big cores. The quant is not stated:
		// taken as Q4_K_M, whose Q4_K and Q6_K ggml did not yet repack
		// on a core without i8mm (Q4_K from 2025-12, Q6_K 2026-02), so
		// the generic kernels: the dense matmuls claim chunks, and
		// MUL_MAT_ID gives each thread one slice (a one-token expert has
		// too few chunks, and arm64 builds then disabled its chunking:
		// ggml-cpu.c at llama.cpp c392e50).
		{"14532 Qwen3-30B-A3B tg128", &qwen3, []string{"q4_k", "q6_k"}, vecDot, false, tg(128, 0), 5.66, 3.44, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var slow []string
			if tc.kernel == sgemm && tc.run.GenTokens > 0 {
				slow = []string{"little"}
			}
			b := build2024(t, s, tc.fixed, tc.kernel, slow, tc.types...)
			w := withRun(tc.wl, tc.run)
			t4 := mustRun(t, b, w, model.NewPool([]string{"big"}, []int{4}, 50))
			t8 := mustRun(t, b, w, pool(4, 4, 50))
			got := t8.TPS / t4.TPS
			line := fmt.Sprintf("-t 4 %.2f t/s (measured %.2f), -t 8 %.2f", t4.TPS, tc.m4, t8.TPS)
			if tc.m8 > 0 {
				line += fmt.Sprintf(" (%.2f): %.3f, measured %.3f (%+.0f%%)", tc.m8, got, tc.m8/tc.m4, 100*(got/(tc.m8/tc.m4)-1))
			}
			if tc.set != "" {
				line += "; the " + tc.set + " rate set a profile value"
			}
			t.Logf("%s; fixed-slice ops %d of %d", line, t8.Pool.StaticOps, t8.Pool.Ops)
			// The phi-3-mini rates themselves, whose quants are stated:
			// each within 20% of the report's.
			for _, r := range []struct{ got, want float64 }{{t4.TPS, tc.m4}, {t8.TPS, tc.m8}} {
				if tc.wl.Model.MoE.Experts == 0 && r.want > 0 && math.Abs(r.got/r.want-1) > 0.2 {
					t.Errorf("%.2f t/s, measured %.2f: not within 20%%", r.got, r.want)
				}
			}
			if !tc.assert {
				return
			}
			measured := tc.m8 / tc.m4
			if math.Abs(got/measured-1) > 0.2 {
				t.Errorf("-t 8 / -t 4 = %.3f, measured %.3f: not within 20%%", got, measured)
			}
			if (got < 1) != (tc.fixed || tc.wl.Model.MoE.Experts > 0) {
				t.Errorf("-t 8 / -t 4 = %.3f with fixed slices %v: the wrong way", got, tc.fixed)
			}
		})
	}
	// Fixed slices are never faster than chunk claiming at the same rates.
	for _, run := range []model.Run{pp512, tg(128, 0)} {
		w := withRun(phi3Mini(t, "iq4_xs"), run)
		f := mustRun(t, build2024(t, s, true, vecDot, nil, "iq4_xs"), w, pool(4, 4, 50)).TPS
		d := mustRun(t, build2024(t, s, false, vecDot, nil, "iq4_xs"), w, pool(4, 4, 50)).TPS
		if f > d {
			t.Errorf("pp%d tg%d: fixed slices %.3f t/s beat chunk claiming %.3f", run.PromptTokens, run.GenTokens, f, d)
		}
	}
}

// TestPi5DenseDecode: a Raspberry Pi 5 (16 GB, D0) decoding ollama's
// llama3.2:3b (Q4_K_M) on its four A76s measured 4.51 to 4.88 t/s
// (geerlingguy/ai-benchmarks#7, 2025-01: 4.51 without the SDRAM tweaks,
// 4.59 and 4.88 with them). ggml did not yet repack Q4_K or Q6_K then, so
// the generic k-quant kernels ran them; predicted on the pi5 what-if,
// whose one-token overlap is rk3588's A76's, within 20% of the range.
func TestPi5DenseDecode(t *testing.T) {
	s := build2024(t, mustSoC(t, "pi5"), false, vecDot, nil, "q4_k", "q6_k")
	w := withRun(mustWorkload(t, "llama-3.2-3b"), tg(128, 0))
	r := mustRun(t, s, w, model.NewPool([]string{"big"}, []int{4}, 50))
	t.Logf("pi5 llama-3.2-3b tg128 at -t 4: %.2f t/s, measured 4.51-4.88", r.TPS)
	if r.TPS < 0.8*4.51 || r.TPS > 1.2*4.88 {
		t.Errorf("tg128 %.2f t/s, measured 4.51-4.88: not within 20%%", r.TPS)
	}
}

// TestPoolLittleSlowsPrefill: stock llama.cpp's -t 8 on the RK3588 (4
// big + 4 little threads in one pool) is slower than -t 4 on the big
// cores for a prompt, as on the Orange Pi 5 (ggml-org/llama.cpp#7176:
// prompt 11.19 -> 4.39 t/s, eval 6.93 -> 3.81; PR #6915: phi3 Q4_0 pp512
// 9.98 -> 3.63, tg128 5.12 -> 1.34): the little cores gate every op
// divided in fixed slices. The ratios are logged; the direction is
// asserted for the MoE presets, whose MUL_MAT_ID runs the repacked gemv
// path (expert_token_tile 1). TestPoolRK3588PublicTables checks the
// tables' own ratios.
func TestPoolLittleSlowsPrefill(t *testing.T) {
	s := mustSoC(t, seedSoC)
	ratio := func(s *model.SoC, w *model.Workload) (pp, gen float64) {
		t.Helper()
		if err := w.Validate(); err != nil {
			t.Fatal(err)
		}
		t4 := mustRun(t, s, w, model.NewPool([]string{"big"}, []int{4}, 50))
		t8 := mustRun(t, s, w, pool(4, 4, 50))
		wg := withRun(w, tg(128, 0))
		g4 := mustRun(t, s, wg, model.NewPool([]string{"big"}, []int{4}, 50))
		g8 := mustRun(t, s, wg, pool(4, 4, 50))
		t.Logf("%s on %s: pp%d -t 4 %.3f, -t 8 %.3f t/s (%.3f); tg128 -t 4 %.3f, -t 8 %.3f t/s (%.3f); fixed-slice ops %d of %d",
			w.Name, s.Name, w.Run.PromptTokens, t4.TPS, t8.TPS, t8.TPS/t4.TPS, g4.TPS, g8.TPS, g8.TPS/g4.TPS, t8.Pool.StaticOps, t8.Pool.Ops)
		return t8.TPS / t4.TPS, g8.TPS / g4.TPS
	}
	for _, wn := range []string{seedWorkload, "synthetic-moe"} {
		w := mustWorkload(t, wn)
		if pp, _ := ratio(s, withRun(w, model.Run{PromptTokens: 512, Ubatch: 512})); !(pp < 1) {
			t.Errorf("%s pp512: -t 8 / -t 4 = %.3f, want below 1", wn, pp)
		}
	}
}

// TestPoolFastCoresTakeMoreChunks: in a pool over big and little, the
// generic kernels' chunks go to the big cores in proportion to their
// speed, where fixed slices give each thread the same share.
func TestPoolFastCoresTakeMoreChunks(t *testing.T) {
	s := mustSoC(t, seedSoC)
	w := phi3Mini(t, "iq4_xs")
	r := mustRun(t, s, w, pool(4, 4, 50))
	if share := r.Engines[1].Ops / (r.Engines[0].Ops + r.Engines[1].Ops); share > 0.3 || share < 0.05 {
		t.Errorf("generic kernels: the little cores do %.3f of the arithmetic, want their speed's share (about 0.2)", share)
	}
	f := s.Clone()
	for i := range f.Engines {
		f.Engines[i].RepackedTypes = []string{"iq4_xs"}
	}
	r = mustRun(t, f, w, pool(4, 4, 50))
	if share := r.Engines[1].Ops / (r.Engines[0].Ops + r.Engines[1].Ops); math.Abs(share-0.5) > 0.02 {
		t.Errorf("fixed slices: the little cores do %.3f of the arithmetic, want half", share)
	}
	if r.Pool.ImbalanceS <= 0 || r.Pool.StaticOps == 0 || r.Pool.Ops != len(w.Ops(0)) {
		t.Errorf("pool stats %+v for %d ops", r.Pool, len(w.Ops(0)))
	}
}

// TestPoolOversubscribed: more threads than cores is time-slicing, and
// every barrier waits for the thread that is not running: llama.cpp#21763
// (Dimensity 9500s: 28.2 t/s at 3 threads, 0.26 at 5 or more) and PR
// #13079 (Raspberry Pi 5: 26.5 t/s at 4 threads on 4 cores, 0.12 at 8).
// Five threads on the four big cores decode far slower than four or three;
// a prompt, whose ops are long, loses less.
func TestPoolOversubscribed(t *testing.T) {
	s := mustSoC(t, seedSoC)
	for _, wn := range []string{seedWorkload, "synthetic-moe"} {
		w := mustWorkload(t, wn)
		for _, run := range []model.Run{tg(128, 0), {PromptTokens: 512, Ubatch: 512}} {
			w := withRun(w, run)
			tps := map[int]float64{}
			for _, n := range []int{3, 4, 5, 8} {
				tps[n] = mustRun(t, s, w, model.NewPool([]string{"big"}, []int{n}, 50)).TPS
			}
			name := fmt.Sprintf("%s pp%d tg%d", wn, run.PromptTokens, run.GenTokens)
			t.Logf("%s: -t 3 %.4g, 4 %.4g, 5 %.4g, 8 %.4g t/s (5/4 = %.3f)", name, tps[3], tps[4], tps[5], tps[8], tps[5]/tps[4])
			if !(tps[5] < tps[4]) || !(tps[8] <= tps[5]) {
				t.Errorf("%s: not slower past the cores: %v", name, tps)
			}
			if run.GenTokens > 0 && (tps[5] > 0.2*tps[4] || tps[5] > 0.2*tps[3]) {
				t.Errorf("%s: 5 threads on 4 cores %.4g t/s, want far below 4 threads' %.4g and 3's %.4g", name, tps[5], tps[4], tps[3])
			}
		}
	}
}

// BenchmarkRunPool is one pool prediction of each test: -t 8 over big and
// little, pp512 and tg128, Qwen3.5-35B-A3B on the RK3588.
func BenchmarkRunPool(b *testing.B) {
	s := mustSoC(b, seedSoC)
	w := mustWorkload(b, seedWorkload)
	g := withRun(w, tg(128, 0))
	for b.Loop() {
		if _, err := Run(s, w, pool(4, 4, 50)); err != nil {
			b.Fatal(err)
		}
		if _, err := Run(s, g, pool(4, 4, 50)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPoolDecodeSamples: a pool's tg128 from an empty KV cache simulates
// two token graphs, as native does (one pool: the first token is as any
// other), and agrees with simulating every token within 1e-3: the chunks of attention
// moving between engines as the depth grows are integrated across, not
// bisected.
func TestPoolDecodeSamples(t *testing.T) {
	s := mustSoC(t, seedSoC)
	for _, wn := range []string{seedWorkload, "phi-3-mini", "synthetic-moe"} {
		w := withRun(mustWorkload(t, wn), tg(128, 0))
		r := mustRun(t, s, w, pool(4, 4, 50))
		every, err := RunWith(s, w, pool(4, 4, 50), Options{everyToken: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.tokenGraphs != 2 || relDiff(r.WallS, every.WallS) > 1e-3 {
			t.Errorf("%s: %d token graphs, wall %.9g s, every token %.9g s", wn, r.tokenGraphs, r.WallS, every.WallS)
		}
		t.Logf("%s: %.2g off simulating every token", wn, relDiff(r.WallS, every.WallS))
	}
}
