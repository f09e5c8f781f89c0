package predict

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// TestSpanCheck: a fitted profile that recorded its span says nothing of
// a run inside it and leaves the prior-led rates out of native's
// interval there; outside it, one line names what lies outside, and the
// interval of the same run carries those rates' width, so it is wider.
func TestSpanCheck(t *testing.T) {
	s, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	w, err := presets.Workload("synthetic-moe")
	if err != nil {
		t.Fatal(err)
	}
	s = s.Clone()
	led := "engines.big.scalar_ops_per_cycle"
	v, err := s.Get(led)
	if err != nil {
		t.Fatal(err)
	}
	s.Uncertainty = map[string]float64{led: 0.5 * v, "engines.big.bandwidth_max_gb_s": 0.1}
	run := model.Run{PromptTokens: 64, Ubatch: 64}
	wl := *w
	wl.Run = run
	// check predicts the run on s fitted over a span of spanRuns.
	check := func(spanRuns ...model.Run) *SpanCheck {
		t.Helper()
		span := model.SpanOf(spanRuns)
		s.Provenance = &model.Provenance{Source: "fit", Span: &span, PriorLed: []string{led}}
		p, err := Run(Request{SoC: s, Workload: &wl, Poll: 50, Draws: 16})
		if err != nil {
			t.Fatal(err)
		}
		if p.Span == nil {
			t.Fatal("no span check for a fit that recorded its span")
		}
		return p.Span
	}
	in := check(run, model.Run{PromptTokens: 64, Ubatch: 32})
	out := check(model.Run{PromptTokens: 512, Ubatch: 64}, model.Run{GenTokens: 32, Ubatch: 512})
	if in.Line() != "" || len(in.Outside) != 0 {
		t.Errorf("inside the span: %q", in.Line())
	}
	line := out.Line()
	for _, want := range []string{"outside the fitted span (pp 512 at depth 0, ubatch 64; tg 32)", "prompt 64 outside the fitted 512", led} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	if !(in.LoTPS > 0 && in.LoTPS <= in.HiTPS && out.LoTPS > 0 && out.LoTPS <= out.HiTPS) {
		t.Fatalf("intervals [%g, %g] and [%g, %g]", in.LoTPS, in.HiTPS, out.LoTPS, out.HiTPS)
	}
	// The same run: outside the span the prior-led rate's width widens
	// native's interval beyond the fitted parameters' alone.
	if out.HiTPS-out.LoTPS <= in.HiTPS-in.LoTPS {
		t.Errorf("outside the span the interval [%.4g, %.4g] is no wider than inside [%.4g, %.4g]", out.LoTPS, out.HiTPS, in.LoTPS, in.HiTPS)
	}
	// A profile without a span gets no check.
	s.Provenance = nil
	p, err := Run(Request{SoC: s, Workload: w, Poll: 50, Draws: 2})
	if err != nil || p.Span != nil {
		t.Errorf("no span recorded: %v %+v", err, p.Span)
	}
}
