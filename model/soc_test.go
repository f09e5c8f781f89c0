package model_test

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

func TestEngineRates(t *testing.T) {
	s := presetSoCsOne(t, "rk3588")
	big, i, err := s.Engine("big")
	if err != nil || i != 0 {
		t.Fatalf("Engine(big) = %d, %v", i, err)
	}
	if _, _, err := s.Engine("npu"); err == nil || !strings.Contains(err.Error(), `no engine "npu" (have big, little)`) {
		t.Errorf("Engine(npu): %v", err)
	}
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"one thread", big.ThreadRate(1), 1},
		{"no threads", big.ThreadRate(0), 0},
		{"four threads", big.ThreadRate(4), 4 / (1 + 0.03*3)},
		{"q4 GOPS 1 thread", big.MatmulGOPS("q4", 1), 28 * 2.3},
		{"q4 GOPS 4 threads", big.MatmulGOPS("q4", 4), 28 * 2.3 * 4 / 1.09},
		{"unknown class", big.MatmulGOPS("q3", 4), 0},
		{"scalar GOPS", big.ScalarGOPS(2), 2 * 2.3 * 2 / 1.03},
		{"cache alone", big.CacheBytesPerThread(1), 0.5 * 1024 * (512 + 3072)},
		{"cache shared by 4", big.CacheBytesPerThread(4), 0.5 * 1024 * (512 + 768)},
		{"cache shared by 0", big.CacheBytesPerThread(0), big.CacheBytesPerThread(1)},
	} {
		if math.Abs(tc.got-tc.want) > 1e-9*math.Max(1, tc.want) {
			t.Errorf("%s: %g, want %g", tc.name, tc.got, tc.want)
		}
	}
}

func TestHandoffWake(t *testing.T) {
	h := presetSoCsOne(t, "rk3588").Handoff // spin 1.5, futex 60, sleep exit 2400, 60 us per poll
	for _, tc := range []struct {
		name  string
		idle  float64
		poll  int
		want  float64
		spins float64
	}{
		{"poll 0 sleeps at once", 1, 0, 60 + 2400, 0},
		{"inside the window", 100, 50, 1.5, 3000},
		{"at the window edge", 3000, 50, 1.5, 3000},
		{"past the window", 3001, 50, 60 + 2400, 3000},
		{"idle 0 poll 0", 0, 0, 1.5, 0},
	} {
		if got := h.WakeUS(tc.idle, tc.poll); got != tc.want {
			t.Errorf("%s: WakeUS = %g, want %g", tc.name, got, tc.want)
		}
		if got := h.SpinWindowUS(tc.poll); got != tc.spins {
			t.Errorf("%s: SpinWindowUS = %g, want %g", tc.name, got, tc.spins)
		}
	}
	// Where the idle the sleep exit was measured at is known, a shorter
	// idle pays its share of it.
	h.SleepExitAfterUS = 10000
	for _, tc := range []struct {
		name string
		idle float64
		poll int
		want float64
	}{
		{"a quarter of the idle", 2500, 0, 60 + 600},
		{"just past the window", 3001, 50, 60 + 2400*0.3001},
		{"at the measured idle", 10000, 0, 60 + 2400},
		{"longer", 50000, 0, 60 + 2400},
		{"inside the window still spins", 100, 50, 1.5},
	} {
		if got := h.WakeUS(tc.idle, tc.poll); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("sleep exit after 10 ms, %s: WakeUS = %g, want %g", tc.name, got, tc.want)
		}
	}
}

