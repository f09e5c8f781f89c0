package predict

import (
	"errors"
	"fmt"
	"strings"

	"github.com/blsim/blsim/measure"
)

// ParityPoint is one measured configuration and its prediction.
type ParityPoint struct {
	// Measured is the measured throughput (median), MeasuredErr its
	// spread (one standard deviation; 0 when unknown).
	Measured    float64 `json:"measured"`
	MeasuredErr float64 `json:"measured_err"`
	Predicted   float64 `json:"predicted"`
	// Label is short: "token f=0.12 poll=50".
	Label string `json:"label"`
	// InFit says whether the profile that predicted the point was fitted
	// on its measurement.
	InFit InFit `json:"in_fit"`
}

// InFit says whether a profile was fitted on the measurement it predicts.
type InFit int

const (
	// FitUnknown: not told, or the profile is a fit that does not record
	// its runs.
	FitUnknown InFit = iota
	// Fitted: the profile was fitted on the measurement; its error is
	// in-sample.
	Fitted
	// HeldOut: the profile was not fitted on it.
	HeldOut
)

// Predictor predicts the throughput a measurement measured.
type Predictor func(m *measure.Measurement) (float64, error)

// ParityPoints predicts every usable throughput measurement of ms (see
// measure.Measurement.IsThroughput; others are skipped) with pred. fitted,
// when not nil, says whether the profile was fitted on a measurement
// (InFit Fitted, else HeldOut); nil leaves every point FitUnknown. Its
// error is the first prediction that failed, or that no measurement was
// usable.
func ParityPoints(ms []measure.Measurement, pred Predictor, fitted func(*measure.Measurement) bool) ([]ParityPoint, error) {
	var out []ParityPoint
	for i := range ms {
		m := &ms[i]
		if !m.IsThroughput() || !m.OK() {
			continue
		}
		v, err := pred(m)
		if err != nil {
			return nil, err
		}
		p := ParityPoint{Measured: m.Median, MeasuredErr: m.SD(), Predicted: v, Label: m.Label()}
		switch {
		case fitted == nil:
		case fitted(m):
			p.InFit = Fitted
		default:
			p.InFit = HeldOut
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, errors.New("no throughput measurements (kind dispatcher, llama-bench or reported, with a plan, status ok)")
	}
	return out, nil
}

// MAPE is the mean absolute percentage error of the predictions (NaN for
// none).
func MAPE(pts []ParityPoint) float64 {
	errs := make([]float64, len(pts))
	for i, p := range pts {
		errs[i] = measure.ErrPct(p.Predicted, p.Measured)
	}
	return measure.MAPE(errs)
}

// ParityScore is the error of parity points, in all and by InFit.
type ParityScore struct {
	// N and MAPE are over all the points.
	N    int
	MAPE float64
	// Fitted, HeldOut and Unknown count the points of each InFit, and
	// FittedMAPE and HeldOutMAPE are the MAPE of the first two (NaN for
	// none).
	Fitted, HeldOut, Unknown int
	FittedMAPE, HeldOutMAPE  float64
}

// ScoreParity scores pts (see ParityScore).
func ScoreParity(pts []ParityPoint) ParityScore {
	var fitted, held []ParityPoint
	s := ParityScore{N: len(pts), MAPE: MAPE(pts)}
	for _, p := range pts {
		switch p.InFit {
		case Fitted:
			fitted = append(fitted, p)
		case HeldOut:
			held = append(held, p)
		default:
			s.Unknown++
		}
	}
	s.Fitted, s.FittedMAPE = len(fitted), MAPE(fitted)
	s.HeldOut, s.HeldOutMAPE = len(held), MAPE(held)
	return s
}

// String says the MAPE and over which points: "MAPE 3.21% over 12
// held-out points", "MAPE 0.84% over 12 fitted points (in-sample)", "MAPE
// 0.84% over 8 fitted points (in-sample), 4.10% over 4 held-out points",
// or, when whether they were fitted is not known, "MAPE 3.21% over 12
// points".
func (s ParityScore) String() string {
	points := func(n int, what string) string {
		if n == 1 {
			return "1 " + what + "point"
		}
		return fmt.Sprintf("%d %spoints", n, what)
	}
	if s.Unknown > 0 || s.N == 0 {
		return fmt.Sprintf("MAPE %.2f%% over %s", s.MAPE, points(s.N, ""))
	}
	var parts []string
	if s.Fitted > 0 {
		parts = append(parts, fmt.Sprintf("%.2f%% over %s (in-sample)", s.FittedMAPE, points(s.Fitted, "fitted ")))
	}
	if s.HeldOut > 0 {
		parts = append(parts, fmt.Sprintf("%.2f%% over %s", s.HeldOutMAPE, points(s.HeldOut, "held-out ")))
	}
	return "MAPE " + strings.Join(parts, ", ")
}

// ParityLabel is ScoreParity(pts).String().
func ParityLabel(pts []ParityPoint) string { return ScoreParity(pts).String() }
