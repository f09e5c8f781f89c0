package predict

import (
	"errors"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// TestRunShape: per mode the requested split, the best and the dispatcher
// alone, in that order; Best is the best of the bests; the balance point
// and the why breakdown come from those same plans.
func TestRunShape(t *testing.T) {
	s, w := load(t, "rk3588")
	p, err := Run(Request{SoC: s, Workload: w, Fracs: []float64{0.88, 0.12}, Poll: 50, Draws: 4})
	if err != nil {
		t.Fatal(err)
	}
	if p.Schema != Schema || !p.TwoEngine() || len(p.Plans) != 6 {
		t.Fatalf("schema %q, two-engine %v, %d plans", p.Schema, p.TwoEngine(), len(p.Plans))
	}
	kinds := []Kind{Requested, Best, DispatcherOnly}
	for i, pp := range p.Plans {
		if pp.Kind != kinds[i%3] || pp.Plan.Mode != p.Modes()[i/3] {
			t.Errorf("plan %d is %s %s", i, pp.Plan.Mode, pp.Kind)
		}
		if pp.Kind == Best && pp.TPS > p.Best.TPS {
			t.Errorf("%s best %.3f t/s beats Best %.3f", pp.Plan.Mode, pp.TPS, p.Best.TPS)
		}
	}
	if r, _ := p.Plan(model.TokenSplit, Requested); r.Frac() != 0.12 {
		t.Errorf("requested token share %g", r.Frac())
	}
	only, _ := p.Plan(p.Best.Plan.Mode, DispatcherOnly)
	if p.Why.DispatcherOnlyGainPct != only.GainPct || p.Why.WorkGainPct != p.Best.GainPct-only.GainPct {
		t.Errorf("why %+v, dispatcher only %+v", p.Why, only)
	}
	if b, ok := p.Balance(model.TokenSplit); !ok || !(b > 0.1 && b < 0.2) {
		t.Errorf("token balance %g %v, want about 0.14", b, ok)
	}
	if _, ok := p.Balance(model.Native); ok {
		t.Error("a balance point for native")
	}
}

// TestRunFieldErrors: a request that does not hold names its field.
func TestRunFieldErrors(t *testing.T) {
	s, w := load(t, "rk3588")
	npu, wn := load(t, "rk3588-npu")
	for _, tc := range []struct {
		name  string
		req   Request
		field string
		index int
	}{
		{"one engine", Request{SoC: s, Workload: w, Engines: []string{"big"}}, "engines", -1},
		{"unknown engine", Request{SoC: s, Workload: w, Engines: []string{"big", "gpu"}}, "engines", 1},
		{"accelerator first", Request{SoC: npu, Workload: wn, Engines: []string{"npu", "big"}}, "engines", 0},
		{"too many threads", Request{SoC: s, Workload: w, Threads: []int{4, 5}}, "threads", 1},
		{"threads count", Request{SoC: s, Workload: w, Threads: []int{4}}, "threads", -1},
		{"shares sum", Request{SoC: s, Workload: w, Fracs: []float64{0.5, 0.6}}, "fracs", -1},
		{"share range", Request{SoC: s, Workload: w, Fracs: []float64{1.5, -0.5}}, "fracs", 0},
		{"npu by experts", Request{SoC: npu, Workload: wn, Engines: []string{"big", "npu"}, Modes: []model.Mode{model.ExpertSplit}}, "modes", -1},
		{"poll", Request{SoC: s, Workload: w, Poll: 101}, "poll", -1},
		{"draws", Request{SoC: s, Workload: w, Draws: MaxDraws + 1}, "draws", -1},
		{"sweep over an npu", Request{SoC: npu, Workload: wn, Engines: []string{"big", "npu"}, Sweep: true}, "sweep", -1},
		{"sensitivity without one", Request{SoC: s, Workload: w, Sensitivity: true}, "sensitivity", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(tc.req)
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || fe.Index != tc.index {
				t.Errorf("error %v (%+v), want field %s index %d", err, fe, tc.field, tc.index)
			}
		})
	}
	if _, err := Run(Request{}); err == nil {
		t.Error("a request with no SoC ran")
	}
}

// TestProgress: Progress counts every step of Run, in order, up to Steps.
func TestProgress(t *testing.T) {
	s, w := load(t, "rk3588")
	w.Run.PromptTokens, w.Run.Ubatch = 64, 64
	for _, q := range []Request{
		{SoC: s, Workload: w, Fracs: []float64{0.9, 0.1}, Draws: 2, Sweep: true},
		{SoC: s, Workload: w, Modes: []model.Mode{model.ExpertSplit}, Draws: 2},
	} {
		var got []int
		q.Progress = func(done, total int, _ string, _ *measure.Measurement) {
			if total != q.Steps() {
				t.Errorf("total %d, Steps %d", total, q.Steps())
			}
			got = append(got, done)
		}
		if _, err := Run(q); err != nil {
			t.Fatal(err)
		}
		if len(got) != q.Steps() || got[len(got)-1] != q.Steps() {
			t.Errorf("progress %v, want 1..%d", got, q.Steps())
		}
		for i, d := range got {
			if d != i+1 {
				t.Errorf("progress %v is not 1, 2, ...", got)
				break
			}
		}
	}
}

