package calibrate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/calibrate/fit"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

// TestGridIdentifiesDRAMOnABoard: on a SoC where DRAM binds (the rk3588
// preset, moved by up to ±20% per parameter), the calibration grid over
// the calibration workload identifies sustained DRAM and each engine's
// bandwidth cap below it, each within 10% of the truth and with σ within
// 10% of its value, and predicts its held-out points within 2%. A cap above
// sustained DRAM (the big engine's here: 22.7 GB/s against 20.2) never
// binds an engine alone, so the fit leaves it at DRAM's value or above,
// no narrower than its prior. Before splits were cut at whole tokens this
// test called it identified at 21.12 ± 0.50 (its prior's σ), 2e-5 GB/s
// below the fitted DRAM, on the binding side of that kink by chance; with
// the f32 points (Point.Stream) the fit put it a hair below the fitted
// DRAM again, at 21.0 ± 0.39, until a cap within its σ of sustained DRAM
// was no longer called identified (fit's capsAtDRAM). The measurements
// are the simulator's, with 1% noise: this tests the grid's design, not
// the model (the recorded grids do). What it does not reach is logged:
// the little engine's overlap is recovered (0.26 for the truth's 0.3; 0.24
// without the f32 points) but the big engine's is not (0.14 for 0.4), and
// on this board 6 points of 45 are mostly DRAM-bound.
func TestGridIdentifiesDRAMOnABoard(t *testing.T) {
	skipShort(t)
	prior, err := presets.SoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	w := dispatch.CalibrationWorkload(3<<20, 0)
	wyaml, err := model.MarshalWorkload(w)
	if err != nil {
		t.Fatal(err)
	}
	s := &Settings{Engines: NewEngines([]topology.Cluster{
		{Name: "big", CPUs: []int{4, 5, 6, 7}}, {Name: "little", CPUs: []int{0, 1, 2, 3}}}), Workload: w, Grid: BothGrids}
	pts, err := Points(s)
	if err != nil {
		t.Fatal(err)
	}
	dramPaths := []string{"dram.sustained_gb_s", "engines.big.bandwidth_max_gb_s", "engines.little.bandwidth_max_gb_s"}
	overlaps := []string{"engines.big.mem_compute_overlap", "engines.little.mem_compute_overlap"}
	rng := rand.New(rand.NewPCG(3, 4))
	truth := prior.Clone()
	for _, p := range append(append([]string(nil), dramPaths...), "engines.big.kernel_ops_per_cycle.q8", "engines.little.kernel_ops_per_cycle.q4", "handoff.futex_wake_us") {
		v, _ := truth.Get(p)
		if err := truth.Set(p, v*(0.8+0.4*rng.Float64())); err != nil {
			t.Fatal(err)
		}
	}
	_ = truth.Set("engines.big.mem_compute_overlap", 0.4)
	_ = truth.Set("engines.little.mem_compute_overlap", 0.3)
	sw := StreamWorkload(w, StreamMaxBytes)
	syaml, err := model.MarshalWorkload(sw)
	if err != nil {
		t.Fatal(err)
	}
	pred := fit.NewPredictor()
	var ms []measure.Measurement
	for i, p := range pts {
		m := measure.Measurement{Schema: measure.Schema, ID: fmt.Sprint("run", i), Kind: measure.Dispatcher, Status: "ok",
			Workload: w.Name, WorkloadYAML: string(wyaml), Plan: measure.PlanOf(p.Plan), Unit: "t/s", Knobs: map[string]string{"set": p.Set}}
		if p.Stream {
			m.Workload, m.WorkloadYAML = sw.Name, string(syaml)
		}
		if p.Run != nil {
			m.Run = &measure.Run{PromptTokens: p.Run.PromptTokens, Ubatch: p.Run.Ubatch}
		}
		v, err := pred.Predict(truth, &m)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			m.Samples = append(m.Samples, v*(1+0.01*rng.NormFloat64()))
		}
		m.Summarize()
		ms = append(ms, m)
	}
	v, r, err := fit.Holdout(prior, ms, []string{"set=heldout"}, fit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range append(append([]string(nil), dramPaths...), overlaps...) {
		found := false
		for _, p := range r.Params {
			if p.Path != path {
				continue
			}
			found = true
			tv, _ := truth.Get(path)
			t.Logf("%s: fitted %.3g ± %.2g, truth %.3g, identifiable %v", path, p.Value, p.Sigma, tv, p.Identifiable)
			if slices.Contains(overlaps, path) {
				continue
			}
			if sd, _ := truth.Get("dram.sustained_gb_s"); strings.HasSuffix(path, "bandwidth_max_gb_s") && tv > sd {
				// A cap above sustained DRAM never binds an engine
				// alone: the runs put it at DRAM's value or above,
				// where it does not move them.
				fd := 0.0
				for _, q := range r.Params {
					if q.Path == "dram.sustained_gb_s" {
						fd = q.Value
					}
				}
				if p.Value < 0.99*fd || (p.Identifiable && p.Sigma < p.PriorSigma*0.99) {
					t.Errorf("%s: %.4g ± %.2g (truth %.3g above sustained DRAM %.3g, fitted %.4g), identifiable %v: want it at DRAM's value or above, no narrower than its prior (± %.2g)",
						path, p.Value, p.Sigma, tv, sd, fd, p.Identifiable, p.PriorSigma)
				}
				continue
			}
			if !p.Identifiable || p.Sigma > 0.1*p.Value || math.Abs(p.Value-tv) > 0.1*tv {
				t.Errorf("%s: %.3g ± %.2g (truth %.3g), identifiable %v: want identified within 10%%", path, p.Value, p.Sigma, tv, p.Identifiable)
			}
		}
		if !found {
			t.Errorf("%s is not fitted", path)
		}
	}
	bound := 0
	for _, x := range append(append([]fit.Residual(nil), r.Residuals...), v.Worst...) {
		if x.DRAMBoundPct >= 50 {
			bound++
		}
	}
	n := len(r.Residuals) + len(v.Worst)
	t.Logf("%d of %d configurations at least 50%% DRAM-bound; held-out MAPE %.2f%%", bound, n, v.MAPE)
	if bound == 0 {
		t.Errorf("no configuration is mostly DRAM-bound")
	}
	if v.MAPE > 2 {
		t.Errorf("held-out MAPE %.2f%% on the model's own measurements", v.MAPE)
	}
}
