package probe

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name                          string
		in                            []float64
		median, mean, mad, q1, q3, cv float64
	}{
		{name: "one", in: []float64{4}, median: 4, mean: 4, q1: 4, q3: 4},
		{name: "odd", in: []float64{5, 1, 3, 2, 4}, median: 3, mean: 3, mad: 1, q1: 2, q3: 4,
			cv: math.Sqrt(2.5) / 3},
		{name: "even", in: []float64{1, 2, 3, 4}, median: 2.5, mean: 2.5, mad: 1, q1: 1.75, q3: 3.25,
			cv: math.Sqrt(5.0/3) / 2.5},
		{name: "constant", in: []float64{7, 7, 7}, median: 7, mean: 7, q1: 7, q3: 7},
		{name: "outlier", in: []float64{10, 10, 11, 10, 1000}, median: 10, mean: 208.2, mad: 0, q1: 10, q3: 11,
			cv: math.Sqrt(783684.8/4) / 208.2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := Summarize("x", tc.in)
			if st.N != len(tc.in) || st.Unit != "x" {
				t.Errorf("N, Unit = %d, %q", st.N, st.Unit)
			}
			for _, c := range []struct {
				what      string
				got, want float64
			}{
				{"median", st.Median, tc.median}, {"mean", st.Mean, tc.mean}, {"MAD", st.MAD, tc.mad},
				{"Q1", st.Q1, tc.q1}, {"Q3", st.Q3, tc.q3}, {"IQR", st.IQR, tc.q3 - tc.q1},
			} {
				if !near(c.got, c.want) {
					t.Errorf("%s = %g, want %g", c.what, c.got, c.want)
				}
			}
			if math.Abs(st.CV-tc.cv) > 1e-6 {
				t.Errorf("CV = %g, want %g", st.CV, tc.cv)
			}
		})
	}
}

func TestSummarizeEmptyAndCopies(t *testing.T) {
	if st := Summarize("µs", nil); st.N != 0 || st.Median != 0 || st.Unit != "µs" {
		t.Errorf("empty: %+v", st)
	}
	in := []float64{3, 1, 2}
	st := Summarize("µs", in)
	in[0] = 99
	if st.Samples[0] != 3 {
		t.Error("Summarize kept the caller's slice")
	}
}

func TestRepeatStops(t *testing.T) {
	steady := func() (float64, error) { return 1, nil }
	alternating := func() func() (float64, error) {
		i := 0
		return func() (float64, error) { i++; return float64(1 + i%2), nil }
	}
	for _, tc := range []struct {
		name      string
		s         Settings
		sample    func() (float64, error)
		wantN     int
		converged bool
	}{
		{"converges at MinRuns", Settings{MinRuns: 4}, steady, 4, true},
		{"noisy runs to MaxRuns", Settings{MinRuns: 2, MaxRuns: 9, Budget: time.Hour}, alternating(), 9, false},
		{"noisy stops on budget", Settings{MinRuns: 3, MaxRuns: 1 << 20, Budget: time.Nanosecond}, alternating(), 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := tc.s.resolve()
			if err != nil {
				t.Fatal(err)
			}
			st, err := repeat(cfg, "u", tc.sample)
			if err != nil {
				t.Fatal(err)
			}
			if st.N != tc.wantN || st.Converged != tc.converged {
				t.Errorf("N, Converged = %d, %v; want %d, %v", st.N, st.Converged, tc.wantN, tc.converged)
			}
		})
	}
}

func TestRepeatErrors(t *testing.T) {
	cfg, _ := (*Settings)(nil).resolve()
	boom := errors.New("boom")
	if _, err := repeat(cfg, "u", func() (float64, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Errorf("err = %v, want boom", err)
	}
	i := 0
	_, err := repeat(cfg, "u", func() (float64, error) {
		i++
		if i > 2 {
			return math.Inf(1), nil
		}
		return 1, nil
	})
	if err == nil || !strings.Contains(err.Error(), "+Inf") {
		t.Errorf("err = %v, want one about +Inf", err)
	}
}

func TestSettingsResolve(t *testing.T) {
	def, err := (*Settings)(nil).resolve()
	if err != nil {
		t.Fatal(err)
	}
	zero, _ := (&Settings{}).resolve()
	if def != zero {
		t.Errorf("nil and zero Settings differ: %+v vs %+v", def, zero)
	}
	if def.minRuns != 5 || def.maxRuns != 200 || def.targetCV != 0.03 || def.budget != 2*time.Second {
		t.Errorf("defaults = %+v", def)
	}
	for _, tc := range []struct {
		name string
		s    Settings
		want string
	}{
		{"negative MinRuns", Settings{MinRuns: -1}, "MinRuns"},
		{"negative MaxRuns", Settings{MaxRuns: -1}, "MaxRuns"},
		{"CV of one", Settings{TargetCV: 1}, "TargetCV"},
		{"negative budget", Settings{Budget: -time.Second}, "Budget"},
		{"negative batch", Settings{Batch: -2}, "Batch"},
		{"negative max working set", Settings{MaxWorkingSetBytes: -1}, "MaxWorkingSetBytes"},
		{"min over max", Settings{MinRuns: 10, MaxRuns: 3}, "exceeds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.s.resolve()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one naming %s", err, tc.want)
			}
		})
	}
}

func TestFormatCPUs(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{
		{nil, ""}, {[]int{0}, "0"}, {[]int{0, 1}, "0-1"}, {[]int{0, 1, 2, 3, 6}, "0-3,6"}, {[]int{1, 3, 5}, "1,3,5"},
	} {
		if got := formatCPUs(tc.in); got != tc.want {
			t.Errorf("formatCPUs(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
	err := &CPUError{CPU: 9999, Allowed: []int{0, 1}}
	if !strings.Contains(err.Error(), "9999") || !strings.Contains(err.Error(), "0-1") {
		t.Errorf("CPUError = %q", err)
	}
}
