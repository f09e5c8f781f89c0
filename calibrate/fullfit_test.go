package calibrate

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// TestRecordedFullIdentifiesCaps refits a full calibration recorded on the
// quiet 2-vCPU build machine (`blsim calibrate --cluster big=1 --cluster
// little=0 --plans fit+heldout --shuffle`, 2026-12-02 12:27-12:33 UTC,
// testdata/full-vm) as calibrate did. Its gemv efficiency was timed in
// alternation with the tile (CV 2.9% and 2.7%), so the fit holds it near
// the microbenchmark, and the engines' cap (one parameter for the two
// engines of one core type) is identified within 10%: 19.64 ± 1.63 GB/s
// (fit 9.69%; 20.97 ± 2.00 when recorded, 19.79 ± 1.83 on main at 6252533,
// before splits were cut at whole tokens). With the CV of the step as
// timed before (14.9%, in a copy of the records), the one-token runs
// cannot tell a slower gemv from slower memory, and the cap's σ doubles
// (20.14 ± 3.84; 20.89 ± 3.99 when recorded). Sustained DRAM stays at
// its microbenchmark: the caps sum below it, and the at-once step says
// the engines kept 0.91 and 0.99 of their speed at once.
func TestRecordedFullIdentifiesCaps(t *testing.T) {
	skipShort(t)
	t.Parallel()
	ms, w := recordedQuick(t, "testdata/full-vm/full.jsonl")
	wide := append([]measure.Measurement(nil), ms...)
	for i := range wide {
		if wide[i].Kind == measure.Kernel && strings.HasSuffix(wide[i].Param, ".gemv_efficiency") {
			wide[i].CV, wide[i].Samples = 0.149, nil
		}
	}
	// The two refits are independent: at once.
	fits := holdoutAll([]*model.SoC{Prior("vm", vmEngines(), ms, w), Prior("vm", vmEngines(), wide, w)}, [][]measure.Measurement{ms, wide})
	capOf := func(x refit) (fit.ParamFit, *fit.Result) {
		if x.err != nil {
			t.Fatal(x.err)
		}
		p, ok := x.params()["engines.big.bandwidth_max_gb_s"]
		if !ok {
			t.Fatalf("the cap was not fitted: %v", x.r.Params)
		}
		return p, x.r
	}
	now, r := capOf(fits[0])
	t.Logf("fit %.2f%%: cap %.2f ± %.2f GB/s (prior %.2f ± %.2f); notes %q", r.MAPE, now.Value, now.Sigma, now.Prior, now.PriorSigma, r.Notes)
	if !now.Precise() {
		t.Errorf("cap %.2f ± %.2f GB/s: want it identified within 10%%", now.Value, now.Sigma)
	}
	before, _ := capOf(fits[1])
	t.Logf("gemv CV 14.9%%: cap %.2f ± %.2f GB/s", before.Value, before.Sigma)
	if before.Sigma < 1.5*now.Sigma {
		t.Errorf("cap's σ %.2f with the gemv step's old spread, %.2f now: want the steadier step to narrow it", before.Sigma, now.Sigma)
	}
	for _, n := range r.Notes {
		if strings.Contains(n, "kept 0.91 of their speed") {
			return
		}
	}
	t.Errorf("no note says what the at-once step measured: %q", r.Notes)
}

