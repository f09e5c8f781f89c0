package sim

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// withRun is a copy of w timing run.
func withRun(w *model.Workload, run model.Run) *model.Workload {
	c := *w
	c.Run = run
	return &c
}

// tg is llama-bench's -p 0 -n n -d depth; pg its -pg p,n.
func tg(n, depth int) model.Run { return model.Run{Ubatch: 512, Depth: depth, GenTokens: n} }
func pg(p, n int) model.Run     { return model.Run{PromptTokens: p, Ubatch: 512, GenTokens: n} }

// moeWorkloads are the workload presets with routed experts.
func moeWorkloads(t testing.TB) []*model.Workload {
	var out []*model.Workload
	for _, wn := range presets.WorkloadNames() {
		w := mustWorkload(t, wn)
		if e := w.Model.MoE; e.Experts > 0 && e.TopK > 0 && w.Model.Layers > e.DenseLayers {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		t.Fatal("no MoE workload preset")
	}
	return out
}

// weightBytesPerToken is what one generated token must read from DRAM at
// least, derived here from the architecture and not from model.Ops: every
// weight that is not a routed expert's, top_k routed experts, the shared
// experts and the output head, at their bits per weight.
func weightBytesPerToken(w *model.Workload) float64 {
	m := &w.Model
	b := m.BitsPerWeight
	h := float64(m.Hidden)
	bytes := func(params, bpw float64) float64 { return params * bpw / 8 }
	total := bytes(h*float64(m.Vocab), b.Output)
	for l := 0; l < m.Layers; l++ {
		switch m.LayerKind(l) {
		case 'F', 'S':
			a := m.Attention
			q := float64(a.Heads * a.HeadDim)
			if a.QGate {
				q *= 2
			}
			kv := 2 * float64(a.KVHeads*a.HeadDim)
			total += bytes(h*(q+kv)+float64(a.Heads*a.HeadDim)*h, b.Attention)
		case 'L':
			la := m.Linear
			total += bytes(h*float64(la.InProjOut)+float64(la.OutProjIn)*h, b.Attention)
		}
		e := m.MoE
		if l < e.DenseLayers {
			total += bytes(3*h*float64(e.DenseFFN), b.Dense)
			continue
		}
		f := float64(e.ExpertFFN)
		total += bytes(h*float64(e.Experts), b.Router)
		total += float64(e.TopK) * (bytes(2*h*f, b.ExpertsUp) + bytes(f*h, b.ExpertsDown))
		total += bytes(3*h*float64(e.SharedExperts*e.SharedFFN), b.Shared)
	}
	return total
}

// TestDecodeWithinDRAMLimit: for every preset SoC and MoE workload, the
// predicted tg128 is within the DRAM limit, sustained bandwidth / bytes
// read per token, and within the tighter one of the bandwidth the plan's
// engines can pull.
func TestDecodeWithinDRAMLimit(t *testing.T) {
	plans := []struct {
		name string
		plan model.Plan
	}{
		{"native", native(50)},
		{"native t=1", model.NewNative("big", 1, 50)},
		{"expert0.3", expertSplit(0.3, 50)},
		{"pool4+4", pool(4, 4, 50)},
		{"pool1+2", pool(1, 2, 50)},
	}
	for _, sn := range twoClusterSoCs() {
		s := mustSoC(t, sn)
		for _, w0 := range moeWorkloads(t) {
			w := withRun(w0, tg(128, 0))
			perToken := weightBytesPerToken(w)
			for _, p := range plans {
				t.Run(fmt.Sprintf("%s/%s/%s", sn, w.Name, p.name), func(t *testing.T) {
					r := mustRun(t, s, w, p.plan)
					sustained := s.DRAM.SustainedGBs * 1e9 / perToken
					engines := 0.0
					for i, name := range p.plan.Engines {
						e, _, err := s.Engine(name)
						if err != nil {
							t.Fatal(err)
						}
						if e.UsesSharedDRAM() && (i == 0 || p.plan.Mode == model.PoolPlan || p.plan.Fracs[i] > 0) {
							engines += e.BandwidthGBs(p.plan.Threads[i]) * 1e9
						}
					}
					reach := math.Min(s.DRAM.SustainedGBs*1e9, engines) / perToken
					t.Logf("tg128 %.3f t/s; DRAM limit %.3f t/s (sustained), %.3f t/s (the plan's engines), %.3f GB a token",
						r.TPS, sustained, reach, perToken/1e9)
					if !(r.TPS > 0) || r.TPS > sustained || r.TPS > reach {
						t.Errorf("tg128 %.4f t/s exceeds the DRAM limit %.4f t/s (sustained) or %.4f (engines)", r.TPS, sustained, reach)
					}
					if got := r.BytesDemanded / 128; got < perToken*(1-1e-9) {
						t.Errorf("%.4g bytes a token, below the weights alone %.4g", got, perToken)
					}
				})
			}
		}
	}
}

// TestDecodeScalesWithBandwidth: the LPDDR5 variant of the RK3588 decodes
// faster than the LPDDR4x board in proportion to the bandwidth a plan can
// reach, min(sustained, the sum of its engines' own limits), where decode
// is DRAM-bound: within [0.7, 1.3] of that ratio for every native plan,
// and never above 1.3 times it for the best expert split (whose
// non-expert ops stream from the main engine alone, so it gains less).
// The preset keeps the clusters' port limits: the big cluster reaches
// 20.2 GB/s on both boards, so a native decode on it gains nothing; the
// little's port is 9.5 GB/s there against 10.5, so a native decode on it
// loses as much; an expert split streams from both and gains.
func TestDecodeScalesWithBandwidth(t *testing.T) {
	lp4, lp5 := mustSoC(t, "rk3588"), mustSoC(t, "rk3588-lp5")
	reach := func(s *model.SoC, p model.Plan) float64 {
		sum := 0.0
		for i, name := range p.Engines {
			e, _, _ := s.Engine(name)
			if i == 0 || p.Fracs[i] > 0 {
				sum += e.BandwidthGBs(p.Threads[i])
			}
		}
		return math.Min(s.DRAM.SustainedGBs, sum)
	}
	type plan struct {
		name  string
		plan  func(s *model.SoC, w *model.Workload) model.Plan
		split bool
	}
	var plans []plan
	for _, eng := range []string{"big", "little"} {
		for th := 1; th <= 4; th++ {
			plans = append(plans, plan{name: fmt.Sprintf("native %s t=%d", eng, th),
				plan: func(*model.SoC, *model.Workload) model.Plan { return model.NewNative(eng, th, 50) }})
		}
	}
	plans = append(plans, plan{name: "best expert split", split: true, plan: func(s *model.SoC, w *model.Workload) model.Plan {
		p, _, err := Best(s, w, expertSplit(0, 100))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}})
	checked := 0
	for _, w0 := range moeWorkloads(t) {
		w := withRun(w0, tg(128, 0))
		for _, p := range plans {
			t.Run(w.Name+"/"+p.name, func(t *testing.T) {
				p4, p5 := p.plan(lp4, w), p.plan(lp5, w)
				r4, r5 := mustRun(t, lp4, w, p4), mustRun(t, lp5, w, p5)
				bw := reach(lp5, p5) / reach(lp4, p4)
				got := r5.TPS / r4.TPS
				t.Logf("rk3588 %.3f t/s (%s, DRAM-bound %.0f%%), rk3588-lp5 %.3f t/s (%s): x%.3f for x%.3f reachable bandwidth",
					r4.TPS, p4, 100*r4.Bound.DRAM, r5.TPS, p5, got, bw)
				if bw >= 1 && got < 1-1e-9 {
					t.Errorf("LPDDR5 decodes slower: x%.4f", got)
				}
				if got > 1.3*bw {
					t.Errorf("speed-up x%.3f, above 1.3 x the bandwidth ratio %.3f", got, bw)
				}
				if p.split || r4.Bound.DRAM < 0.5 {
					return // not DRAM-bound throughout: no proportion to expect
				}
				checked++
				if got < 0.7*bw {
					t.Errorf("speed-up x%.3f, below 0.7 x the bandwidth ratio %.3f", got, bw)
				}
			})
		}
	}
	if checked == 0 {
		t.Error("no DRAM-bound case checked")
	}
}

// TestDecodeShortcutMatchesEveryToken: decode's two-sample integration
// (see decode) agrees with simulating every generated token within 0.5%,
// over every preset pair, plan and a pure tg, a pp+tg and a deep tg run.
func TestDecodeShortcutMatchesEveryToken(t *testing.T) {
	// tg200 from depth 0 crosses gpt-oss's 128-token window: a regime
	// change inside the range, bisected.
	runs := []model.Run{tg(32, 0), pg(512, 64), tg(48, 4096), tg(24, 100), tg(200, 0)}
	polls := []int{0, 50}
	socs := twoClusterSoCs()
	if testing.Short() {
		runs, polls, socs = runs[:2], polls[1:], []string{seedSoC}
	}
	worst := 0.0
	for _, sn := range socs {
		s := mustSoC(t, sn)
		for _, w0 := range moeWorkloads(t) {
			for _, run := range runs {
				w := withRun(w0, run)
				for _, poll := range polls {
					for _, p := range []model.Plan{native(poll), model.NewNative("big", 1, poll), expertSplit(0.12, poll), expertSplit(0.5, poll),
						pool(4, 4, poll), busy(pool(4, 4, poll), 1, 0)} {
						name := fmt.Sprintf("%s/%s/pp%d+tg%d@d%d/%s", sn, w.Name, run.PromptTokens, run.GenTokens, run.Depth, p)
						short := mustRun(t, s, w, p)
						every, err := RunWith(s, w, p, Options{everyToken: true})
						if err != nil {
							t.Fatal(err)
						}
						for _, f := range []struct {
							what      string
							got, want float64
						}{
							{"wall", short.WallS, every.WallS}, {"gen", short.GenS, every.GenS},
							{"bytes", short.BytesMoved, every.BytesMoved}, {"handoff", short.Bound.Handoff, every.Bound.Handoff},
						} {
							d := relDiff(f.got, f.want)
							worst = math.Max(worst, d)
							if d > 0.005 {
								t.Errorf("%s: %s %.6g, every token %.6g (%.2f%% off)", name, f.what, f.got, f.want, 100*d)
							}
						}
						if short.PromptS != every.PromptS || short.Split.Ops != every.Split.Ops {
							t.Errorf("%s: prompt %g vs %g s, split ops %d vs %d", name, short.PromptS, every.PromptS, short.Split.Ops, every.Split.Ops)
						}
					}
				}
			}
		}
	}
	t.Logf("largest difference %.3g%%", 100*worst)
}

// TestDecodeSamples: a tg128 prediction simulates two token graphs with one
// pool, three with two (the first token is one of a kind); a few more
// (about 2 log2 N for each) where a regime changes inside the range: an
// op's walk crossing from memory- to compute-bound, or a second pool's
// wake turning from spin to futex, as attention grows with the depth, or
// gpt-oss's sliding window filling up at depth 127.
func TestDecodeSamples(t *testing.T) {
	bisected := 0
	for _, sn := range twoClusterSoCs() {
		s := mustSoC(t, sn)
		for _, w0 := range moeWorkloads(t) {
			for _, n := range []int{1, 2, 3, 128, 4096} {
				w := withRun(w0, tg(n, 512))
				for _, tc := range []struct {
					plan model.Plan
					want int
				}{{native(50), min(n, 2)}, {expertSplit(0.3, 50), min(n, 3)}, {pool(4, 4, 50), min(n, 2)}} {
					r := mustRun(t, s, w, tc.plan)
					changes := 1 // an op crossing between memory- and compute-bound
					if n > 128 {
						changes = 2 // and the wake's kind, in 4096 tokens
					}
					max := min(tc.want+changes*2*bits.Len(uint(n)), max(n, tc.want))
					if r.tokenGraphs < tc.want || r.tokenGraphs > max {
						t.Errorf("%s/%s/tg%d/%s: %d token graphs simulated, want %d..%d", sn, w.Name, n, tc.plan, r.tokenGraphs, tc.want, max)
					}
					if r.tokenGraphs > tc.want {
						bisected++
					}
				}
			}
		}
	}
	t.Logf("%d runs bisected", bisected)
	w := withRun(mustWorkload(t, "gpt-oss-20b"), tg(4096, 0))
	r := mustRun(t, mustSoC(t, seedSoC), w, native(50))
	if max := 2 + 2*12; r.tokenGraphs <= 2 || r.tokenGraphs > max {
		t.Errorf("tg4096 across the window: %d token graphs simulated, want 3..%d", r.tokenGraphs, max)
	}
	t.Logf("tg4096 of gpt-oss-20b from depth 0: %d token graphs", r.tokenGraphs)
}

// TestDecodeDeeperIsSlower: a token attends over its KV cache, so time per
// generated token grows with the depth, for every preset pair.
func TestDecodeDeeperIsSlower(t *testing.T) {
	depths := []int{0, 512, 4096, 32768}
	for _, sn := range twoClusterSoCs() {
		s := mustSoC(t, sn)
		for _, w0 := range moeWorkloads(t) {
			for _, p := range []model.Plan{native(50), expertSplit(0.3, 50)} {
				t.Run(fmt.Sprintf("%s/%s/%s", sn, w0.Name, p), func(t *testing.T) {
					prev := 0.0
					for _, d := range depths {
						r := mustRun(t, s, withRun(w0, tg(16, d)), p)
						if per := r.GenS / 16; per <= prev {
							t.Errorf("depth %d: %.6g s a token, not above %.6g at the depth before", d, per, prev)
						} else {
							prev = per
						}
					}
				})
			}
		}
	}
}

// TestDecodePhases: a pp+tg run is its pp run, bit for bit, then the
// generated tokens; TPS is llama-bench's figure for each test.
func TestDecodePhases(t *testing.T) {
	s := mustSoC(t, seedSoC)
	w := mustWorkload(t, seedWorkload)
	pp := mustRun(t, s, w, native(50))
	both := mustRun(t, s, withRun(w, pg(512, 128)), native(50))
	gen := mustRun(t, s, withRun(w, tg(128, 512)), native(50))
	tests := []struct {
		name      string
		got, want float64
	}{
		{"pp: prompt time is the wall time", pp.PromptS, pp.WallS},
		{"pp: no generation", pp.GenS + pp.GenTPS, 0},
		{"pp: TPS is the prompt's", pp.TPS, pp.PromptTPS},
		{"pg: the prompt is the pp run's", both.PromptS, pp.WallS},
		{"pg: prompt t/s", both.PromptTPS, pp.TPS},
		{"pg: wall is prompt + generation", both.WallS, both.PromptS + both.GenS},
		{"pg: TPS is (p+n)/(prompt+gen)", both.TPS, 640 / (both.PromptS + both.GenS)},
		{"pg: gen t/s", both.GenTPS, 128 / both.GenS},
		{"tg: no prompt", gen.PromptS + gen.PromptTPS, 0},
		{"tg: TPS is the generation's", gen.TPS, gen.GenTPS},
	}
	for _, tc := range tests {
		if !(math.Abs(tc.got-tc.want) <= 1e-12*math.Abs(tc.want)) {
			t.Errorf("%s: got %.17g, want %.17g", tc.name, tc.got, tc.want)
		}
	}
	// The tokens after a prompt of 512 decode as a tg at depth 512, but
	// for the first, which wakes from the prompt's tail.
	if d := relDiff(both.GenS, gen.GenS); d > 0.01 {
		t.Errorf("tokens after the prompt take %g s, a tg at depth 512 %g s", both.GenS, gen.GenS)
	}
	t.Logf("pp512 %.2f t/s, tg128 after it %.3f t/s, pp512+tg128 %.3f t/s", both.PromptTPS, both.GenTPS, both.TPS)
}

// TestDecodeOverheads: each generated token's graph pays its launch (a
// graph split's gap and the pool's wake) and a barrier after each op but
// the last, none with one thread; they count as handoff.
func TestDecodeOverheads(t *testing.T) {
	s := mustSoC(t, seedSoC)
	w := withRun(mustWorkload(t, seedWorkload), tg(64, 0))
	h := s.Handoff
	ops := len(w.TokenOps(0))
	launch := (h.GraphSplitGapUS + h.WakeUS(h.GraphSplitGapUS, 50)) * 1e-6
	for _, tc := range []struct {
		name string
		plan model.Plan
		want float64 // per token
	}{
		{"4 threads", native(50), launch + float64(ops-1)*h.SpinWakeUS*1e-6},
		// One thread has no worker to wake: the graph's gap alone.
		{"1 thread", model.NewNative("big", 1, 50), h.GraphSplitGapUS * 1e-6},
		// A split op ends at the pools' join instead.
		{"expert split", expertSplit(0.3, 50), launch + float64(ops-1-3*w.Model.Layers)*h.SpinWakeUS*1e-6},
		// A pool meets at a barrier after every op, whatever engines its
		// threads are on; one thread on each engine is a pool of two.
		{"pool", pool(4, 4, 50), launch + float64(ops-1)*h.SpinWakeUS*1e-6},
		{"pool of two", pool(1, 1, 50), launch + float64(ops-1)*h.SpinWakeUS*1e-6},
		// Five threads on four cores: each barrier also waits a time slice
		// for the thread that is not running.
		{"pool oversubscribed", model.NewPool([]string{"big"}, []int{5}, 50), launch + float64(ops-1)*h.SpinWakeUS*1e-6 + float64(ops)*h.TimesliceS()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRun(t, s, w, tc.plan)
			if got := r.TokenOverheadS / 64; relDiff(got, tc.want) > 1e-9 {
				t.Errorf("overhead %.6g s a token, want %.6g", got, tc.want)
			}
			if r.TokenOverheadS > r.Bound.Handoff*r.WallS*(1+1e-9) {
				t.Errorf("overhead %g s outside the handoff share %g s", r.TokenOverheadS, r.Bound.Handoff*r.WallS)
			}
		})
	}
	// Free handoff makes a token cheaper by exactly its overheads.
	free := noHandoff(t, s)
	r := mustRun(t, free, w, native(50))
	if r.TokenOverheadS != 0 || r.Bound.Handoff != 0 {
		t.Errorf("overheads %g s, handoff share %g with every handoff cost zero", r.TokenOverheadS, r.Bound.Handoff)
	}
}

