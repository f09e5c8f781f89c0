package predict

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// The what-if grid of rk3588 over DRAM bandwidth and compute ratio: its
// shape, the studied point, the trend, and the SoC left as it was.
func TestSweepWhatIf(t *testing.T) {
	s, w := load(t, "rk3588")
	d, err := WhatIfOf(nil, s, w, WhatIfOptions{Poll: 50, NX: 4, NY: 3, FracSteps: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.X) != 4 || len(d.Y) != 3 || len(d.Gain) != 3 || len(d.Gain[0]) != 4 || len(d.BestFrac) != 3 || len(d.BestFrac[0]) != 4 {
		t.Fatalf("grid %dx%d, gains %d rows, fractions %d rows", len(d.X), len(d.Y), len(d.Gain), len(d.BestFrac))
	}
	if d.XParam != ParamDRAM || d.YParam != ParamComputeRatio || d.NWay || d.LogX || d.LogY || d.Mode != model.TokenSplit {
		t.Errorf("defaults: x %s y %s nway %v log %v/%v mode %s", d.XParam, d.YParam, d.NWay, d.LogX, d.LogY, d.Mode)
	}
	if strings.Join(d.Engines, "+") != "big+little" || !reflect.DeepEqual(d.Threads, []int{4, 4}) {
		t.Errorf("engines %v, threads %v; want big+little, 4 each (their defaults)", d.Engines, d.Threads)
	}
	if d.AtX != 21 || math.Abs(d.AtY-9*1.8/(28*2.3)) > 1e-9 {
		t.Errorf("studied point (%g, %g)", d.AtX, d.AtY)
	}
	if !(d.X[0] < d.AtX && d.AtX < d.X[3] && d.Y[0] < d.AtY && d.AtY < d.Y[2]) {
		t.Errorf("studied point outside the grid: %v %v", d.X, d.Y)
	}
	// More DRAM bandwidth (caps scaled with it) makes the split pay more.
	for j := range d.Y {
		if d.Gain[j][3] <= d.Gain[j][0] {
			t.Errorf("row %d: gain %v does not grow with bandwidth", j, d.Gain[j])
		}
	}
	// Every cell's best share is on the whole range, and its verdict is
	// the one rule's with the studied interval moved to its gain.
	if len(d.Verdict) != len(d.Y) {
		t.Fatalf("%d verdict rows for %d y values", len(d.Verdict), len(d.Y))
	}
	win, loss := d.VerdictLevels()
	for j, row := range d.BestFrac {
		for i, f := range row {
			if !(f >= 0 && f <= 1) {
				t.Errorf("cell (%d, %d): best share %g outside [0, 1]", i, j, f)
			}
			g, v := d.Gain[j][i], d.Verdict[j][i]
			want := sim.Parity
			switch {
			case g > win && f < 0.0005:
				want = sim.Alone
			case g > win:
				want = sim.Win
			case g < loss:
				want = sim.Loss
			}
			if v != want {
				t.Errorf("cell (%d, %d): gain %+.3f%% at share %.4f is %s, want %s (levels %+.3g, %+.3g)", i, j, g, f, v, want, win, loss)
			}
		}
	}
	if math.Abs(d.AtGain) > 1 {
		t.Errorf("rk3588 best gain %g%%, want parity", d.AtGain)
	}
	// The original SoC is untouched by the what-if edits.
	if s.DRAM.SustainedGBs != 21 || s.Engines[1].KernelOpsPerCycle["q4"] != 9 {
		t.Error("WhatIfOf(nil, …) changed its SoC")
	}
	// A parameter path works as an axis.
	if d, err := WhatIfOf(nil, s, w, WhatIfOptions{XParam: "engines.big.clock_ghz", NX: 2, NY: 2, FracSteps: 2}); err != nil {
		t.Error(err)
	} else if d.XParam != "engines.big.clock_ghz" || d.AtX != s.Engines[0].ClockGHz {
		t.Errorf("clock axis %s at %g, want engines.big.clock_ghz at %g", d.XParam, d.AtX, s.Engines[0].ClockGHz)
	}
	for name, o := range map[string]WhatIfOptions{
		"unknown param": {XParam: "dram.nosuch"},
		"same axes":     {XParam: "dram", YParam: "dram"},
		"one value":     {XValues: []float64{20}},
		"decreasing":    {XValues: []float64{20, 10}},
		"native":        {Mode: "native"},
		"frac steps":    {FracSteps: 201},
		"one cell":      {NX: 1},
	} {
		if _, err := WhatIfOf(nil, s, w, o); err == nil {
			t.Errorf("%s: no error", name)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", name, err)
		}
	}
}

// The what-if grid of a big+npu split on rk3588-npu (sim.BestN per cell)
// over the NPU's effective TOPS and submit latency.
func TestSweepWhatIfNWay(t *testing.T) {
	skipShort(t)
	s, w := load(t, "rk3588-npu")
	t0 := time.Now()
	d, err := WhatIfOf(nil, s, w, WhatIfOptions{Poll: 50, Engines: []string{"big", "npu"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("8x6 big+npu what-if swept in %v", time.Since(t0))
	if !d.NWay || !d.LogX || !d.LogY || d.XParam != ParamAccelTOPS || d.YParam != "engines.npu.submit_us" {
		t.Fatalf("N-way defaults: nway %v log %v/%v x %s y %s", d.NWay, d.LogX, d.LogY, d.XParam, d.YParam)
	}
	if len(d.X) != 8 || len(d.Y) != 6 || len(d.BestFracs) != 6 || len(d.BestFracs[0]) != 8 || len(d.BestFracs[0][0]) != 2 {
		t.Fatalf("grid %dx%d", len(d.X), len(d.Y))
	}
	if strings.Join(d.Engines, "+") != "big+npu" || !reflect.DeepEqual(d.Threads, []int{4, 3}) {
		t.Errorf("engines %v, threads %v; want big+npu, 4 and 3 (their defaults)", d.Engines, d.Threads)
	}
	// The studied point: 0.416 effective TOPS, 250 µs, a clear gain.
	if d.AtX < 0.4 || d.AtX > 0.43 || d.AtY != 250 || d.AtGain < 5 || d.AtFracs[1] < 0.5 {
		t.Errorf("studied point %.3f TOPS, %.0f µs: %+.1f%% at %v", d.AtX, d.AtY, d.AtGain, d.AtFracs)
	}
	nx, ny := len(d.X)-1, len(d.Y)-1
	g := d.Gain
	// Higher NPU throughput gains more (along x, at the lowest submit
	// latency, strictly; at the highest, not less).
	if !(g[0][nx] > g[0][0]+5) || g[ny][nx] < g[ny][0]-0.1 {
		t.Errorf("gain along x: low submit %+.2f -> %+.2f, high submit %+.2f -> %+.2f", g[0][0], g[0][nx], g[ny][0], g[ny][nx])
	}
	// Lower submit latency gains more (along y, at the highest throughput
	// strictly; at the lowest, not less).
	if !(g[0][nx] > g[ny][nx]+5) || g[0][0] < g[ny][0]-0.1 {
		t.Errorf("gain along y: fast NPU %+.2f -> %+.2f, slow NPU %+.2f -> %+.2f", g[0][nx], g[ny][nx], g[0][0], g[ny][0])
	}
	// The best split never loses much: the helper can always take nothing.
	for j, row := range g {
		for i, v := range row {
			if v < -1 {
				t.Errorf("cell (%d, %d): best gain %+.2f%%", i, j, v)
			}
			fr := d.BestFracs[j][i]
			if math.Abs(fr[0]+fr[1]-1) > 1e-9 || math.Abs(d.BestFrac[j][i]-fr[1]) > 1e-9 {
				t.Errorf("cell (%d, %d): shares %v, helpers' share %g", i, j, fr, d.BestFrac[j][i])
			}
		}
	}
	// A second, independent sweep (cells in parallel) gives the same grid.
	d2, err := WhatIfOf(nil, s, w, WhatIfOptions{Poll: 50, Engines: []string{"big", "npu"}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d, d2) {
		t.Error("two sweeps differ")
	}
}

func TestWhatIfEnginesErrors(t *testing.T) {
	s, w := load(t, "rk3588-npu")
	for name, o := range map[string]WhatIfOptions{
		"unknown":      {Engines: []string{"big", "gpu"}},
		"one":          {Engines: []string{"big"}},
		"twice":        {Engines: []string{"big", "npu", "npu"}},
		"accel first":  {Engines: []string{"npu", "big"}},
		"threads":      {Engines: []string{"big", "npu"}, Threads: []int{4}},
		"tops no npu":  {Engines: []string{"big", "little"}, XParam: ParamAccelTOPS, NX: 2, NY: 2, FracSteps: 2},
		"log negative": {Engines: []string{"big", "npu"}, XValues: []float64{-1, 1}},
	} {
		if _, err := WhatIfOf(nil, s, w, o); err == nil {
			t.Errorf("%s: no error", name)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", name, err)
		}
	}
}

// WhatIfOf grids around a prediction: over its engines, threads and poll,
// for its best split's mode unless told, with the studied point its best
// split of that mode, so the heatmap and the table agree.
func TestWhatIfOf(t *testing.T) {
	s, w := load(t, "rk3588")
	p, err := Run(Request{SoC: s, Workload: w, Threads: []int{4, 2}, Poll: 20, Draws: 4})
	if err != nil {
		t.Fatal(err)
	}
	// The options' poll and threads are p's, whatever they say.
	o := WhatIfOptions{NX: 3, NY: 2, FracSteps: 4, Poll: 90, Threads: []int{1, 1}}
	d, err := WhatIfOf(p, s, w, o)
	if err != nil {
		t.Fatal(err)
	}
	best, _ := p.Plan(p.Best.Plan.Mode, Best)
	if d.Mode != p.Best.Plan.Mode || d.Poll != 20 || strings.Join(d.Engines, "+") != "big+little" || !reflect.DeepEqual(d.Threads, []int{4, 2}) {
		t.Errorf("mode %s poll %d engines %v threads %v, want %s, 20, big+little, 4+2", d.Mode, d.Poll, d.Engines, d.Threads, p.Best.Plan.Mode)
	}
	if d.AtGain != best.GainPct || math.Abs(d.AtFrac-best.Frac()) > 1e-12 {
		t.Errorf("studied point %+.3f%% at %g, want the prediction's best %+.3f%% at %g", d.AtGain, d.AtFrac, best.GainPct, best.Frac())
	}
	// Its cells are those of the same grid swept at p's threads and poll.
	same, err := WhatIfOf(nil, s, w, WhatIfOptions{NX: 3, NY: 2, FracSteps: 4, Poll: 20, Mode: d.Mode, Engines: p.Engines, Threads: p.Threads})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Gain, same.Gain) || !reflect.DeepEqual(d.X, same.X) || !reflect.DeepEqual(d.Y, same.Y) {
		t.Errorf("cells %v, want %v (p's threads and poll)", d.Gain, same.Gain)
	}
	other, err := WhatIfOf(nil, s, w, WhatIfOptions{NX: 3, NY: 2, FracSteps: 4, Poll: 90, Mode: d.Mode, Threads: []int{1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(d.Gain, other.Gain) {
		t.Error("the options' threads and poll made no difference: the test cannot tell whose were used")
	}
	// A mode asked for is that mode's best split.
	var mode model.Mode = model.ExpertSplit
	if d.Mode == model.ExpertSplit {
		mode = model.TokenSplit
	}
	d, err = WhatIfOf(p, s, w, WhatIfOptions{NX: 2, NY: 2, FracSteps: 2, Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := p.Plan(mode, Best)
	if d.Mode != mode || d.AtGain != b.GainPct || math.Abs(d.AtFrac-b.Frac()) > 1e-12 {
		t.Errorf("%s: studied point %+.3f%% at %g, want %+.3f%% at %g", mode, d.AtGain, d.AtFrac, b.GainPct, b.Frac())
	}
	// Not the prediction's SoC or workload, or a mode it lacks: errors.
	ddr5, _ := load(t, "ddr5")
	other2 := *w
	other2.Name = "other"
	one, err := Run(Request{SoC: s, Workload: w, Modes: []model.Mode{model.TokenSplit}, Draws: 2})
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() error{
		"soc":      func() error { _, err := WhatIfOf(p, ddr5, w, WhatIfOptions{NX: 2, NY: 2}); return err },
		"workload": func() error { _, err := WhatIfOf(p, s, &other2, WhatIfOptions{NX: 2, NY: 2}); return err },
		"mode": func() error {
			_, err := WhatIfOf(one, s, w, WhatIfOptions{NX: 2, NY: 2, Mode: model.ExpertSplit})
			return err
		},
	} {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// WhatIfOf of an N-engine prediction: its cells from sim.BestN, and the
// studied point the prediction's best shares.
func TestWhatIfOfNWay(t *testing.T) {
	s, w := load(t, "rk3588-npu")
	p, err := Run(Request{SoC: s, Workload: w, Engines: []string{"big", "npu"}, Poll: 50, Draws: 2})
	if err != nil {
		t.Fatal(err)
	}
	d, err := WhatIfOf(p, s, w, WhatIfOptions{NX: 2, NY: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !d.NWay || len(d.BestFracs) != 2 || !reflect.DeepEqual(d.AtFracs, p.Best.Plan.Fracs) || d.AtGain != p.Best.GainPct {
		t.Errorf("nway %v, studied %+.2f%% at %v; want the prediction's %+.2f%% at %v", d.NWay, d.AtGain, d.AtFracs, p.Best.GainPct, p.Best.Plan.Fracs)
	}
	if math.Abs(d.AtFrac-(1-p.Best.Plan.Fracs[0])) > 1e-12 {
		t.Errorf("helpers' share %g, want %g", d.AtFrac, 1-p.Best.Plan.Fracs[0])
	}
}
