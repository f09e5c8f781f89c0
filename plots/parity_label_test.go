package plots

import (
	"strings"
	"testing"

	"github.com/blsim/blsim/predict"
)

// The parity figure says over which points its MAPE is: fitted
// (in-sample), held out, both apart, or, when not told, just points.
func TestParityLabel(t *testing.T) {
	skipShort(t)
	pt := func(measured, predicted float64, in predict.InFit) predict.ParityPoint {
		return predict.ParityPoint{Measured: measured, Predicted: predicted, Label: "p", InFit: in}
	}
	for _, tc := range []struct {
		name   string
		pts    []predict.ParityPoint
		title  string
		legend []string
		not    []string
	}{
		{"fitted", []predict.ParityPoint{pt(100, 101, predict.Fitted), pt(200, 198, predict.Fitted)},
			"MAPE 1.00% over 2 fitted points (in-sample)",
			[]string{"fitted points (in-sample): measured median ± 1σ vs predicted"}, []string{"held-out"}},
		{"held out", []predict.ParityPoint{pt(100, 110, predict.HeldOut), pt(200, 190, predict.HeldOut), pt(300, 300, predict.HeldOut)},
			"MAPE 5.00% over 3 held-out points",
			[]string{"held-out points: measured median ± 1σ vs predicted"}, []string{"fitted"}},
		{"both", []predict.ParityPoint{pt(100, 101, predict.Fitted), pt(100, 110, predict.HeldOut)},
			"MAPE 1.00% over 1 fitted point (in-sample), 10.00% over 1 held-out point",
			[]string{"fitted points (in-sample): ", "held-out points: "}, nil},
		{"not told", []predict.ParityPoint{pt(100, 110, predict.FitUnknown), pt(200, 200, predict.FitUnknown)},
			"MAPE 5.00% over 2 points",
			[]string{"measured median ± 1σ vs predicted"}, []string{"fitted", "held-out"}},
	} {
		fig, err := Parity(ParityData{SoC: "rk3588", Workload: "w", Points: tc.pts})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if want := "Parity: w on rk3588 — " + tc.title; fig.Title != want {
			t.Errorf("%s: title %q, want %q", tc.name, fig.Title, want)
		}
		if got := predict.ScoreParity(tc.pts).String(); got != tc.title {
			t.Errorf("%s: ScoreParity %q, want %q", tc.name, got, tc.title)
		}
		var legend []string
		for _, e := range fig.Legend {
			legend = append(legend, e.Label)
		}
		all := strings.Join(append(legend, fig.Title), "\n")
		for _, w := range tc.legend {
			if !strings.Contains(strings.Join(legend, "\n"), w) {
				t.Errorf("%s: legend %q lacks %q", tc.name, legend, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(all, n) {
				t.Errorf("%s: %q in title or legend:\n%s", tc.name, n, all)
			}
		}
		checkRenders(t, "parity "+tc.name, fig, 7, 5)
	}
	if _, err := Parity(ParityData{Points: []predict.ParityPoint{pt(1, 1, predict.HeldOut+1)}}); err == nil {
		t.Error("an InFit out of range was drawn")
	}
}
