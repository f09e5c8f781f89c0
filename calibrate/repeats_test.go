package calibrate

import (
	"math"
	"testing"
	"time"
)

func TestHalfWidthPct(t *testing.T) {
	if !math.IsInf(HalfWidthPct([]float64{5}), 1) {
		t.Error("one sample has an interval")
	}
	// Two samples 100 and 102: mean 101, sd 1.414, t(1) 12.706.
	if got, want := HalfWidthPct([]float64{100, 102}), 100*12.706*1.4142/math.Sqrt2/101; math.Abs(got-want) > 0.01 {
		t.Errorf("HalfWidthPct = %.4f, want %.4f", got, want)
	}
	if got := HalfWidthPct([]float64{100, 100, 100}); got != 0 {
		t.Errorf("equal samples: %g", got)
	}
}

// TestRepeatsMore: another repeat while the interval is wider than the
// target, below Max, and within the budget of extra time.
func TestRepeatsMore(t *testing.T) {
	r := NewRepeats(&Settings{})
	if r.Min != 2 || r.Max != 6 || r.TargetPct != 2 {
		t.Fatalf("%+v", r)
	}
	r.base = time.Second
	noisy := []float64{100, 120}
	if !r.More(noisy) {
		t.Error("a wide interval takes no more repeats")
	}
	if r.More([]float64{100, 100.1, 100.05}) {
		t.Error("a tight interval takes more repeats")
	}
	if r.More([]float64{100, 120, 100, 120, 100, 120}) {
		t.Error("more repeats than Max")
	}
	r.extra = time.Second
	if r.More(noisy) {
		t.Error("more repeats past the budget")
	}
	if f := NewRepeats(&Settings{Repeats: 3, FixedRepeats: true, Quick: true}); f.Max != 3 || f.TargetPct != 3 {
		t.Errorf("fixed: %+v", f)
	}
}
