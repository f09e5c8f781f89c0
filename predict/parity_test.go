package predict

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// The seed's two reported runs on rk3588 are predicted within 1% by plain
// simulation; microbenchmarks and failed runs are skipped, and none left,
// or a prediction that fails, is an error.
func TestParityPoints(t *testing.T) {
	s, w := load(t, "rk3588")
	pts, err := ParityPoints(seedMeasurements(t), simPredictor(s, w), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2 {
		t.Fatalf("%d points", len(pts))
	}
	for _, p := range pts {
		if math.Abs(p.Predicted/p.Measured-1) > 0.01 {
			t.Errorf("%s: predicted %g, measured %g: not within 1%%", p.Label, p.Predicted, p.Measured)
		}
		if p.Label == "" {
			t.Error("a point without a label")
		}
	}
	if m := MAPE(pts); !(m >= 0 && m < 1) {
		t.Errorf("MAPE %g%%", m)
	}
	// Microbenchmarks and failed runs are skipped; none left is an error.
	ms := []measure.Measurement{{ID: "k", Kind: measure.Kernel, Median: 3, Status: "ok"},
		{ID: "f", Kind: measure.Reported, Plan: &model.Plan{Mode: "native", Engines: []string{"big"}, Threads: []int{4}}, Status: "failed"}}
	called := 0
	counting := func(m *measure.Measurement) (float64, error) { called++; return 1, nil }
	if _, err := ParityPoints(ms, counting, nil); err == nil {
		t.Error("no usable measurement: no error")
	}
	if called != 0 {
		t.Errorf("the predictor was asked %d times for unusable measurements", called)
	}
	bad := measure.Measurement{ID: "b", Kind: measure.Reported, Median: 1, Status: "ok",
		Plan: &model.Plan{Mode: "token", Engines: []string{"big", "nosuch"}, Fracs: []float64{0.9, 0.1}, Threads: []int{4, 4}}}
	if _, err := ParityPoints([]measure.Measurement{bad}, simPredictor(s, w), nil); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("unknown engine: %v", err)
	}
	if !math.IsNaN(MAPE(nil)) {
		t.Errorf("MAPE of no points %g, want NaN", MAPE(nil))
	}
}

// ParityPoints marks the measurements fitted says the profile was fitted
// on as Fitted and the rest HeldOut; a nil fitted (a fit that does not
// list its runs) leaves them FitUnknown. ParityScore counts and scores
// each apart.
func TestParityPointsFitted(t *testing.T) {
	s, w := load(t, "rk3588")
	ms := seedMeasurements(t)
	var tps []measure.Measurement
	for i := range ms {
		if ms[i].IsThroughput() && ms[i].OK() {
			tps = append(tps, ms[i])
		}
	}
	if len(tps) < 2 {
		t.Fatalf("%d seed throughputs, want at least 2", len(tps))
	}
	first := tps[0].ID
	pts, err := ParityPoints(ms, simPredictor(s, w), func(m *measure.Measurement) bool { return m.ID == first })
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != len(tps) || pts[0].InFit != Fitted {
		t.Fatalf("%d points, first %v; want %d, the first fitted", len(pts), pts[0].InFit, len(tps))
	}
	for i, p := range pts[1:] {
		if p.InFit != HeldOut {
			t.Errorf("point %d: %v, want held out", i+1, p.InFit)
		}
	}
	if sc := ScoreParity(pts); sc.Fitted != 1 || sc.HeldOut != len(tps)-1 || sc.Unknown != 0 || sc.N != len(tps) {
		t.Errorf("score %+v", sc)
	}
	// Fitted on none (a preset): every point held out.
	pts, err = ParityPoints(ms, simPredictor(s, w), func(*measure.Measurement) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if sc := ScoreParity(pts); sc.HeldOut != len(tps) || sc.Fitted != 0 || !math.IsNaN(sc.FittedMAPE) {
		t.Errorf("preset: %+v, want all held out", sc)
	}
	// Not told: every point unknown.
	pts, err = ParityPoints(ms, simPredictor(s, w), nil)
	if err != nil {
		t.Fatal(err)
	}
	if sc := ScoreParity(pts); sc.Unknown != len(tps) {
		t.Errorf("not told: %+v, want all unknown", sc)
	}
}

// ParityScore says over which points its MAPE is: fitted (in-sample),
// held out, both apart, or, when not told, just points.
func TestScoreParity(t *testing.T) {
	pt := func(measured, predicted float64, in InFit) ParityPoint {
		return ParityPoint{Measured: measured, Predicted: predicted, Label: "p", InFit: in}
	}
	for _, tc := range []struct {
		name string
		pts  []ParityPoint
		want string
	}{
		{"fitted", []ParityPoint{pt(100, 101, Fitted), pt(200, 198, Fitted)},
			"MAPE 1.00% over 2 fitted points (in-sample)"},
		{"held out", []ParityPoint{pt(100, 110, HeldOut), pt(200, 190, HeldOut), pt(300, 300, HeldOut)},
			"MAPE 5.00% over 3 held-out points"},
		{"both", []ParityPoint{pt(100, 101, Fitted), pt(100, 110, HeldOut)},
			"MAPE 1.00% over 1 fitted point (in-sample), 10.00% over 1 held-out point"},
		{"not told", []ParityPoint{pt(100, 110, FitUnknown), pt(200, 200, FitUnknown)},
			"MAPE 5.00% over 2 points"},
		{"some not told", []ParityPoint{pt(100, 110, Fitted), pt(200, 200, FitUnknown)},
			"MAPE 5.00% over 2 points"},
	} {
		if got := ScoreParity(tc.pts).String(); got != tc.want {
			t.Errorf("%s: ScoreParity %q, want %q", tc.name, got, tc.want)
		}
		if got := ParityLabel(tc.pts); got != tc.want {
			t.Errorf("%s: ParityLabel %q, want %q", tc.name, got, tc.want)
		}
	}
	sc := ScoreParity([]ParityPoint{pt(100, 101, Fitted), pt(100, 110, HeldOut), pt(100, 104, HeldOut)})
	if sc.N != 3 || sc.Fitted != 1 || sc.HeldOut != 2 || math.Abs(sc.FittedMAPE-1) > 1e-9 ||
		math.Abs(sc.HeldOutMAPE-7) > 1e-9 || math.Abs(sc.MAPE-5) > 1e-9 {
		t.Errorf("score %+v, want 3 points: 1 fitted at 1%%, 2 held out at 7%%, 5%% over all", sc)
	}
}