// TestOneTokenSplitRefused: a token split cannot divide the one token of a
// decode graph or of a ubatch of 1; the error says so in one line. Expert
// split and native run the same tests.
func TestOneTokenSplitRefused(t *testing.T) {
	s := mustSoC(t, seedSoC)
	w := mustWorkload(t, seedWorkload)
	for _, tc := range []struct {
		name string
		run  model.Run
		want string
	}{
		{"tg", tg(128, 0), "tg128"},
		{"pp+tg", pg(512, 32), "tg32"},
		{"pp at ubatch 1", model.Run{PromptTokens: 16, Ubatch: 1}, "pp16 at ubatch 1"},
		{"pp of one token", model.Run{PromptTokens: 1, Ubatch: 512}, "pp1 at ubatch 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wl := withRun(w, tc.run)
			_, err := Run(s, wl, tokenSplit(0.12, 50))
			if !errors.Is(err, ErrOneTokenSplit) {
				t.Fatalf("token split: %v, want ErrOneTokenSplit", err)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, tc.want) || !strings.Contains(msg, "use an expert split or native") {
				t.Errorf("error %q: want one line naming %q and the way out", msg, tc.want)
			}
			for _, p := range []model.Plan{native(50), expertSplit(0.12, 50)} {
				if r, err := Run(s, wl, p); err != nil || !(r.TPS > 0) {
					t.Errorf("%s: %v", p, err)
				}
			}
			if _, err := Sweep(wl, []Config{{s, tokenSplit(0.12, 50)}}); !errors.Is(err, ErrOneTokenSplit) {
				t.Errorf("Sweep: %v", err)
			}
		})
	}
	// A split that leaves one token per engine is still a split of one
	// token; a prompt of two tokens at ubatch 2 is not.
	if _, err := Run(s, withRun(w, model.Run{PromptTokens: 2, Ubatch: 2}), tokenSplit(0.5, 50)); err != nil {
		t.Errorf("pp2 at ubatch 2: %v", err)
	}
}