// TestRequestTest: Test overrides the workload's run without touching the
// workload, and a test of no tokens is refused.
func TestRequestTest(t *testing.T) {
	s, w := load(t, "rk3588")
	p, err := Run(Request{SoC: s, Workload: w, Test: &model.Run{PromptTokens: 64, Ubatch: 32}, Draws: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Prompt != 64 || p.Ubatch != 32 || w.Run.PromptTokens != 512 {
		t.Errorf("pp%d ub%d, workload left at pp%d", p.Prompt, p.Ubatch, w.Run.PromptTokens)
	}
	var fe *FieldError
	if _, err := Run(Request{SoC: s, Workload: w, Test: &model.Run{PromptTokens: 0, Ubatch: 32}}); !errors.As(err, &fe) || fe.Field != "test" {
		t.Errorf("pp0: %v", err)
	}
}

// TestTokenGeneration: a tg test predicts expert splits only (one token
// cannot be divided), names itself as llama-bench does, and its t/s is the
// generated tokens'; asking for a token split is a field error.
func TestTokenGeneration(t *testing.T) {
	s, w := load(t, "rk3588")
	p, err := Run(Request{SoC: s, Workload: w, Test: &model.Run{GenTokens: 32, Ubatch: 512}, Fracs: []float64{0.9, 0.1}, Poll: 50, Draws: 2})
	if err != nil {
		t.Fatal(err)
	}
	if p.Test != "tg32" || p.Gen != 32 || len(p.Modes()) != 1 || p.Modes()[0] != model.ExpertSplit {
		t.Errorf("test %q gen %d modes %v", p.Test, p.Gen, p.Modes())
	}
	if p.Native.TPS != p.Native.GenTPS || p.Native.PromptTPS != 0 || !(p.Native.TPS > 1 && p.Native.TPS < 20) {
		t.Errorf("native %+v", p.Native)
	}
	pg, err := Run(Request{SoC: s, Workload: w, Test: &model.Run{PromptTokens: 512, Ubatch: 512, GenTokens: 32, Depth: 1024}, Poll: 50, Draws: 2})
	if err != nil {
		t.Fatal(err)
	}
	if pg.Test != "pp512+tg32 @ d1024" || !(pg.Native.PromptTPS > pg.Native.TPS && pg.Native.TPS > pg.Native.GenTPS) {
		t.Errorf("pg %q native %+v", pg.Test, pg.Native)
	}
	var fe *FieldError
	_, err = Run(Request{SoC: s, Workload: w, Test: &model.Run{GenTokens: 32, Ubatch: 512}, Modes: []model.Mode{model.TokenSplit}})
	if !errors.As(err, &fe) || fe.Field != "modes" {
		t.Errorf("token split of tg32: %v", err)
	}
}

// TestIntervalMethod: by default (Draws 0) the intervals are first-order,
// two runs per uncertain parameter, and the ddr5 token split costs at
// most a third of the 344 simulations it took before sim.Evaluator
// (issue 29); Draws N makes them Monte Carlo over N draws, and the
// prediction says which.
func TestIntervalMethod(t *testing.T) {
	s, w := load(t, "ddr5")
	q := Request{SoC: s, Workload: w, Modes: []model.Mode{model.TokenSplit}, Fracs: []float64{0.88, 0.12}, Poll: 50}
	n0 := sim.Simulations()
	fo, err := Run(q)
	if err != nil {
		t.Fatal(err)
	}
	if n := sim.Simulations() - n0; n > 344/3 {
		t.Errorf("ddr5 token split: %d simulations, want at most %d", n, 344/3)
	}
	q.Draws = 8
	mc, err := Run(q)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p      *Prediction
		method sim.IntervalMethod
		n      int
	}{{fo, sim.FirstOrder, 2 * len(s.Uncertainty)}, {mc, sim.MonteCarlo, 8}} {
		if tc.p.Method != tc.method || tc.p.Draws != tc.n {
			t.Errorf("prediction: %s, %d; want %s, %d", tc.p.Method, tc.p.Draws, tc.method, tc.n)
		}
		for _, pp := range tc.p.Plans {
			if iv := pp.Interval; iv.Method != tc.method || iv.Draws != tc.n {
				t.Errorf("%s %s interval: %s, %d; want %s, %d", pp.Plan.Mode, pp.Kind, iv.Method, iv.Draws, tc.method, tc.n)
			}
		}
	}
	if fo.Best.Interval == mc.Best.Interval {
		t.Errorf("first-order and Monte Carlo intervals are the same: %+v", fo.Best.Interval)
	}
}
