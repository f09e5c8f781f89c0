package fit

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

func TestThroughputsStat(t *testing.T) {
	base, _ := presets.SoC("rk3588")
	one := synth(t, base, rand.New(rand.NewPCG(3, 3)), 0.01)[3]
	run := func(id string, median float64, samples ...float64) measure.Measurement {
		m := one
		m.ID, m.Median, m.Samples = id, median, samples
		return m
	}
	tests := []struct {
		name string
		runs []measure.Measurement
		stat Stat
		want float64
	}{
		{"median of one run", []measure.Measurement{run("a", 20, 10, 20, 30)}, Median, 20},
		{"best of one run", []measure.Measurement{run("a", 20, 10, 20, 30)}, Best, 30},
		{"median of medians", []measure.Measurement{run("a", 20, 10, 20, 30), run("b", 14, 12, 14, 16), run("c", 25, 25)}, Median, 20},
		{"best sample of any run", []measure.Measurement{run("a", 20, 10, 20, 30), run("b", 14, 12, 14, 16), run("c", 25, 25)}, Best, 30},
		{"best without samples", []measure.Measurement{run("a", 20), run("b", 24)}, Best, 24},
		{"bad samples ignored", []measure.Measurement{run("a", 20, math.Inf(1), math.NaN(), -5, 21)}, Best, 21},
		{"empty stat is median", []measure.Measurement{run("a", 20, 10, 20, 30)}, "", 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := throughputs(tc.runs, tc.stat)
			if len(obs) != 1 {
				t.Fatalf("%d configurations, want 1", len(obs))
			}
			if obs[0].Median != tc.want {
				t.Errorf("value %g, want %g", obs[0].Median, tc.want)
			}
		})
	}
}

func TestParseStat(t *testing.T) {
	for in, want := range map[string]Stat{"": Median, "median": Median, "best": Best} {
		if got, err := ParseStat(in); err != nil || got != want {
			t.Errorf("ParseStat(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseStat("mean"); err == nil || !strings.Contains(err.Error(), `"mean"`) {
		t.Errorf("ParseStat(mean): %v", err)
	}
	base, _ := presets.SoC("rk3588")
	ms := synth(t, base, rand.New(rand.NewPCG(3, 4)), 0.01)
	if _, err := Fit(base, ms, Options{Stat: "mean"}); err == nil {
		t.Error("Fit with stat mean: no error")
	}
	if _, err := Predictions(base, ms, Options{Stat: "mean"}); err == nil {
		t.Error("Predictions with stat mean: no error")
	}
}

// disturb slows each sample by 25-40% with probability p, the way another
// tenant of a shared host does: never faster, often much slower, in runs.
func disturb(ms []measure.Measurement, rng *rand.Rand, p float64) []measure.Measurement {
	out := make([]measure.Measurement, len(ms))
	for i, m := range ms {
		m.Samples = append([]float64(nil), m.Samples...)
		for k := range m.Samples {
			if rng.Float64() < p {
				m.Samples[k] *= 0.6 + 0.15*rng.Float64()
			}
		}
		m.Summarize()
		out[i] = m
	}
	return out
}

// On a host whose other tenants slow about half the samples, the median
// lands anywhere between the quiet and the slowed machine and the held-out
// error follows it; the best sample is the quiet machine's.
func TestBestSurvivesOneSidedNoise(t *testing.T) {
	base, _ := presets.SoC("rk3588")
	truth := base.Clone()
	_ = truth.Set("engines.little.kernel_ops_per_cycle.q4", 6)
	_ = truth.Set("handoff.futex_wake_us", 150)
	clean := synth(t, truth, rand.New(rand.NewPCG(5, 6)), 0.01)
	rng := rand.New(rand.NewPCG(7, 8))
	var ms []measure.Measurement
	for round := 0; round < 4; round++ {
		ms = append(ms, disturb(clean, rng, 0.5)...)
	}
	mape := map[Stat]float64{}
	for _, stat := range []Stat{Median, Best} {
		v, _, err := Holdout(base, ms, []string{"f=0.3", "f=0.45"}, Options{Free: recoverFree, Stat: stat})
		if err != nil {
			t.Fatal(err)
		}
		if v.N != 4 {
			t.Fatalf("%s: %d held out, want 4", stat, v.N)
		}
		mape[stat] = v.MAPE
	}
	if mape[Best] > 3 || mape[Best] > mape[Median]/2 {
		t.Errorf("held-out MAPE: best %.2f%%, median %.2f%%; want best under 3%% and half the median's", mape[Best], mape[Median])
	}
}

func TestHeldOut(t *testing.T) {
	m := &measure.Measurement{ID: "bench-1f2e/round=3", Plan: &model.Plan{Mode: "token", Engines: []string{"big", "little"}, Fracs: []float64{0.85, 0.15}, Poll: 50},
		Knobs: map[string]string{"ORK_BL_LITTLE_FRAC": "0.15", "ORK_BL_POLL": "50"}}
	tests := []struct {
		patterns []string
		want     bool
	}{
		{[]string{"f=0.15"}, true},
		{[]string{"f=0.1"}, false}, // a whole word, not a prefix of f=0.15
		{[]string{"f=0.35", "f=0.15"}, true},
		{[]string{"token f=0.15"}, true},
		{[]string{"expert f=0.15"}, false},
		{[]string{"poll=5"}, false},
		{[]string{"poll=50"}, true},
		{[]string{"ORK_BL_LITTLE_FRAC=0.15"}, true},
		{[]string{"ORK_BL_LITTLE_FRAC=0.1"}, false},
		{[]string{"round=3"}, true}, // part of the ID
		{[]string{""}, false},
		{nil, false},
	}
	for _, tc := range tests {
		if got := HeldOut(m, tc.patterns); got != tc.want {
			t.Errorf("HeldOut(%q) = %v, want %v (label %q)", tc.patterns, got, tc.want, m.Label())
		}
	}
}