// TestDecodeDeterministic: a tg prediction is the same bit for bit, run
// twice, through Sweep, and with or without its timeline, which holds the
// first generated token's graph.
func TestDecodeDeterministic(t *testing.T) {
	s := mustSoC(t, seedSoC)
	w := withRun(mustWorkload(t, seedWorkload), tg(128, 1024))
	for _, p := range []model.Plan{native(0), native(50), expertSplit(0.12, 0), expertSplit(0.3, 100), pool(4, 4, 50), busy(pool(2, 4, 0), 0, 1)} {
		a, err := RunWith(s, w, p, Options{Timeline: true})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := RunWith(s, w, p, Options{Timeline: true})
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs differ", p)
		}
		if len(a.Timeline) == 0 || a.Timeline[0].Op != "graph_launch" {
			t.Errorf("%s: timeline does not start with the first token's launch", p)
		}
		end := 0.0
		for _, sp := range a.Timeline {
			end = math.Max(end, sp.EndS)
		}
		if relDiff(end, a.WallS/128) > 0.05 {
			t.Errorf("%s: timeline ends at %g s, a token takes %g s", p, end, a.WallS/128)
		}
		c := mustRun(t, s, w, p)
		a.Timeline, a.DRAM = nil, nil
		if !reflect.DeepEqual(a, c) {
			t.Errorf("%s: the timeline changes the numbers: %.17g vs %.17g t/s", p, a.TPS, c.TPS)
		}
		sw, err := Sweep(w, []Config{{s, p}})
		if err != nil || !reflect.DeepEqual(sw[0], c) {
			t.Errorf("%s: Sweep differs from Run (%v)", p, err)
		}
	}
}

