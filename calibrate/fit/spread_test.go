package fit

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
)

func TestSpreadPct(t *testing.T) {
	k := 100 * 1.4826 * math.Sqrt(math.Pi/2)
	for _, c := range []struct {
		name    string
		samples []float64
		runs    string
		stat    Stat
		want    float64
	}{
		// Five rounds' medians about 100: deviations 0, 2, 2, 4, 10, MAD 2.
		{"five rounds", []float64{100, 98, 102, 96, 110}, "5", Median, k * 0.02 / math.Sqrt(5)},
		// Four: deviations 1, 1, 3, 5 about the median 100, MAD 2.
		{"four rounds", []float64{99, 101, 97, 105}, "4", Median, k * 0.02 / 2},
		{"two rounds", []float64{90, 110}, "2", Median, 0},
		{"one run's repeats", []float64{90, 100, 110}, "", Median, 0},
		{"best", []float64{100, 98, 102, 96, 110}, "5", Best, 0},
	} {
		m := measure.Measurement{Samples: c.samples, Knobs: map[string]string{"runs": c.runs}}
		m.Summarize()
		if got := spreadPct(&m, c.stat); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: spreadPct %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSpreadOf checks the split of a group's error between the runs'
// spread and the model: errors as large as the spread leave nothing to the
// model, larger ones the rest in quadrature.
func TestSpreadOf(t *testing.T) {
	for _, c := range []struct {
		name           string
		errs, ses      []float64
		spread, beyond float64
	}{
		{"within the spread", []float64{3, -3}, []float64{3, 3}, 3 * math.Sqrt(2/math.Pi), 0},
		{"beyond it", []float64{5, -5}, []float64{3, 3}, 3 * math.Sqrt(2/math.Pi), 4},
		{"no spread known", []float64{4}, []float64{0}, 0, 4},
	} {
		var g Group
		spreadOf(&g, c.errs, c.ses)
		if math.Abs(g.SpreadMAPE-c.spread) > 1e-9 || math.Abs(g.BeyondSpreadPct-c.beyond) > 1e-9 {
			t.Errorf("%s: spread %v beyond %v, want %v and %v", c.name, g.SpreadMAPE, g.BeyondSpreadPct, c.spread, c.beyond)
		}
	}
}

func TestSpreadRoundsAndLine(t *testing.T) {
	g := Group{N: 5, MAPE: 9, SpreadMAPE: 6, BeyondSpreadPct: 0}
	// 6% from 5 values: 5·(6/3)² = 20 values for 3%.
	if got := g.SpreadRounds(5, 3); got != 20 {
		t.Errorf("SpreadRounds(5, 3) = %d, want 20", got)
	}
	if got := g.SpreadRounds(5, 8); got != 0 {
		t.Errorf("SpreadRounds under the spread already = %d, want 0", got)
	}
	line := spreadLine(g, 5)
	for _, want := range []string{"about 6.00% MAPE", "5 values a configuration", "within that spread", "more rounds"} {
		if !strings.Contains(line, want) {
			t.Errorf("spreadLine %q lacks %q", line, want)
		}
	}
	g.BeyondSpreadPct = 7.5
	if line := spreadLine(g, 5); !strings.Contains(line, "model misses by about 7.50% RMS") || strings.Contains(line, "within") {
		t.Errorf("spreadLine beyond the spread: %q", line)
	}
	if spreadLine(Group{N: 3}, 5) != "" {
		t.Error("a group without spreads gets a line")
	}
}

// TestHoldoutPrintsSpread checks that the held-out error's text says what
// the runs' spread explains, from the same Group the JSON carries.
func TestHoldoutPrintsSpread(t *testing.T) {
	v := summarize("holdout", []Residual{
		{ID: "a", Label: "a", Measured: 100, Predicted: 104, ErrPct: 4, SpreadPct: 5, Values: 5},
		{ID: "b", Label: "b", Measured: 100, Predicted: 97, ErrPct: -3, SpreadPct: 5, Values: 5},
	})
	if v.HeldOut.SpreadMAPE <= 0 || v.HeldOut.BeyondSpreadPct != 0 || v.HeldOut.Values != 5 {
		t.Fatalf("held-out group %+v: want a spread, nothing beyond it, 5 values", v.HeldOut)
	}
	var b strings.Builder
	if err := v.WriteText(&b, Median, 2); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "holdout: the runs' own spread would give a perfect model about 3.99% MAPE here (5 values a configuration") {
		t.Errorf("text lacks the spread line:\n%s", b.String())
	}
}

// TestPoorFitWithinSpread checks that a fit missing by no more than its
// runs' own spread is refused for the machine, not the model.
func TestPoorFitWithinSpread(t *testing.T) {
	res := func(spread float64) *Result {
		return &Result{MAPE: 12, Residuals: []Residual{
			{Label: "a", ErrPct: 12, SpreadPct: spread}, {Label: "b", ErrPct: -12, SpreadPct: spread},
			{Label: "c", ErrPct: 12, SpreadPct: spread}, {Label: "d", ErrPct: -12, SpreadPct: spread},
		}}
	}
	for _, c := range []struct {
		spread float64
		within bool
		want   string
	}{
		{15, true, "the runs varied as much as the fit misses by (MAPE 12.00% > 10%; a perfect model would score about 11.97%"},
		{5, false, "the model and the measurements disagree (MAPE 12.00% > 10%)"},
		{0, false, "the model and the measurements disagree"},
	} {
		err := res(c.spread).Check()
		pe, ok := err.(*PoorFitError)
		if !ok {
			t.Fatalf("spread %v: Check = %v, want a *PoorFitError", c.spread, err)
		}
		if pe.WithinSpread() != c.within || !strings.Contains(pe.Error(), c.want) {
			t.Errorf("spread %v: within %v, %q; want within %v and %q", c.spread, pe.WithinSpread(), pe.Error(), c.within, c.want)
		}
	}
}
