package predict

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/sim"
)

// TestThreads: on rk3588 for qwen3.5-35b-a3b, stock llama.cpp's best
// pool is the 4 big cores for prefill and decode, and every core (-t 8)
// loses both, since every weight type of the model is repacked (fixed
// slices the little cores gate); each row's pool is what it says.
func TestThreads(t *testing.T) {
	s, w := load(t, "rk3588")
	th, err := Threads(ThreadsRequest{SoC: s, Workload: w, Gen: 16, Poll: 50})
	if err != nil {
		t.Fatal(err)
	}
	if th.Schema != ThreadsSchema || th.TG != "tg16" || len(th.Rows) != 4+4+4+8+2 {
		t.Fatalf("schema %q tg %q, %d rows", th.Schema, th.TG, len(th.Rows))
	}
	if b := th.BestPP; b.Mask != "big" || b.Threads != 4 {
		t.Errorf("best prefill %s -t %d, want big -t 4", b.Mask, b.Threads)
	}
	if b := th.BestTG; b.Mask != "big" || b.Threads != 4 {
		t.Errorf("best decode %s -t %d, want big -t 4", b.Mask, b.Threads)
	}
	if th.PPOverFirst != nil || th.TGOverFirst != nil {
		t.Errorf("the best pools are the first cluster's, yet judged over it: %+v, %+v", th.PPOverFirst, th.TGOverFirst)
	}
	if j := th.PPAllCores; j.Verdict != sim.Loss || !(j.GainPct < -5) || j.Interval.Draws == 0 {
		t.Errorf("every core for prefill: %+v, want a LOSS", j)
	}
	if j := th.TGAllCores; j.Verdict != sim.Loss || !(j.GainPct < -1) || j.Interval.Draws == 0 {
		t.Errorf("every core for decode: %+v, want a LOSS", j)
	}
	if a := th.AllCores; a.Threads != 8 || !(a.PPTPS < th.BestPP.PPTPS) {
		t.Errorf("every core: -t %d at %.2f t/s, best %.2f", a.Threads, a.PPTPS, th.BestPP.PPTPS)
	}
	for _, r := range th.Rows[:12] {
		if r.Threads != r.Plan.PoolThreads() || !(r.PPTPS > 0 && r.TGTPS > 0) {
			t.Errorf("row %+v", r)
		}
	}
	var fe *FieldError
	if _, err := Threads(ThreadsRequest{SoC: s, Workload: w, Poll: 101}); !errors.As(err, &fe) || fe.Field != "poll" {
		t.Errorf("poll 101: %v", err)
	}
}