// TestGemvEfficiency: gemv_efficiency slows the one-token walks of token
// generation, and leaves a prompt whose dense matmuls walk their weights
// for full token tiles nearly as it was (only its last layer's one-token
// FFN and the output head are gemvs).
func TestGemvEfficiency(t *testing.T) {
	// Experts tiled by 16 tokens, as the generic path does (the preset's
	// repacked path walks an expert for each routed token: a gemv in a
	// prompt too).
	s := mustSoC(t, seedSoC)
	mustSet(t, s, "engines.big.expert_token_tile", 16)
	slow := s.Clone()
	mustSet(t, slow, "engines.big.gemv_efficiency", 0.25)
	w := mustWorkload(t, seedWorkload)
	g := withRun(w, tg(16, 0))
	a, b := mustRun(t, s, g, native(50)), mustRun(t, slow, g, native(50))
	if !(b.GenTPS < 0.97*a.GenTPS) {
		t.Errorf("tg16: %.3f t/s at gemv_efficiency 0.25, %.3f at 1: want slower", b.GenTPS, a.GenTPS)
	}
	pa, pb := mustRun(t, s, w, native(50)), mustRun(t, slow, w, native(50))
	if !(pb.TPS < pa.TPS) || pb.TPS < 0.97*pa.TPS {
		t.Errorf("pp512: %.3f t/s at gemv_efficiency 0.25, %.3f at 1: want within 3%% below", pb.TPS, pa.TPS)
	}
}