// TestRecordedFullMeasuresSustained refits a full calibration recorded on
// the 2-vCPU build machine in a quiet window (`blsim calibrate --cluster
// big=1 --cluster little=0 --plans fit+heldout --shuffle`, 2026-12-02
// 15:43-15:49 UTC, testdata/full-vm-together), whose all-engines stream is
// probe.StreamReadTogether: 43.92 GB/s at a CV of 5.2%, and whose at-once
// step says the engines kept 0.91 of their speed at once. The engines'
// caps sum to 39.5 GB/s, below it, so no run reaches sustained DRAM: it is
// measured (fit.Measured), at the measurement's σ (6%), and with the caps
// (19.10 ± 1.6 GB/s) known within 10%. Whether calibrate accepts the fit
// sits on its 10% line: charged the sleep exit in full after any idle past
// the spin window, the fit was at 10.19% and refused; with the sleep exit
// by idle (model.Handoff.SleepExitAfterUS) at 9.46%, accepted; with splits
// also cut at whole tokens, as the dispatcher cut them, at 10.06%, refused
// for the model's disagreement (its worst: the window's prefill-like runs,
// with cpu1 slower than cpu0, and the two-token poll-0 token split), not
// for interference (docs/busy-machine.md).
func TestRecordedFullMeasuresSustained(t *testing.T) {
	skipShort(t)
	t.Parallel()
	ms, w := recordedQuick(t, "testdata/full-vm-together/full.jsonl")
	// The run's records predate the wakes after 100 µs and 1 ms, so its
	// sleep exit is charged linearly in the idle; the second refit uses
	// the shares this VM measured later (below). The third drops the
	// at-once record. The three refits are independent: two at a time.
	pr := Prior("vm", vmEngines(), ms, w)
	pr.Handoff.SleepExitByIdle = sleepExitByIdle([]measure.Measurement{wakeRecord(recordedWakes(t))})
	var without []measure.Measurement
	for _, m := range ms {
		if m.Kind != measure.AtOnce {
			without = append(without, m)
		}
	}
	fits := holdoutAll([]*model.SoC{Prior("vm", vmEngines(), ms, w), pr, Prior("vm", vmEngines(), without, w)},
		[][]measure.Measurement{ms, ms, without})
	for _, x := range fits {
		if x.err != nil {
			t.Fatal(x.err)
		}
	}
	r, got := fits[0].r, fits[0].params()
	dram, cap := got["dram.sustained_gb_s"], got["engines.big.bandwidth_max_gb_s"]
	t.Logf("fit %.2f%%: sustained DRAM %.2f ± %.2f (%s), cap %.2f ± %.2f", r.MAPE, dram.Value, dram.Sigma, dram.Identification, cap.Value, cap.Sigma)
	if dram.Identification != fit.Measured || !dram.Precise() {
		t.Errorf("sustained DRAM %.2f ± %.2f (%s): want it measured within 10%%", dram.Value, dram.Sigma, dram.Identification)
	}
	if !cap.Precise() {
		t.Errorf("cap %.2f ± %.2f: want it identified within 10%%", cap.Value, cap.Sigma)
	}
	var poor *fit.PoorFitError
	if err := r.Check(); !errors.As(err, &poor) || math.Abs(r.MAPE-10.06) > 0.05 {
		t.Errorf("fit %.2f%%, check %v: want 10.06%% (recorded in docs/busy-machine.md), refused as the model's disagreement", r.MAPE, err)
	}
	// With the shares this VM measured later (testdata/wake-idle: none
	// after 100 µs, 0.14 after 1 ms), the fit is at 9.98%, accepted, and
	// the caps stay within 10%.
	rb := fits[1].r
	for _, p := range rb.Params {
		if p.Path == "engines.big.bandwidth_max_gb_s" && !p.Precise() {
			t.Errorf("with the sleep exit by measured idle: cap %.2f ± %.2f, want it within 10%%", p.Value, p.Sigma)
		}
	}
	t.Logf("with the sleep exit by measured idle: fit %.2f%%", rb.MAPE)
	if err := rb.Check(); err != nil || math.Abs(rb.MAPE-9.98) > 0.05 {
		t.Errorf("with the sleep exit by measured idle: fit %.2f%%, check %v; want 9.98%%, accepted", rb.MAPE, err)
	}
	// Without the at-once record, nothing says the engines do not share
	// DRAM: the stream is a prior three times its CV wide, prior-led.
	for _, p := range fits[2].r.Params {
		if p.Path == "dram.sustained_gb_s" && (p.Identification == fit.Measured || p.Precise()) {
			t.Errorf("without the at-once step: sustained DRAM %.2f ± %.2f (%s), want it not measured within 10%%", p.Value, p.Sigma, p.Identification)
		}
	}
}

