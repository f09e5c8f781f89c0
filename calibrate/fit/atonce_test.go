package fit

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// TestAtOnceHoldsSustainedDRAM: sustained DRAM's prior from the streams at
// once is a quarter of its value wide, and the measurement's own σ
// (StreamTogetherSpread at least) once the dispatcher's engines kept at
// least AtOnceUnshared of their speed at once; an at-once record below it, or one that failed, leaves
// it wide, and no other parameter's prior changes.
func TestAtOnceHoldsSustainedDRAM(t *testing.T) {
	stream := measure.Measurement{ID: "s", Kind: measure.StreamContended, Param: "dram.sustained_gb_s", Median: 57, CV: 0.01, Status: "ok"}
	bw := measure.Measurement{ID: "b", Kind: measure.Stream, Param: "engines.big.bandwidth_max_gb_s", Median: 28, CV: 0.01, Status: "ok"}
	atOnce := func(keep float64, status string) measure.Measurement {
		return measure.Measurement{ID: "a", Kind: measure.AtOnce, Median: keep, Status: status}
	}
	disturbed := func(m measure.Measurement) measure.Measurement {
		m.Interference = &measure.Interference{Disturbed: true}
		return m
	}
	for _, c := range []struct {
		name  string
		extra []measure.Measurement
		rel   float64
	}{
		{"no at-once record", nil, 0.25},
		{"engines kept 0.97", []measure.Measurement{atOnce(0.97, "ok")}, StreamTogetherSpread},
		{"kept 0.9", []measure.Measurement{atOnce(0.9, "ok")}, StreamTogetherSpread},
		{"kept 0.7: they share", []measure.Measurement{atOnce(0.7, "ok")}, 0.25},
		{"failed", []measure.Measurement{atOnce(0.97, "failed")}, 0.25},
		{"kept 0.97, but disturbed", []measure.Measurement{disturbed(atOnce(0.97, "ok"))}, 0.25},
		{"median of three", []measure.Measurement{atOnce(0.6, "ok"), atOnce(0.95, "ok"), atOnce(0.99, "ok")}, StreamTogetherSpread},
	} {
		ms := append([]measure.Measurement{stream, bw}, c.extra...)
		v, sigma, ok := microPrior(ms, "dram.sustained_gb_s")
		if !ok || v != 57 || math.Abs(sigma-c.rel*57) > 1e-9 {
			t.Errorf("%s: prior %g ± %g (%v), want 57 ± %g", c.name, v, sigma, ok, c.rel*57)
		}
		if _, s, _ := microPrior(ms, "engines.big.bandwidth_max_gb_s"); s != 0.25*28 {
			t.Errorf("%s: the cap's prior σ %g, want %g", c.name, s, 0.25*28)
		}
	}
	if _, ok := AtOnceKeep([]measure.Measurement{stream}); ok {
		t.Error("AtOnceKeep without a record: ok")
	}
}

// TestCapNoteSaysAtOnce: the note on a sustained DRAM no run reaches says
// what the at-once step measured, and that DRAM is not what the engines
// share only when they kept their speed.
func TestCapNoteSaysAtOnce(t *testing.T) {
	s := &model.SoC{DRAM: model.DRAM{SustainedGBs: 55}, Engines: []model.Engine{{Name: "big", Kind: "cpu", BandwidthMaxGBs: 21}, {Name: "little", Kind: "cpu", BandwidthMaxGBs: 21}}}
	params := []ParamFit{{Path: "dram.sustained_gb_s", Value: 55, Prior: 55}}
	for _, c := range []struct {
		keep      float64
		want, not string
	}{
		{0, "never limits a run here", "at once"},
		{0.91, "kept 0.91 of their speed or more running at once, so DRAM is not what they share", ""},
		{0.7, "kept 0.70 of their speed or more running at once", "not what they share"},
	} {
		var ms []measure.Measurement
		if c.keep > 0 {
			ms = []measure.Measurement{{ID: "a", Kind: measure.AtOnce, Median: c.keep, Status: "ok"}}
		}
		notes := capNotes(s, params, ms)
		if len(notes) != 1 || !strings.Contains(notes[0], c.want) || c.not != "" && strings.Contains(notes[0], c.not) {
			t.Errorf("keep %g: %q", c.keep, notes)
		}
	}
}