// TestGemvOverlap: gemv_overlap speeds a generated token's graph, whose
// walks are partly DRAM-bound, and leaves a prompt exactly as it was (its
// graphs are longer than one token, the last-token tail included); pp1,
// a prompt ubatch of one token, is such a graph too.
func TestGemvOverlap(t *testing.T) {
	s := mustSoC(t, seedSoC)
	none := s.Clone()
	mustSet(t, none, "engines.big.gemv_overlap", 0)
	w := mustWorkload(t, seedWorkload)
	g := withRun(w, tg(16, 0))
	a, b := mustRun(t, none, g, native(50)), mustRun(t, s, g, native(50))
	if !(b.GenTPS > 1.05*a.GenTPS) {
		t.Errorf("tg16: %.3f t/s at gemv_overlap %g, %.3f without: want faster", b.GenTPS, s.Engines[0].GemvOverlap, a.GenTPS)
	}
	if pa, pb := mustRun(t, none, w, native(50)), mustRun(t, s, w, native(50)); pa.TPS != pb.TPS {
		t.Errorf("pp512: %.6f t/s with gemv_overlap, %.6f without: want the same", pb.TPS, pa.TPS)
	}
	one := withRun(w, model.Run{PromptTokens: 1, Ubatch: 1})
	if pa, pb := mustRun(t, none, one, native(50)), mustRun(t, s, one, native(50)); !(pb.TPS > pa.TPS) {
		t.Errorf("pp1: %.3f t/s with gemv_overlap, %.3f without: want faster", pb.TPS, pa.TPS)
	}
	t.Logf("tg16 %.2f -> %.2f t/s with gemv_overlap %g", a.GenTPS, b.GenTPS, s.Engines[0].GemvOverlap)
}