// TestThreadsOneCluster: a SoC of one CPU cluster (the pi5 what-if) sweeps
// it alone. The issue-15 check: Qwen3-30B-A3B at Q3_K_S on a Pi 5 measured
// pp512 10.91 t/s at -t 4 (geerlingguy/ai-benchmarks#47); with Q3_K's own
// (generic, not repacked) kernel rate blsim comes within 25% of it, and
// without the types, at the q4 class's repacked rate, it is far above.
func TestThreadsOneCluster(t *testing.T) {
	s, err := presets.LoadSoC("pi5")
	if err != nil {
		t.Fatal(err)
	}
	w, err := presets.LoadWorkload("qwen3-30b-a3b-q3ks")
	if err != nil {
		t.Fatal(err)
	}
	th, err := Threads(ThreadsRequest{SoC: s, Workload: w, Gen: 16, Poll: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(th.Rows) != 4+4 || th.AllCores.Threads != 4 || th.BestPP.Threads != 4 {
		t.Fatalf("%d rows, every core -t %d, best prefill -t %d; want 8, 4, 4", len(th.Rows), th.AllCores.Threads, th.BestPP.Threads)
	}
	const measured = 10.91
	if got := th.BestPP.PPTPS; got < 0.75*measured || got > 1.25*measured {
		t.Errorf("pp512 at -t 4: %.2f t/s, want within 25%% of %.2f", got, measured)
	}
	untyped := *w
	untyped.Model.Types = nil
	u, err := Threads(ThreadsRequest{SoC: s, Workload: &untyped, Gen: 16, Poll: 50})
	if err != nil {
		t.Fatal(err)
	}
	if !(u.BestPP.PPTPS > 2*th.BestPP.PPTPS) {
		t.Errorf("without types %.2f t/s, with them %.2f: the q3_k rate should matter", u.BestPP.PPTPS, th.BestPP.PPTPS)
	}
	t.Logf("pi5 qwen3-30b-a3b-q3ks pp512 -t 4: %.2f t/s (measured %.2f), without types %.2f", th.BestPP.PPTPS, measured, u.BestPP.PPTPS)
}

// TestThreadsCPUMask: with the clusters' CPU ids the recommendation is a
// hex --cpu-mask; ids that do not match the cores give a note instead.
func TestThreadsCPUMask(t *testing.T) {
	s, w := load(t, "rk3588")
	th, err := Threads(ThreadsRequest{SoC: s, Workload: w, Gen: 8, Poll: 50})
	if err != nil {
		t.Fatal(err)
	}
	if th.BestPP.CPUMask != "0xf0" || th.AllCores.CPUMask != "0xff" || len(th.Notes) != 0 {
		t.Errorf("best pp mask %q, every core %q, notes %q", th.BestPP.CPUMask, th.AllCores.CPUMask, th.Notes)
	}
	s.Engines[1].Cores = 8
	th, err = Threads(ThreadsRequest{SoC: s, Workload: w, Gen: 8, Poll: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(th.Notes) != 1 || th.AllCores.CPUMask != "" || th.Rows[3].Mask != "big" || th.Rows[3].CPUMask != "0xf0" {
		t.Errorf("notes %q, every core %q, big -t 4 %+v", th.Notes, th.AllCores.CPUMask, th.Rows[3])
	}
}

// TestThreadsWinAcrossClusters: where a pool over both clusters is faster
// by a WIN (phi-3-mini's dynamically chunked prefill), it is the one to
// run.
func TestThreadsWinAcrossClusters(t *testing.T) {
	s, _ := load(t, "rk3588")
	w, err := presets.LoadWorkload("phi-3-mini")
	if err != nil {
		t.Fatal(err)
	}
	th, err := Threads(ThreadsRequest{SoC: s, Workload: w, Gen: 8, Poll: 50, Draws: 16})
	if err != nil {
		t.Fatal(err)
	}
	if b := th.BestPP; b.Mask != "big+little" || b.Threads != 8 {
		t.Errorf("best prefill %s -t %d, want big+little -t 8", b.Mask, b.Threads)
	}
	if o := th.PPOverFirst; o == nil || o.Row.Mask != "big" || o.Row.Threads != 4 || o.Verdict != sim.Win || !o.Sure() ||
		math.Abs(o.GainPct-sim.GainPct(th.BestPP.PPTPS, o.Row.PPTPS)) > 1e-9 {
		t.Errorf("prefill over the big cluster's best: %+v, want a sure WIN over big -t 4", o)
	}
}

// TestThreadsAdviceUnsure: the advice is the best point estimate, and says
// whether its gain over the first cluster's best is sure. On cix-p1 for
// llama-3.2-3b, prefill on big+mid (-t 8) is about three quarters faster
// than on big (-t 4), but the derived parts' rates leave an interval that
// includes 0: the pick is -t 8, judged PARITY over -t 4 by the one verdict
// rule, so not sure.
func TestThreadsAdviceUnsure(t *testing.T) {
	s, err := presets.SoC("cix-p1")
	if err != nil {
		t.Fatal(err)
	}
	w, err := presets.LoadWorkload("llama-3.2-3b")
	if err != nil {
		t.Fatal(err)
	}
	th, err := Threads(ThreadsRequest{SoC: s, Workload: w, Gen: 16})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range th.Rows {
		if !r.Unpinned && !strings.HasPrefix(r.Mask, "split") && r.PPTPS > th.BestPP.PPTPS {
			t.Errorf("%s -t %d gives %.2f t/s, above the pick's %.2f: the pick is not the best point estimate", r.Mask, r.Threads, r.PPTPS, th.BestPP.PPTPS)
		}
	}
	o := th.PPOverFirst
	if b := th.BestPP; b.Mask != "big+mid" || b.Threads != 8 || o == nil || o.Row.Mask != "big" || o.Row.Threads != 4 {
		t.Fatalf("prefill pick %s -t %d over %+v: want big+mid -t 8 over big -t 4", b.Mask, b.Threads, o)
	}
	if !(o.GainPct > 1) || !(o.Interval.LoPct < 0) || o.Verdict != sim.Parity || o.Sure() || o.Verdict != sim.JudgePlan(th.BestPP.Plan, o.GainPct, o.Interval) {
		t.Errorf("prefill -t 8 over -t 4: %+v, want a gain whose interval includes 0, PARITY by sim.JudgePlan, not sure", o.Judgement)
	}
}

// TestThreadsBusyCores: a sweep with busy cores gives every pool its
// engines' busy counts, and a pool that needs a busy core is slower than
// on idle cores, one that fits beside them is not; the split rows are
// left out with a note; a busy count of an engine the sweep does not
// cover, or above its cores, is a one-line error.
func TestThreadsBusyCores(t *testing.T) {
	s, w := load(t, "rk3588")
	idle, err := Threads(ThreadsRequest{SoC: s, Workload: w, Gen: 16, Poll: 50})
	if err != nil {
		t.Fatal(err)
	}
	busy, err := Threads(ThreadsRequest{SoC: s, Workload: w, Gen: 16, Poll: 50, Busy: map[string]int{"little": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(busy.Rows) != len(idle.Rows)-2 || len(busy.Notes) != len(idle.Notes)+1 ||
		!strings.Contains(busy.Notes[len(busy.Notes)-1], "split dispatcher's rows are left out") {
		t.Fatalf("%d rows (idle %d), notes %q", len(busy.Rows), len(idle.Rows), busy.Notes)
	}
	for i, r := range busy.Rows {
		free := idle.Rows[i]
		fits := true
		for j, name := range r.Plan.Engines {
			e, _, _ := s.Engine(name)
			want := map[string]int{"little": 2}[name]
			if r.Plan.Busy(j) != want {
				t.Errorf("%s -t %d: %s busy %d, want %d", r.Mask, r.Threads, name, r.Plan.Busy(j), want)
			}
			fits = fits && r.Plan.Threads[j]+want <= e.Cores
		}
		switch {
		case fits && (r.PPTPS != free.PPTPS || r.TGTPS != free.TGTPS):
			t.Errorf("%s -t %d fits beside the busy cores but changed: %.4g/%.4g against %.4g/%.4g", r.Mask, r.Threads, r.PPTPS, r.TGTPS, free.PPTPS, free.TGTPS)
		case !fits && !(r.PPTPS < free.PPTPS && r.TGTPS < free.TGTPS):
			t.Errorf("%s -t %d shares busy cores but is not slower: %.4g/%.4g against %.4g/%.4g", r.Mask, r.Threads, r.PPTPS, r.TGTPS, free.PPTPS, free.TGTPS)
		}
	}
	if got := busy.BusyText(); got != " with 2 little cores busy" || idle.BusyText() != "" {
		t.Errorf("busy text %q, idle %q", got, idle.BusyText())
	}
	if b := busy.BestPP; b.Mask != "big" || b.Threads != 4 {
		t.Errorf("best prefill with two little cores busy: %s -t %d", b.Mask, b.Threads)
	}
	for _, tc := range []struct {
		busy map[string]int
		want string
	}{
		{map[string]int{"npu": 1}, "npu: not one of the swept clusters (big, little)"},
		{map[string]int{"big": 5}, "big=5: big has 4 cores"},
	} {
		var fe *FieldError
		_, err := Threads(ThreadsRequest{SoC: s, Workload: w, Gen: 16, Poll: 50, Busy: tc.busy})
		if !errors.As(err, &fe) || fe.Field != "busy" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("busy %v: %v, want %q", tc.busy, err, tc.want)
		}
	}
	if _, err := Run(Request{SoC: s, Workload: w, Busy: map[string]int{"big": 1}}); err == nil || !strings.Contains(err.Error(), "thread sweep's pools") {
		t.Errorf("Run with busy cores: %v", err)
	}
}

// TestParseBusy: engine=cores pairs, each engine once.
func TestParseBusy(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want map[string]int
		err  string
	}{
		{"", nil, ""},
		{"big=1", map[string]int{"big": 1}, ""},
		{" big=1 , little=0 ", map[string]int{"big": 1, "little": 0}, ""},
		{"big", nil, `"big": want engine=cores`},
		{"big=-1", nil, "want engine=cores"},
		{"=1", nil, "want engine=cores"},
		{"big=1,big=2", nil, "engine big given twice"},
	} {
		got, err := ParseBusy(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %v %v, want %v", tc.in, got, err, tc.want)
		}
	}
}
