package calibrate

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// TestRecordedFullF32Caps refits two full calibrations recorded on the
// 2-vCPU build machine, each in a quiet window of its own, after the full
// grid gained each engine alone on f32 experts (StreamWorkload): `blsim
// calibrate --cluster big=1 --cluster little=0 --plans fit+heldout
// --shuffle`, 2026-12-03, testdata/full-vm-f32. Calibrate wrote both
// profiles (fit 5.35% and 6.90%, held out 5.24% and 5.32%). Both caps
// (one parameter for the two engines of one core type) are identified
// within 10% in each (32.15 ± 0.84 and 31.61 ± 1.02 GB/s), and so is
// dram.sustained_gb_s (58.27 ± 5.10 and 47.92 ± 4.44: the caps now sum
// above the all-CPU stream, so runs reach it, and its σ is near its
// prior's). The f32 runs are 85-86% memory-bound, the others at most
// about half. Without the f32 runs (dropped from a copy of the records)
// the same files leave the caps at ± 4.08 and ± 3.37 (12% and 11%),
// with mem_compute_overlap at its bound 0 in both: the f32 runs are what
// identify the caps. docs/busy-machine.md gives the figures.
func TestRecordedFullF32Caps(t *testing.T) {
	skipShort(t)
	t.Parallel()
	for _, tc := range []struct {
		file            string
		fit, heldOut    float64 // MAPE, %
		cap, capSigma   float64 // GB/s
		dram, dramSigma float64 // GB/s
	}{
		{file: "run1", fit: 5.35, heldOut: 5.24, cap: 32.15, capSigma: 0.84, dram: 58.27, dramSigma: 5.10}, // 05:30-05:35 UTC
		{file: "run2", fit: 6.90, heldOut: 5.32, cap: 31.61, capSigma: 1.02, dram: 47.92, dramSigma: 4.44}, // 05:42-05:47 UTC
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			ms, w := recordedQuick(t, "testdata/full-vm-f32/"+tc.file+".jsonl")
			var without []measure.Measurement
			for _, m := range ms {
				if !strings.HasSuffix(m.Workload, "-f32") {
					without = append(without, m)
				}
			}
			// With and without the f32 runs: independent, at once.
			fits := holdoutAll([]*model.SoC{Prior("vm", vmEngines(), ms, w), Prior("vm", vmEngines(), without, w)}, [][]measure.Measurement{ms, without})
			for _, x := range fits {
				if x.err != nil {
					t.Fatal(x.err)
				}
			}
			v, r, got := fits[0].v, fits[0].r, fits[0].params()
			cap, little, dram := got["engines.big.bandwidth_max_gb_s"], got["engines.little.bandwidth_max_gb_s"], got["dram.sustained_gb_s"]
			t.Logf("fit %.2f%%, held out %.2f%% (max %.2f%%): caps %.2f ± %.2f, sustained DRAM %.2f ± %.2f (%s), overlap %.3f ± %.3f",
				r.MAPE, v.MAPE, v.MaxErrPct, cap.Value, cap.Sigma, dram.Value, dram.Sigma, dram.Identification,
				got["engines.big.mem_compute_overlap"].Value, got["engines.big.mem_compute_overlap"].Sigma)
			if err := r.Check(); err != nil {
				t.Errorf("calibrate would refuse the fit: %v", err)
			}
			if !cap.Precise() || little.SameAs != cap.Path {
				t.Errorf("caps %.2f ± %.2f (little's same as %q): want one parameter identified within 10%%", cap.Value, cap.Sigma, little.SameAs)
			}
			if !dram.Precise() {
				t.Errorf("sustained DRAM %.2f ± %.2f (%s): want it within 10%%", dram.Value, dram.Sigma, dram.Identification)
			}
			for _, res := range r.Residuals {
				f32 := strings.HasPrefix(res.ID, "dispatcher/"+w.Name+"-f32/")
				if f32 {
					t.Logf("%s: %.0f%% memory-bound", res.Label, res.MemoryBoundPct())
				}
				if f32 && res.MemoryBoundPct() < 75 {
					t.Errorf("%s: %.0f%% memory-bound, want the f32 runs at least 75%%", res.Label, res.MemoryBoundPct())
				}
			}
			rw, gw := fits[1].r, fits[1].params()
			cw := gw["engines.big.bandwidth_max_gb_s"]
			t.Logf("without the f32 runs: fit %.2f%%, caps %.2f ± %.2f, overlap %.3f ± %.3f", rw.MAPE, cw.Value, cw.Sigma,
				gw["engines.big.mem_compute_overlap"].Value, gw["engines.big.mem_compute_overlap"].Sigma)
			if len(without) == len(ms) || cw.Sigma < 2*cap.Sigma {
				t.Errorf("without the f32 runs (%d of %d records left) the caps' σ is %.2f, with them %.2f: want it at least twice as wide", len(without), len(ms), cw.Sigma, cap.Sigma)
			}
			near := func(what string, got, want float64) {
				if math.Abs(got-want) > 0.05 {
					t.Errorf("%s %.3f, recorded in docs/busy-machine.md as %.2f", what, got, want)
				}
			}
			near("fit MAPE", r.MAPE, tc.fit)
			near("held-out MAPE", v.MAPE, tc.heldOut)
			near("caps", cap.Value, tc.cap)
			near("their σ", cap.Sigma, tc.capSigma)
			near("sustained DRAM", dram.Value, tc.dram)
			near("its σ", dram.Sigma, tc.dramSigma)
		})
	}
}