// TestFasterDRAMFasterDecode: on LPDDR5 (rk3588-lp5: 1.515x the bus, the
// clusters' caps with it) native decode, mostly DRAM-bound, speeds up
// nearly in proportion; prefill, mostly compute-bound, far less.
func TestFasterDRAMFasterDecode(t *testing.T) {
	w := mustWorkload(t, seedWorkload)
	g := withRun(w, tg(32, 0))
	lp4, lp5 := mustSoC(t, seedSoC), mustSoC(t, "rk3588-lp5")
	bus := lp5.DRAM.PeakGBs / lp4.DRAM.PeakGBs
	tg4, tg5 := mustRun(t, lp4, g, native(50)), mustRun(t, lp5, g, native(50))
	pp4, pp5 := mustRun(t, lp4, w, native(50)), mustRun(t, lp5, w, native(50))
	tgUp, ppUp := tg5.GenTPS/tg4.GenTPS, pp5.TPS/pp4.TPS
	t.Logf("bus %.3fx: tg32 %.2f -> %.2f t/s (%.3fx), pp512 %.2f -> %.2f (%.3fx)", bus, tg4.GenTPS, tg5.GenTPS, tgUp, pp4.TPS, pp5.TPS, ppUp)
	if tgUp < 1+0.6*(bus-1) || tgUp > bus {
		t.Errorf("decode %.3fx on a %.3fx bus: want most of it", tgUp, bus)
	}
	if !(ppUp < 1+0.5*(tgUp-1)) {
		t.Errorf("prefill %.3fx, decode %.3fx: prefill should gain far less", ppUp, tgUp)
	}
}

