package fit

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// TestAtOnceHoldsSustainedDRAM: sustained DRAM's prior from the streams at
// once is a quarter of its value wide, and a tenth (a kernel rate's floor)
// once the dispatcher's engines kept at least AtOnceUnshared of their
// speed at once; an at-once record below it, or one that failed, leaves
// it wide, and no other parameter's prior changes.
func TestAtOnceHoldsSustainedDRAM(t *testing.T) {
	stream := measure.Measurement{ID: "s", Kind: measure.StreamContended, Param: "dram.sustained_gb_s", Median: 57, CV: 0.01, Status: "ok"}
	bw := measure.Measurement{ID: "b", Kind: measure.Stream, Param: "engines.big.bandwidth_max_gb_s", Median: 28, CV: 0.01, Status: "ok"}
	atOnce := func(keep float64, status string) measure.Measurement {
		return measure.Measurement{ID: "a", Kind: measure.AtOnce, Median: keep, Status: status}
	}
	for _, c := range []struct {
		name  string
		extra []measure.Measurement
		rel   float64
	}{
		{"no at-once record", nil, 0.25},
		{"engines kept 0.97", []measure.Measurement{atOnce(0.97, "ok")}, 0.1},
		{"kept 0.9", []measure.Measurement{atOnce(0.9, "ok")}, 0.1},
		{"kept 0.7: they share", []measure.Measurement{atOnce(0.7, "ok")}, 0.25},
		{"failed", []measure.Measurement{atOnce(0.97, "failed")}, 0.25},
		{"median of three", []measure.Measurement{atOnce(0.6, "ok"), atOnce(0.95, "ok"), atOnce(0.99, "ok")}, 0.1},
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