// TestRecordedFullSecondRun refits the second full calibration recorded
// after the sleep exit was charged by idle (`blsim calibrate --cluster
// big=1 --cluster little=0 --plans fit+heldout --shuffle`, 2026-12-02
// 19:03-19:08 UTC, main at e6606df, testdata/full-vm-sleep/full2.jsonl).
// Calibrate wrote its profile then (fit 6.74%, held out 8.04%); refitted
// with splits cut at whole tokens it is accepted at fit 6.99%, held out
// 7.60% (max 27.73%, the two-token poll-0 token split, predicted slow).
// Sustained DRAM is measured at 57.93 ± 3.48 GB/s (6%), but the caps are
// 26.50 ± 3.65 GB/s (13.8%): not within 10%, as its runs are at most 12%
// DRAM-bound (docs/busy-machine.md). The fit's further starts for the
// caps (fit.CapStartShares) do not win here by their margin.
func TestRecordedFullSecondRun(t *testing.T) {
	skipShort(t)
	t.Parallel()
	ms, w := recordedQuick(t, "testdata/full-vm-sleep/full2.jsonl")
	v, r, got := refitRecorded(t, ms, w)
	dram, cap := got["dram.sustained_gb_s"], got["engines.big.bandwidth_max_gb_s"]
	t.Logf("fit %.2f%%, held out %.2f%% (max %.2f%%): sustained DRAM %.2f ± %.2f (%s), cap %.2f ± %.2f",
		r.MAPE, v.MAPE, v.MaxErrPct, dram.Value, dram.Sigma, dram.Identification, cap.Value, cap.Sigma)
	if err := r.Check(); err != nil {
		t.Errorf("calibrate would refuse the fit: %v", err)
	}
	near := func(what string, got, want, tol float64) {
		if math.Abs(got-want) > tol {
			t.Errorf("%s %.3f, recorded in docs/busy-machine.md as %.2f", what, got, want)
		}
	}
	near("fit MAPE", r.MAPE, 6.99, 0.05)
	near("held-out MAPE", v.MAPE, 7.60, 0.05)
	near("sustained DRAM", dram.Value, 57.93, 0.05)
	near("its σ", dram.Sigma, 3.48, 0.05)
	near("cap", cap.Value, 26.50, 0.05)
	near("its σ", cap.Sigma, 3.65, 0.05)
	if dram.Identification != fit.Measured || !dram.Precise() {
		t.Errorf("sustained DRAM %.2f ± %.2f (%s): want it measured within 10%%", dram.Value, dram.Sigma, dram.Identification)
	}
	if cap.Precise() {
		t.Errorf("cap %.2f ± %.2f: within 10%%, which docs/busy-machine.md says this run does not reach", cap.Value, cap.Sigma)
	}
}

// TestRecordedFullSleepExit refits a full calibration recorded on the
// 2-vCPU build machine in a quiet window after the sleep exit was charged
// by idle (`blsim calibrate --cluster big=1 --cluster little=0 --plans
// fit+heldout --shuffle`, 2026-12-02 18:22-18:27 UTC,
// testdata/full-vm-sleep). Calibrate wrote its profile: fit 7.22% MAPE,
// held out 9.05%, sustained DRAM measured (46.18 ± 2.8 GB/s, 6%). Its runs
// are at most 12% DRAM-bound and 45% memory-bound (DRAM and the engine's
// cap together), and the fit leaves mem_compute_overlap free at 0.34 ±
// 0.16, which trades against the cap, so the caps are not known within
// 10% (21.91 ± 3.7); the test holds what the run showed and says the
// cap's σ. Refitted with splits cut at whole tokens: fit 7.51%, held out
// 8.28%, caps 22.10 ± 3.77. With the fit's further starts for the caps
// (fit.CapStartShares, ninth session) the runs identify sustained DRAM at
// 43.12 ± 2.67 (6%), 7% under the stream's reading: known within 10%
// either way, which is what the test holds.
func TestRecordedFullSleepExit(t *testing.T) {
	skipShort(t)
	t.Parallel()
	ms, w := recordedQuick(t, "testdata/full-vm-sleep/full.jsonl")
	v, r, got := refitRecorded(t, ms, w)
	if err := r.Check(); err != nil {
		t.Errorf("calibrate would refuse the fit: %v", err)
	}
	dram, cap := got["dram.sustained_gb_s"], got["engines.big.bandwidth_max_gb_s"]
	t.Logf("fit %.2f%%, held out %.2f%%: sustained DRAM %.2f ± %.2f (%s), cap %.2f ± %.2f", r.MAPE, v.MAPE, dram.Value, dram.Sigma, dram.Identification, cap.Value, cap.Sigma)
	if (dram.Identification != fit.Measured && dram.Identification != fit.Identified) || !dram.Precise() {
		t.Errorf("sustained DRAM %.2f ± %.2f (%s): want it measured or identified within 10%%", dram.Value, dram.Sigma, dram.Identification)
	}
	if v.MAPE > 10 {
		t.Errorf("held out %.2f%%: recorded 9.05%%", v.MAPE)
	}
}

// vmEngines are the clusters of the full calibrations recorded on the
// 2-vCPU build machine: big on cpu1, little on cpu0.
func vmEngines() []Engine {
	return NewEngines([]topology.Cluster{{Name: "big", CPUs: []int{1}, CoreType: "AMD EPYC"}, {Name: "little", CPUs: []int{0}, CoreType: "AMD EPYC"}})
}

// refitRecorded refits recorded runs of workload w as calibrate does (the
// held-out grid held out), in one of fitSlots, and returns the held-out
// validation, the fit, and its parameters by path.
func refitRecorded(t *testing.T, ms []measure.Measurement, w *model.Workload) (*fit.Validation, *fit.Result, map[string]fit.ParamFit) {
	t.Helper()
	x := holdoutAll([]*model.SoC{Prior("vm", vmEngines(), ms, w)}, [][]measure.Measurement{ms})[0]
	if x.err != nil {
		t.Fatal(x.err)
	}
	return x.v, x.r, x.params()
}