// TestCacheKeepsWeightsBetweenGraphs: an engine with a shared cache read
// rate keeps what its cache holds of the weights between graphs. A model
// far larger than the cache (the seed's on rk3588's 3 MiB) runs as
// without it; a smaller model decodes faster the more of its one-token
// graph the cache holds.
func TestCacheKeepsWeightsBetweenGraphs(t *testing.T) {
	s := mustSoC(t, seedSoC)
	keep := s.Clone()
	mustSet(t, keep, "engines.big.llc_bandwidth_gb_s", 60)
	w := mustWorkload(t, seedWorkload)
	g := withRun(w, tg(16, 0))
	a, b := mustRun(t, s, g, native(50)), mustRun(t, keep, g, native(50))
	if math.Abs(b.GenTPS/a.GenTPS-1) > 0.001 {
		t.Errorf("seed tg16: %.4f t/s with the cache kept, %.4f without: want the same", b.GenTPS, a.GenTPS)
	}
	small := mustWorkload(t, "synthetic-moe")
	gs := withRun(small, tg(16, 0))
	prev := mustRun(t, s, gs, native(50)).GenTPS
	for _, cacheKiB := range []float64{16 << 10, 64 << 10, 1 << 20} {
		c := keep.Clone()
		mustSet(t, c, "engines.big.shared_cache_kib", cacheKiB)
		got := mustRun(t, c, gs, native(50)).GenTPS
		if !(got > prev) {
			t.Errorf("synthetic-moe tg16 with a %g KiB cache: %.2f t/s, want above %.2f", cacheKiB, got, prev)
		}
		prev = got
	}
}