// TestHandoffWakeByIdle: with shares of the sleep exit measured at shorter
// idles (SleepExitByIdle), the charge runs through them, linear between
// neighbours; a bad point is a one-line error naming it.
func TestHandoffWakeByIdle(t *testing.T) {
	s := presetSoCsOne(t, "rk3588") // futex 60, sleep exit 2400
	h := &s.Handoff
	h.SleepExitAfterUS = 10000
	h.SleepExitByIdle = []model.IdleShare{{IdleUS: 100, Share: 0}, {IdleUS: 1000, Share: 0.14}}
	for _, tc := range []struct {
		idle, share float64
	}{{50, 0}, {100, 0}, {550, 0.07}, {1000, 0.14}, {5500, 0.57}, {10000, 1}, {20000, 1}} {
		if got := h.ExitShare(tc.idle); math.Abs(got-tc.share) > 1e-12 {
			t.Errorf("after %g µs: share %g, want %g", tc.idle, got, tc.share)
		}
		if got, want := h.WakeUS(tc.idle, 0), 60+2400*tc.share; math.Abs(got-want) > 1e-9 {
			t.Errorf("after %g µs: WakeUS %g, want %g", tc.idle, got, want)
		}
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pts   []model.IdleShare
		after float64
		want  string
	}{
		{[]model.IdleShare{{IdleUS: 1000, Share: 0.1}, {IdleUS: 100, Share: 0}}, 10000, "sleep_exit_by_idle[1].idle_us"},
		{[]model.IdleShare{{IdleUS: 20000, Share: 0.1}}, 10000, "sleep_exit_by_idle[0].idle_us"},
		{[]model.IdleShare{{IdleUS: 100, Share: 1.5}}, 10000, "sleep_exit_by_idle[0].share"},
		{[]model.IdleShare{{IdleUS: 100, Share: 0.1}}, 0, "needs sleep_exit_after_us"},
	} {
		c := s.Clone()
		c.Handoff.SleepExitByIdle, c.Handoff.SleepExitAfterUS = tc.pts, tc.after
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v after %g: err %v, want one line naming %q", tc.pts, tc.after, err, tc.want)
		}
	}
	c := s.Clone()
	c.Handoff.SleepExitByIdle[0].Share = 0.5
	if h.SleepExitByIdle[0].Share != 0 {
		t.Error("Clone shares SleepExitByIdle with the original")
	}
}

// TestGraphOverlap: a graph of one token takes gemv_overlap where it is
// set, any longer graph mem_compute_overlap.
func TestGraphOverlap(t *testing.T) {
	for _, tc := range []struct {
		mem, gemv, tokens, want float64
	}{
		{0.1, 0, 1, 0.1},     // unset: the one overlap
		{0.1, 0.7, 1, 0.7},   // a generated token
		{0.1, 0.7, 2, 0.1},   // two tokens: a prefill's bursts
		{0.1, 0.7, 512, 0.1}, // a prompt ubatch, its last-token tail included
		{0.3, 0.05, 1, 0.05}, // lower than the prefill's is allowed
	} {
		e := model.Engine{MemComputeOverlap: tc.mem, GemvOverlap: tc.gemv}
		if got := e.GraphOverlap(tc.tokens); got != tc.want {
			t.Errorf("mem %g gemv %g, %g tokens: %g, want %g", tc.mem, tc.gemv, tc.tokens, got, tc.want)
		}
	}
}

// TestWalkEfficiency: a weight walk for one token reaches gemv_efficiency
// of the kernel rate, one for a full token tile all of it, and between
// them the walk's load cost is amortised over its tokens.
func TestWalkEfficiency(t *testing.T) {
	for _, tc := range []struct {
		g, tokens float64
		tile      int
		want      float64
	}{
		{0, 1, 16, 1},       // unset: the kernel rate at any tile
		{1, 1, 16, 1},       // no load cost
		{0.5, 1, 16, 0.5},   // a gemv
		{0.5, 0.3, 16, 0.5}, // under a token is still one walk
		{0.5, 16, 16, 1},    // a full tile
		{0.5, 64, 16, 1},
		{0.5, 4, 16, 1 / (1 + 1*(16.0/4-1)/15)},
		{0.25, 2, 4, 1 / (1 + 3*(4.0/2-1)/3)},
		{0.5, 1, 1, 0.5}, // a tile of one: the rate at one token is g
	} {
		e := model.Engine{GemvEfficiency: tc.g, TokenTile: tc.tile}
		if got := e.WalkEfficiency(tc.tokens); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("g %g, %g tokens, tile %d: %g, want %g", tc.g, tc.tokens, tc.tile, got, tc.want)
		}
	}
	prev := 0.0
	e := model.Engine{GemvEfficiency: 0.3, TokenTile: 16}
	for n := 1.0; n <= 20; n++ {
		got := e.WalkEfficiency(n)
		if got < prev || got > 1 {
			t.Errorf("%g tokens: %g after %g, want rising to 1", n, got, prev)
		}
		prev = got
	}
}

