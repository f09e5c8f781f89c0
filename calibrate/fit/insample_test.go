package fit

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// insampleSetup fits rk3588 to a synthetic grid; it returns the fitted
// profile, the grid, and the same grid measured again (other samples,
// same IDs).
func insampleSetup(t *testing.T) (*Result, []measure.Measurement, []measure.Measurement) {
	t.Helper()
	base, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	ms := synth(t, base, rand.New(rand.NewPCG(1, 2)), 0.01)
	again := synth(t, base, rand.New(rand.NewPCG(3, 4)), 0.01)
	r, err := Fit(base, ms, Options{Free: recoverFree})
	if err != nil {
		t.Fatal(err)
	}
	return r, ms, again
}

// A record's digest is the same after a measurements file's round trip
// (which adds the schema tag), and differs for the same configuration
// measured again.
func TestRunDigestRoundTrip(t *testing.T) {
	_, ms, again := insampleSetup(t)
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	w, err := measure.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		m.Schema, m.Stdout = "", "captured output, cut short when written"
		if err := w.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	back, errs := measure.ReadFile(path)
	if len(errs) > 0 || len(back) != len(ms) {
		t.Fatalf("read back %d of %d: %v", len(back), len(ms), errs)
	}
	for i := range ms {
		if RunDigest(&ms[i]) != RunDigest(&back[i]) {
			t.Errorf("%s: digest %s in memory, %s read back", ms[i].ID, RunDigest(&ms[i]), RunDigest(&back[i]))
		}
		if ms[i].ID != again[i].ID || RunDigest(&ms[i]) == RunDigest(&again[i]) {
			t.Errorf("%s measured again: same digest %s", ms[i].ID, RunDigest(&ms[i]))
		}
	}
}