// TestStreamTogetherSigma: where the engines keep their speed at once, a
// stream at once whose samples spread more than StreamTogetherSpread takes
// their CV as its σ; without the at-once step, three times it.
func TestStreamTogetherSigma(t *testing.T) {
	stream := measure.Measurement{ID: "s", Kind: measure.StreamContended, Param: "dram.sustained_gb_s", Median: 50, CV: 0.135, Status: "ok"}
	atOnce := measure.Measurement{ID: "a", Kind: measure.AtOnce, Median: 0.95, Status: "ok"}
	if _, sigma, _ := microPrior([]measure.Measurement{stream, atOnce}, "dram.sustained_gb_s"); math.Abs(sigma-0.135*50) > 1e-9 {
		t.Errorf("σ %g, want %g", sigma, 0.135*50)
	}
	if _, sigma, _ := microPrior([]measure.Measurement{stream}, "dram.sustained_gb_s"); math.Abs(sigma-3*0.135*50) > 1e-9 {
		t.Errorf("no at-once step: σ %g, want %g", sigma, 3*0.135*50)
	}
}

// TestMeasuredDirectly: sustained DRAM is measured (not prior-led) only
// where the fit kept its microbenchmark's value, the engines kept their
// speed at once and their caps sum to no more than it; the precise line
// and the cap note say so, and Precise judges its σ.
func TestMeasuredDirectly(t *testing.T) {
	s := &model.SoC{DRAM: model.DRAM{SustainedGBs: 55}, Engines: []model.Engine{{Name: "big", Kind: "cpu", BandwidthMaxGBs: 21}, {Name: "little", Kind: "cpu", BandwidthMaxGBs: 21}}}
	keep := func(k float64) []measure.Measurement {
		return []measure.Measurement{{ID: "a", Kind: measure.AtOnce, Median: k, Status: "ok"}}
	}
	p := ParamFit{Path: "dram.sustained_gb_s", Prior: 55, PriorSigma: 3.3, PriorFrom: PriorMicrobenchmark, Value: 55, Sigma: 3.3, Identification: PriorOnly}
	moved := p
	moved.Value = 40
	moved.Identification = Unpinned
	fromPreset := p
	fromPreset.PriorFrom = PriorProfile
	cap := p
	cap.Path = "engines.big.bandwidth_max_gb_s"
	small := *s
	small.Engines = []model.Engine{{Name: "big", Kind: "cpu", BandwidthMaxGBs: 30}, {Name: "little", Kind: "cpu", BandwidthMaxGBs: 30}}
	for _, c := range []struct {
		name string
		s    *model.SoC
		p    ParamFit
		ms   []measure.Measurement
		want bool
	}{
		{"kept 0.95", s, p, keep(0.95), true},
		{"no at-once record", s, p, nil, false},
		{"kept 0.7: they share", s, p, keep(0.7), false},
		{"moved by the fit", s, moved, keep(0.95), false},
		{"the prior's, not measured", s, fromPreset, keep(0.95), false},
		{"another parameter", s, cap, keep(0.95), false},
		{"the caps sum above it: runs reach it", &small, p, keep(0.95), false},
	} {
		if got := MeasuredDirectly(c.s, c.p, c.ms); got != c.want {
			t.Errorf("%s: MeasuredDirectly = %v, want %v", c.name, got, c.want)
		}
	}
	m := p
	m.Identification = Measured
	if !m.Precise() {
		t.Error("measured at σ 6%: not precise")
	}
	wide := m
	wide.Sigma = 22
	if wide.Precise() {
		t.Error("measured at σ 40%: precise")
	}
	r := &Result{Params: []ParamFit{m, wide}}
	r.Params[1].Path = "x.bandwidth_gb_s"
	if line := r.preciseLine(); !strings.Contains(line, "within 10% (σ ≤ 0.1 for a share): 1 of 2: dram.sustained_gb_s (measured directly, σ 6%: no run reaches it)") ||
		!strings.Contains(line, "x.bandwidth_gb_s (σ 40% of its value, measured)") {
		t.Errorf("precise line %q", line)
	}
	notes := capNotes(s, []ParamFit{m}, keep(0.95))
	if len(notes) != 1 || !strings.Contains(notes[0], "it is measured: every CPU of the engines streaming at once read 55 GB/s (σ 3.3, 6%), and the runs bound it from below only (at least 42 GB/s)") {
		t.Errorf("cap note %q", notes)
	}
}