// TestWalkEfficiencyOf: a type with a one-token share of its own walks
// at it, every other type at the engine's gemv_efficiency; a bad key or
// share is refused naming it.
func TestWalkEfficiencyOf(t *testing.T) {
	e := model.Engine{GemvEfficiency: 0.8, TokenTile: 16, GemvEfficiencyByType: map[string]float64{"q4_0": 0.5}}
	for _, tc := range []struct {
		typ    string
		tokens float64
		want   float64
	}{
		{"q4_0", 1, 0.5},
		{"q4_0", 16, 1},
		{"q4_k", 1, 0.8},
		{"", 1, 0.8},
	} {
		if got := e.WalkEfficiencyOf(tc.typ, tc.tokens); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%q at %g tokens: %g, want %g", tc.typ, tc.tokens, got, tc.want)
		}
	}
	if e.WalkEfficiencyOf("q4_0", 4) >= e.WalkEfficiencyOf("q4_k", 4) {
		t.Error("q4_0's lower share does not slow its 4-token walk below q4_k's")
	}
	for _, tc := range []struct {
		m    map[string]float64
		want string
	}{
		{map[string]float64{"q4_0": 1.5}, "engines[0].gemv_efficiency_by_type.q4_0: 1.5 is outside"},
		{map[string]float64{"q4": 0.5}, "engines[0].gemv_efficiency_by_type.q4: unknown GGML type"},
	} {
		s, err := model.LoadSoCFile("testdata/good/soc-tiny.yaml")
		if err != nil {
			t.Fatal(err)
		}
		s.Engines[0].GemvEfficiencyByType = tc.m
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.m, err, tc.want)
		}
	}
}

// TestLLCHitShare: without a cache read rate nothing is kept; with one, a
// cache that holds a quarter of what a graph walks keeps a quarter of the
// weights every graph touches, and a quarter of that of an expert touched
// one graph in four.
func TestLLCHitShare(t *testing.T) {
	e := model.Engine{SharedCacheKiB: 1024, CacheUsableFrac: 0.5} // 512 KiB usable
	if got := e.LLCHitShare(1, 1<<20); got != 0 {
		t.Errorf("no llc_bandwidth_gb_s: %g kept, want 0", got)
	}
	e.LLCBandwidthGBs = 30
	for _, tc := range []struct{ touch, graph, want float64 }{
		{1, 2 << 20, 0.25},
		{0.25, 2 << 20, 0.0625},
		{1, 256 << 10, 1}, // the graph fits: all of it
		{1, 0, 0},
		{0, 2 << 20, 0},
	} {
		if got := e.LLCHitShare(tc.touch, tc.graph); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("touch %g, graph %g B: %g, want %g", tc.touch, tc.graph, got, tc.want)
		}
	}
}

// TestClockAt: the list by busy cores, then clock_ghz.
func TestClockAt(t *testing.T) {
	e := model.Engine{ClockGHz: 3.036, ClockGHzByBusyCores: []float64{3.228, 3.132}}
	for busy, want := range map[int]float64{0: 3.036, 1: 3.228, 2: 3.132, 3: 3.036, 8: 3.036} {
		if got := e.ClockAt(busy); got != want {
			t.Errorf("%d busy: %g GHz, want %g", busy, got, want)
		}
	}
	if got := (&model.Engine{ClockGHz: 2.4}).ClockAt(1); got != 2.4 {
		t.Errorf("no list: %g, want clock_ghz", got)
	}
}