// Fit lists the records it fitted in the profile's provenance, and
// Predictions on them calls them fitted points, on others held out.
func TestPredictionsInSample(t *testing.T) {
	r, ms, again := insampleSetup(t)
	p := r.SoC.Provenance
	if p == nil || len(p.FittedRuns) != len(ms) || p.Runs != len(ms) {
		t.Fatalf("provenance %+v, want %d fitted runs", p, len(ms))
	}
	if d, id, _ := strings.Cut(p.FittedRuns[0], " "); d != RunDigest(&ms[0]) || id != ms[0].ID {
		t.Errorf("fitted run %q, want %q", p.FittedRuns[0], RunDigest(&ms[0])+" "+ms[0].ID)
	}
	for _, x := range r.Residuals {
		if !x.InFit {
			t.Errorf("fit residual %s not InFit", x.ID)
		}
	}
	for _, tc := range []struct {
		name            string
		ms              []measure.Measurement
		fitted, heldOut int
	}{
		{"own", ms, len(ms), 0},
		{"measured again", again, 0, len(again)},
		{"both", append(append([]measure.Measurement(nil), ms[:5]...), again[5:]...), 5, len(ms) - 5},
	} {
		v, err := Predictions(r.SoC, tc.ms, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if v.Fitted.N != tc.fitted || v.HeldOut.N != tc.heldOut || v.N != len(tc.ms) || v.FitUnrecorded {
			t.Errorf("%s: %d fitted, %d held out of %d (unrecorded %v), want %d and %d", tc.name, v.Fitted.N, v.HeldOut.N, v.N, v.FitUnrecorded, tc.fitted, tc.heldOut)
		}
		n := 0
		for _, x := range v.Worst {
			if x.InFit {
				n++
			}
		}
		if n != v.Fitted.N {
			t.Errorf("%s: %d worst rows InFit, want %d", tc.name, n, v.Fitted.N)
		}
		if tc.fitted == len(tc.ms) && (v.Fitted.MAPE != v.MAPE || v.Fitted.MaxErrPct != v.MaxErrPct) {
			t.Errorf("%s: fitted %+v, all MAPE %g max %g", tc.name, v.Fitted, v.MAPE, v.MaxErrPct)
		}
	}
}

// Holdout scores only what it did not fit, even on a prior that was
// fitted on those very runs.
func TestHoldoutNeverInSample(t *testing.T) {
	r, ms, _ := insampleSetup(t)
	v, _, err := Holdout(r.SoC, ms, []string{"f=0.2", "f=0.45"}, Options{Free: recoverFree})
	if err != nil {
		t.Fatal(err)
	}
	if v.Fitted.N != 0 || v.HeldOut.N != v.N || v.N != 4 {
		t.Errorf("holdout: %d fitted, %d held out of %d", v.Fitted.N, v.HeldOut.N, v.N)
	}
}

// FittedOn: a preset was fitted on nothing; a fit written before the runs
// were listed is Unrecorded.
func TestFittedOn(t *testing.T) {
	r, ms, _ := insampleSetup(t)
	preset, _ := presets.SoC("rk3588")
	if f := FittedOn(preset); f.Unrecorded() || f.Has(&ms[0]) {
		t.Errorf("preset: unrecorded %v, has %v", f.Unrecorded(), f.Has(&ms[0]))
	}
	old := r.SoC.Clone()
	old.Provenance = &model.Provenance{Source: "blsim calibrate on vm", Runs: 4}
	if f := FittedOn(old); !f.Unrecorded() || f.Has(&ms[0]) {
		t.Errorf("old fit: unrecorded %v, has %v", f.Unrecorded(), f.Has(&ms[0]))
	}
	v, err := Predictions(old, ms, Options{})
	if err != nil || !v.FitUnrecorded || v.Fitted.N != 0 {
		t.Errorf("old fit: %v %+v", err, v)
	}
	if f := FittedOn(r.SoC); f.Unrecorded() || !f.Has(&ms[0]) {
		t.Errorf("new fit: unrecorded %v, has %v", f.Unrecorded(), f.Has(&ms[0]))
	}
}

// Parity predicts as Predictor does and tells the fitted points as
// FittedOn does; without a list of the fitted runs it cannot tell.
func TestParity(t *testing.T) {
	r, ms, again := insampleSetup(t)
	merged := Merge(ms, Median)
	predicted, fitted := Parity(r.SoC, nil, ms)
	want, err := NewPredictor().Predict(r.SoC, &merged[0])
	if got, gerr := predicted(&merged[0]); err != nil || gerr != nil || got != want || got <= 0 {
		t.Errorf("predicted %g (%v), want %g (%v)", got, gerr, want, err)
	}
	if fitted == nil || !fitted(&merged[0]) {
		t.Error("a run the profile was fitted on is not told fitted")
	}
	if _, fitted := Parity(r.SoC, nil, again); fitted == nil || fitted(&Merge(again, Median)[0]) {
		t.Error("a run measured again is told fitted")
	}
	old := r.SoC.Clone()
	old.Provenance = &model.Provenance{Source: "blsim calibrate on vm", Runs: 4}
	if _, fitted := Parity(old, nil, ms); fitted != nil {
		t.Error("a fit that does not list its runs tells fitted points")
	}
}

// Has tells a record by its digest, looking the digest up only for a
// record whose ID the list names; a list of digests alone still works.
func TestFitSetByIDThenDigest(t *testing.T) {
	m := measure.Measurement{ID: " run 1 ", Kind: measure.LlamaBench, Unit: "t/s", Median: 10, Status: measure.StatusOK,
		Plan: measure.PlanOf(model.NewNative("big", 4, 50))}
	other := m
	other.ID = "run 2"
	again := m
	again.Median = 11
	for _, runs := range [][]string{{RunDigest(&m) + " " + m.ID}, {RunDigest(&m)}, {RunDigest(&m) + " " + m.ID, "abcdef123456 " + other.ID}} {
		f := FittedOn(&model.SoC{Provenance: &model.Provenance{Runs: 1, FittedRuns: runs}})
		if !f.Has(&m) || f.Has(&other) || f.Has(&again) {
			t.Errorf("%q: has the run %v (want true), another %v, it measured again %v (want false)", runs, f.Has(&m), f.Has(&other), f.Has(&again))
		}
	}
}
