package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Heatmap axis parameters with a meaning beyond one SoC parameter path.
const (
	// ParamDRAM is the DRAM system's sustained bandwidth in GB/s. Setting
	// it scales dram.sustained_gb_s, dram.peak_gb_s and every engine's
	// bandwidth_max_gb_s by the same factor: faster memory lets each
	// cluster pull proportionally more, so the clusters' shares of the bus
	// stay as calibrated.
	ParamDRAM = "dram"
	// ParamComputeRatio is the second (little) engine's per-core matmul
	// rate for the workload's dominant kernel class over the first (big)
	// engine's (kernel_ops_per_cycle x clock). Setting it scales all of
	// the second engine's kernel_ops_per_cycle by the same factor; clocks,
	// bandwidth and scalar rates stay.
	ParamComputeRatio = "compute-ratio"
	// ParamAccelTOPS is the accelerator's effective MUL_MAT_ID throughput
	// in TOPS (sim.EffectiveTOPS for the workload's expert kernel class
	// at the plan's threads: kernel rate x clock x thread scaling x MoE
	// efficiency). Setting it scales all of the accelerator's
	// kernel_ops_per_cycle by the same factor. It needs an accelerator
	// among HeatmapOptions.Engines (the first one is varied).
	ParamAccelTOPS = "accel-tops"
)

// HeatmapOptions are the settings of SweepHeatmap.
type HeatmapOptions struct {
	// XParam and YParam are ParamDRAM, ParamComputeRatio or a SoC
	// parameter path (see model.SoC.Get); "" means ParamDRAM on x and
	// ParamComputeRatio on y.
	XParam, YParam string
	// XValues and YValues are the cell centres, increasing; nil means NX
	// (NY) values evenly from 0.5x to 3x the studied SoC's value.
	XValues, YValues []float64
	// NX and NY default to 12 and 10.
	NX, NY int
	// Mode is the split mode; "" means model.TokenSplit.
	Mode model.Mode
	// Poll is the pools' spin level, 0..100.
	Poll int
	// BigThreads and LittleThreads default to min(4, the engine's cores) when zero.
	BigThreads, LittleThreads int
	// FracSteps is how many little fractions in (0, sim.MaxSecondFrac]
	// each cell tries (evenly spaced); zero means 20 (steps of 0.025).
	FracSteps int
	// Engines names the split's engines, main first; nil means the SoC's
	// first two, split as above. Two CPU clusters are split as above too.
	// With more than two engines, or an accelerator among them, each
	// cell's value is the best gain over native that sim.BestN finds over
	// all of them (FracSteps is unused); NX and NY then default to 8 and
	// 6, and with an accelerator x and y default to ParamAccelTOPS and its
	// submit latency (engines.NAME.submit_us), both on geometric grids
	// drawn on log axes: 1/32x..4x and 1/4x..256x the studied values.
	Engines []string
	// Threads are the threads of each of Engines; nil means BigThreads
	// for the first, then LittleThreads when set, else min(4, cores).
	Threads []int
}

// HeatmapData is the best split's gain over native across two SoC
// parameters.
type HeatmapData struct {
	SoC, Workload string
	Mode          model.Mode
	Poll          int
	XParam        string
	YParam        string
	XLabel        string
	YLabel        string
	// X and Y are the cell centres, increasing.
	X, Y []float64
	// Gain[j][i] is the best split's gain over native in percent at
	// (X[i], Y[j]); BestFrac[j][i] is the little fraction that gives it.
	Gain     [][]float64
	BestFrac [][]float64
	// AtX, AtY locate the studied SoC; AtGain and AtFrac are its best
	// gain (percent) and fraction, from sim.Best.
	AtX, AtY       float64
	AtGain, AtFrac float64
	// Engines are the split's engines, main first.
	Engines []string
	// NWay is set when the cells come from sim.BestN over Engines (more
	// than two, or an accelerator among them). BestFrac then holds the
	// share of all engines after the first; BestFracs[j][i] and AtFracs
	// hold every engine's share.
	NWay      bool
	BestFracs [][][]float64
	AtFracs   []float64
	// LogX and LogY draw the axis on a log scale (the values are then
	// positive).
	LogX, LogY bool
}

// heatParam is one axis of the heatmap: how to read and set it.
type heatParam struct {
	name, label string
	get         func(s *model.SoC) (float64, error)
	set         func(s *model.SoC, v float64) error
	// log: default values on a geometric grid from lo to hi times the
	// studied value, drawn on a log axis.
	log    bool
	lo, hi float64
}

// heatEngines are the engines a heatmap splits over, by index in the
// SoC's Engines: first and second are the compute ratio's, accel the
// first accelerator's (-1: none) and accelThreads its threads.
type heatEngines struct {
	first, second, accel, accelThreads int
}

// dominantClass is the kernel class of the workload's routed-expert ops
// with the most operations (the ops a split divides), or of all matmuls
// when there are none.
func dominantClass(w *model.Workload) string {
	by := map[string]float64{}
	var all = map[string]float64{}
	for _, op := range w.Ops(0) {
		switch op.Kind {
		case model.ExpertMatmul:
			by[op.Class] += op.Ops
			all[op.Class] += op.Ops
		case model.Matmul:
			all[op.Class] += op.Ops
		}
	}
	if len(by) == 0 {
		by = all
	}
	best, bv := "q4", -1.0
	for _, c := range []string{"q4", "q6", "q8", "f16", "f32"} {
		if by[c] > bv {
			best, bv = c, by[c]
		}
	}
	return best
}

func scaleParams(s *model.SoC, k float64, paths []string) error {
	for _, p := range paths {
		v, err := s.Get(p)
		if err != nil {
			return err
		}
		if err := s.Set(p, v*k); err != nil {
			return err
		}
	}
	return nil
}

func heatParamFor(name string, s *model.SoC, w *model.Workload, he heatEngines) (heatParam, error) {
	switch name {
	case ParamDRAM:
		get := func(s *model.SoC) (float64, error) { return s.DRAM.SustainedGBs, nil }
		return heatParam{name: name, label: "DRAM sustained bandwidth (GB/s; cluster caps scaled with it)", get: get,
			set: func(s *model.SoC, v float64) error {
				if !(v > 0) || s.DRAM.SustainedGBs <= 0 {
					return fmt.Errorf("plots: DRAM bandwidth %g GB/s is not positive", v)
				}
				paths := []string{"dram.sustained_gb_s", "dram.peak_gb_s"}
				for _, e := range s.Engines {
					paths = append(paths, "engines."+e.Name+".bandwidth_max_gb_s")
				}
				return scaleParams(s, v/s.DRAM.SustainedGBs, paths)
			}}, nil
	case ParamComputeRatio:
		if len(s.Engines) < 2 {
			return heatParam{}, fmt.Errorf("plots: %s has one engine; a compute ratio needs two", s.Name)
		}
		class := dominantClass(w)
		get := func(s *model.SoC) (float64, error) {
			big, little := &s.Engines[he.first], &s.Engines[he.second]
			b := big.KernelOpsPerCycle[class] * big.ClockGHz
			if !(b > 0) {
				return 0, fmt.Errorf("plots: engine %s has no %s rate", big.Name, class)
			}
			return little.KernelOpsPerCycle[class] * little.ClockGHz / b, nil
		}
		return heatParam{name: name,
			label: fmt.Sprintf("%s/%s per-core matmul rate (%s, ops/cycle x GHz)", s.Engines[he.second].Name, s.Engines[he.first].Name, class),
			get:   get,
			set: func(s *model.SoC, v float64) error {
				r0, err := get(s)
				if err != nil {
					return err
				}
				if !(v > 0) || !(r0 > 0) {
					return fmt.Errorf("plots: compute ratio %g is not positive", v)
				}
				e := &s.Engines[he.second]
				for k, x := range e.KernelOpsPerCycle {
					e.KernelOpsPerCycle[k] = x * v / r0
				}
				return nil
			}}, nil
	case ParamAccelTOPS:
		if he.accel < 0 {
			return heatParam{}, fmt.Errorf("plots: %s needs an accelerator among the split's engines", ParamAccelTOPS)
		}
		class := sim.ExpertClass(w)
		get := func(s *model.SoC) (float64, error) {
			return sim.EffectiveTOPS(&s.Engines[he.accel], class, he.accelThreads), nil
		}
		return heatParam{name: name,
			label: fmt.Sprintf("%s effective MUL_MAT_ID throughput (%s, %d cores, TOPS; log scale)", s.Engines[he.accel].Name, class, he.accelThreads),
			get:   get,
			set: func(s *model.SoC, v float64) error {
				r0, _ := get(s)
				if !(v > 0) || !(r0 > 0) || !finite(v) {
					return fmt.Errorf("plots: accelerator throughput %g TOPS is not positive", v)
				}
				e := &s.Engines[he.accel]
				for k, x := range e.KernelOpsPerCycle {
					e.KernelOpsPerCycle[k] = x * v / r0
				}
				return nil
			},
			log: true, lo: 1.0 / 32, hi: 4}, nil
	}
	if _, err := s.Get(name); err != nil {
		return heatParam{}, fmt.Errorf("plots: %w (or use %s, %s or %s)", err, ParamDRAM, ParamComputeRatio, ParamAccelTOPS)
	}
	p := heatParam{name: name, label: name,
		get: func(s *model.SoC) (float64, error) { return s.Get(name) },
		set: func(s *model.SoC, v float64) error { return s.Set(name, v) }}
	if he.accel >= 0 && name == submitPath(s.Engines[he.accel].Name) {
		p.label = s.Engines[he.accel].Name + " submit latency per job (µs; log scale)"
		p.log, p.lo, p.hi = true, 0.25, 256
	}
	return p, nil
}

// submitPath is the parameter path of an accelerator's submit latency.
func submitPath(engine string) string { return "engines." + engine + ".submit_us" }

func axisValues(given []float64, n int, base float64, name string, p heatParam) ([]float64, error) {
	if given != nil {
		if len(given) < 2 {
			return nil, fmt.Errorf("plots: %s needs at least two values", name)
		}
		for i, v := range given {
			if !finite(v) || (i > 0 && v <= given[i-1]) {
				return nil, fmt.Errorf("plots: %s values are not finite and increasing at %d", name, i)
			}
			if p.log && !(v > 0) {
				return nil, fmt.Errorf("plots: %s value %g is not positive (a log axis)", name, v)
			}
		}
		return append([]float64(nil), given...), nil
	}
	if n < 2 || n > 200 {
		return nil, fmt.Errorf("plots: %d %s cells is outside 2..200", n, name)
	}
	if !(base > 0) || !finite(base) {
		return nil, fmt.Errorf("plots: %s is %g at the studied SoC; give its values explicitly", name, base)
	}
	out := make([]float64, n)
	for i := range out {
		if p.log {
			out[i] = base * p.lo * math.Pow(p.hi/p.lo, float64(i)/float64(n-1))
		} else {
			out[i] = base * (0.5 + 2.5*float64(i)/float64(n-1))
		}
	}
	return out, nil
}

// SweepHeatmap computes, on a grid of what-if variants of s, the best
// split's gain over native: at each cell a native run and FracSteps split
// runs, all in one sim.Sweep; or, for an N-engine split (see
// HeatmapOptions.Engines), a native run and sim.BestN, cells in parallel.
func SweepHeatmap(s *model.SoC, w *model.Workload, o HeatmapOptions) (HeatmapData, error) {
	if len(s.Engines) < 2 {
		return HeatmapData{}, fmt.Errorf("plots: %s has one engine; a split needs two", s.Name)
	}
	he, nway, err := heatmapEngines(s, o.Engines)
	if err != nil {
		return HeatmapData{}, err
	}
	bt, lt, nx, ny, fs := o.BigThreads, o.LittleThreads, o.NX, o.NY, o.FracSteps
	if bt == 0 {
		bt = min(4, s.Engines[0].Cores)
	}
	var threads []int
	if nway {
		if threads, err = heatmapThreads(s, o); err != nil {
			return HeatmapData{}, err
		}
		for i, n := range o.Engines {
			if _, k, _ := s.Engine(n); k == he.accel {
				he.accelThreads = threads[i]
			}
		}
	} else if o.Threads != nil {
		if len(o.Threads) != 2 {
			return HeatmapData{}, fmt.Errorf("plots: %d thread counts for 2 engines", len(o.Threads))
		}
		bt, lt = o.Threads[0], o.Threads[1]
	}
	if lt == 0 {
		lt = min(4, s.Engines[1].Cores)
	}
	if nx == 0 {
		nx = 12
		if nway {
			nx = 8
		}
	}
	if ny == 0 {
		ny = 10
		if nway {
			ny = 6
		}
	}
	if fs == 0 {
		fs = 20
	}
	if fs < 1 || fs > 200 {
		return HeatmapData{}, fmt.Errorf("plots: %d fraction steps is outside 1..200", fs)
	}
	mode := o.Mode
	if mode == "" {
		mode = model.TokenSplit
	}
	if mode == model.Native {
		return HeatmapData{}, errors.New("plots: a heatmap of gain over native needs a split mode")
	}
	xn, yn := o.XParam, o.YParam
	if xn == "" {
		xn = ParamDRAM
		if he.accel >= 0 {
			xn = ParamAccelTOPS
		}
	}
	if yn == "" {
		yn = ParamComputeRatio
		if he.accel >= 0 {
			yn = submitPath(s.Engines[he.accel].Name)
		}
	}
	if xn == yn {
		return HeatmapData{}, fmt.Errorf("plots: x and y are both %s", xn)
	}
	xp, err := heatParamFor(xn, s, w, he)
	if err != nil {
		return HeatmapData{}, err
	}
	yp, err := heatParamFor(yn, s, w, he)
	if err != nil {
		return HeatmapData{}, err
	}
	x0, err := xp.get(s)
	if err != nil {
		return HeatmapData{}, err
	}
	y0, err := yp.get(s)
	if err != nil {
		return HeatmapData{}, err
	}
	xs, err := axisValues(o.XValues, nx, x0, "x ("+xn+")", xp)
	if err != nil {
		return HeatmapData{}, err
	}
	ys, err := axisValues(o.YValues, ny, y0, "y ("+yn+")", yp)
	if err != nil {
		return HeatmapData{}, err
	}
	variants := make([]*model.SoC, 0, len(xs)*len(ys))
	for _, y := range ys {
		for _, x := range xs {
			v := s.Clone()
			if err := xp.set(v, x); err != nil {
				return HeatmapData{}, err
			}
			if err := yp.set(v, y); err != nil {
				return HeatmapData{}, err
			}
			if err := v.Validate(); err != nil {
				return HeatmapData{}, fmt.Errorf("plots: what-if %s=%g, %s=%g: %w", xn, x, yn, y, err)
			}
			variants = append(variants, v)
		}
	}
	d := HeatmapData{SoC: s.Name, Workload: w.Name, Mode: mode, Poll: o.Poll, XParam: xn, YParam: yn,
		XLabel: xp.label, YLabel: yp.label, X: xs, Y: ys, AtX: x0, AtY: y0, LogX: xp.log, LogY: yp.log}
	if nway {
		d.Engines, d.NWay = append([]string(nil), o.Engines...), true
		plan := model.Plan{Mode: mode, Engines: d.Engines, Threads: threads, Poll: o.Poll}
		if err := sweepHeatmapN(&d, variants, w, plan); err != nil {
			return HeatmapData{}, err
		}
		native := model.NewNative(plan.Engines[0], threads[0], o.Poll)
		nr, err := sim.Run(s, w, native)
		if err != nil {
			return HeatmapData{}, err
		}
		fr, br, err := sim.BestN(s, w, plan)
		if err != nil {
			return HeatmapData{}, err
		}
		d.AtGain, d.AtFrac, d.AtFracs = sim.GainPct(br.TPS, nr.TPS), 1-fr[0], fr
		return d, nil
	}
	big, little := s.Engines[he.first].Name, s.Engines[he.second].Name
	d.Engines = []string{big, little}
	native := model.NewNative(big, bt, o.Poll)
	per := fs + 1
	cfgs := make([]sim.Config, 0, len(variants)*per)
	for _, v := range variants {
		cfgs = append(cfgs, sim.Config{SoC: v, Plan: native})
		for k := 1; k <= fs; k++ {
			f := sim.MaxSecondFrac * float64(k) / float64(fs)
			cfgs = append(cfgs, sim.Config{SoC: v, Plan: model.NewSplit(mode, big, little, bt, lt, f, o.Poll)})
		}
	}
	res, err := sim.Sweep(w, cfgs)
	if err != nil {
		return HeatmapData{}, err
	}
	c := 0
	for range ys {
		grow := make([]float64, len(xs))
		frow := make([]float64, len(xs))
		for i := range xs {
			nat := res[c].TPS
			best, bf := math.Inf(-1), 0.0
			for k := 1; k <= fs; k++ {
				if t := res[c+k].TPS; t > best {
					best, bf = t, cfgs[c+k].Plan.Fracs[1]
				}
			}
			grow[i], frow[i] = sim.GainPct(best, nat), bf
			c += per
		}
		d.Gain = append(d.Gain, grow)
		d.BestFrac = append(d.BestFrac, frow)
	}
	nr, err := sim.Run(s, w, native)
	if err != nil {
		return HeatmapData{}, err
	}
	bf, br, err := sim.Best(s, w, model.NewSplit(mode, big, little, bt, lt, 0, o.Poll))
	if err != nil {
		return HeatmapData{}, err
	}
	d.AtGain, d.AtFrac = sim.GainPct(br.TPS, nr.TPS), bf
	return d, nil
}

// heatmapEngines checks the engines of a heatmap's split and says whether
// it is an N-engine one (more than two engines, or an accelerator).
func heatmapEngines(s *model.SoC, names []string) (heatEngines, bool, error) {
	he := heatEngines{first: 0, second: 1, accel: -1}
	if names == nil {
		return he, false, nil
	}
	if len(names) < 2 {
		return he, false, fmt.Errorf("plots: %d engine; a split needs two or more", len(names))
	}
	if len(names) > sim.MaxBestNEngines {
		return he, false, fmt.Errorf("plots: %d engines; at most %d", len(names), sim.MaxBestNEngines)
	}
	seen := map[string]bool{}
	for i, n := range names {
		e, k, err := s.Engine(n)
		if err != nil {
			return he, false, fmt.Errorf("plots: %w", err)
		}
		if seen[n] {
			return he, false, fmt.Errorf("plots: engine %q listed twice", n)
		}
		seen[n] = true
		switch {
		case i == 0 && e.IsAccelerator():
			return he, false, fmt.Errorf("plots: the first engine is the main one; %q is an accelerator (%s)", n, e.Kind)
		case i == 0:
			he.first = k
		case i == 1:
			he.second = k
		}
		if e.IsAccelerator() && he.accel < 0 {
			he.accel = k
		}
	}
	return he, len(names) > 2 || he.accel >= 0, nil
}

// heatmapThreads are the threads of an N-engine heatmap's engines.
func heatmapThreads(s *model.SoC, o HeatmapOptions) ([]int, error) {
	if o.Threads != nil {
		if len(o.Threads) != len(o.Engines) {
			return nil, fmt.Errorf("plots: %d thread counts for %d engines", len(o.Threads), len(o.Engines))
		}
		return append([]int(nil), o.Threads...), nil
	}
	th := make([]int, len(o.Engines))
	for i, n := range o.Engines {
		e, _, _ := s.Engine(n)
		th[i] = min(4, e.Cores)
		switch {
		case i == 0 && o.BigThreads > 0:
			th[i] = o.BigThreads
		case i > 0 && o.LittleThreads > 0:
			th[i] = o.LittleThreads
		}
	}
	return th, nil
}

// sweepHeatmapN fills d's cells, one what-if SoC per cell (row by row),
// with the best gain sim.BestN finds for plan over native. Cells run in
// parallel; each is deterministic, so the result does not depend on the
// order.
func sweepHeatmapN(d *HeatmapData, variants []*model.SoC, w *model.Workload, plan model.Plan) error {
	nx := len(d.X)
	gains := make([]float64, len(variants))
	fracs := make([][]float64, len(variants))
	errs := make([]error, len(variants))
	native := model.NewNative(plan.Engines[0], plan.Threads[0], plan.Poll)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for k := 0; k < max(1, min(runtime.GOMAXPROCS(0), len(variants))); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				nr, err := sim.Run(variants[c], w, native)
				if err != nil {
					errs[c] = err
					continue
				}
				fr, br, err := sim.BestN(variants[c], w, plan)
				if err != nil {
					errs[c] = err
					continue
				}
				gains[c], fracs[c] = sim.GainPct(br.TPS, nr.TPS), fr
			}
		}()
	}
	for c := range variants {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	for j := 0; j < len(variants)/nx; j++ {
		grow := make([]float64, nx)
		frow := make([]float64, nx)
		frs := make([][]float64, nx)
		for i := range grow {
			c := j*nx + i
			grow[i], frow[i], frs[i] = gains[c], 1-fracs[c][0], fracs[c]
		}
		d.Gain = append(d.Gain, grow)
		d.BestFrac = append(d.BestFrac, frow)
		d.BestFracs = append(d.BestFracs, frs)
	}
	return nil
}

// gainGrid adapts HeatmapData to plotter.GridXYZ, in plot coordinates
// (log10 of the values on a log axis).
type gainGrid struct{ d *HeatmapData }

func (g gainGrid) Dims() (c, r int)   { return len(g.d.X), len(g.d.Y) }
func (g gainGrid) Z(c, r int) float64 { return g.d.Gain[r][c] }
func (g gainGrid) X(c int) float64    { return axisCoord(g.d.X[c], g.d.LogX) }
func (g gainGrid) Y(r int) float64    { return axisCoord(g.d.Y[r], g.d.LogY) }

// axisCoord is where value v sits on an axis: v, or log10 v on a log axis.
// A log axis is drawn in log10 coordinates (so that heatmap cells and
// contours are even in it) and labelled by heatLogTicks with the values.
func axisCoord(v float64, log bool) float64 {
	if log {
		return math.Log10(v)
	}
	return v
}

// heatLogTicks labels a heatmap axis drawn in log10 coordinates with the
// values: 1-2-5 per decade, 1-3 over more than three decades, finer over
// less than about one (log10Ticks labels only decades over wide ranges,
// too few for a heatmap's axis).
type heatLogTicks struct{}

func (heatLogTicks) Ticks(lo, hi float64) []plot.Tick {
	mant := []float64{1, 2, 5}
	switch span := hi - lo; {
	case span > 3:
		mant = []float64{1, 3}
	case span < 1.2:
		mant = []float64{1, 1.5, 2, 3, 5, 7}
	}
	var ticks []plot.Tick
	for k := math.Floor(lo) - 1; k <= math.Ceil(hi); k++ {
		for _, m := range mant {
			v := m * math.Pow(10, k)
			lv := math.Log10(v)
			if lv < lo-1e-9 || lv > hi+1e-9 {
				continue
			}
			// Round away binary noise (0.30000000000000004).
			r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
			ticks = append(ticks, plot.Tick{Value: lv, Label: strconv.FormatFloat(r, 'f', -1, 64)})
		}
	}
	return ticks
}

// filledPalette is p with any nil colour (moreland's diverging map fails
// at its exact midpoint, so the palette's middle entry is nil and a cell
// of gain ~0 would be left blank) replaced by its neighbour's.
func filledPalette(p palette.Palette) palette.Palette {
	cs := append([]color.Color(nil), p.Colors()...)
	for i, c := range cs {
		if c != nil {
			continue
		}
		switch {
		case i+1 < len(cs) && cs[i+1] != nil:
			cs[i] = cs[i+1]
		case i > 0:
			cs[i] = cs[i-1]
		}
	}
	return colors(cs)
}

// colors is a palette.Palette of fixed colours.
type colors []color.Color

func (c colors) Colors() []color.Color { return c }

// shareText lists the shares of the engines after the first: "npu 0.76".
func shareText(engines []string, fracs []float64) string {
	var parts []string
	for i := 1; i < len(engines) && i < len(fracs); i++ {
		parts = append(parts, fmt.Sprintf("%s %.2f", engines[i], fracs[i]))
	}
	return strings.Join(parts, ", ")
}

func increasing(v []float64) bool {
	for i, x := range v {
		if !finite(x) || (i > 0 && x <= v[i-1]) {
			return false
		}
	}
	return true
}

func (d *HeatmapData) check() (maxAbs float64, err error) {
	if len(d.X) < 2 || len(d.Y) < 2 {
		return 0, errors.New("plots: heatmap needs at least 2x2 cells")
	}
	if !increasing(d.X) || !increasing(d.Y) {
		return 0, errors.New("plots: heatmap axes are not finite and increasing")
	}
	if len(d.Gain) != len(d.Y) {
		return 0, fmt.Errorf("plots: heatmap has %d gain rows for %d y values", len(d.Gain), len(d.Y))
	}
	for j, row := range d.Gain {
		if len(row) != len(d.X) {
			return 0, fmt.Errorf("plots: heatmap row %d has %d gains for %d x values", j, len(row), len(d.X))
		}
		for i, g := range row {
			if !finite(g) {
				return 0, fmt.Errorf("plots: heatmap gain at (%d, %d) is %g", i, j, g)
			}
			maxAbs = math.Max(maxAbs, math.Abs(g))
		}
	}
	if !finite(d.AtX) || !finite(d.AtY) || !finite(d.AtGain) {
		return 0, errors.New("plots: heatmap's studied point is not finite")
	}
	if (d.LogX && !(d.X[0] > 0 && d.AtX > 0)) || (d.LogY && !(d.Y[0] > 0 && d.AtY > 0)) {
		return 0, errors.New("plots: heatmap has a log axis with values that are not positive")
	}
	return maxAbs, nil
}

// crosses says whether the gain reaches level somewhere and exceeds it
// somewhere else: whether a contour at level is drawn.
func (d *HeatmapData) crosses(level float64) bool {
	below, above := false, false
	for _, row := range d.Gain {
		for _, g := range row {
			below = below || g <= level
			above = above || g > level
		}
	}
	return below && above
}

// Heatmap draws d: the gain as colour on a diverging scale centred on 0
// (red loses, blue gains, symmetric range), the parity contour (gain 0)
// and the ±1% parity band as contours, the studied SoC as a labelled
// marker, and a colour bar.
func Heatmap(d HeatmapData) (*Figure, error) {
	maxAbs, err := d.check()
	if err != nil {
		return nil, err
	}
	// Symmetric range, at least ±2% so the ±1% band is inside it and
	// Min < Max.
	lim := math.Max(2, math.Ceil(maxAbs))
	cm := moreland.SmoothBlueRed()
	cm.SetMin(-lim)
	cm.SetMax(lim)
	rev := palette.Reverse(cm) // blue gains, red loses
	p := plot.New()
	hm := plotter.NewHeatMap(gainGrid{&d}, filledPalette(rev.Palette(255)))
	hm.Min, hm.Max = -lim, lim
	p.Add(hm)
	fig := &Figure{
		Title: fmt.Sprintf("%s: best %s-split gain over native (poll %d), what-if around %s", d.Workload, d.Mode, d.Poll, d.SoC),
	}
	if d.NWay {
		fig.Title = fmt.Sprintf("%s: best %s split over %s (BestN) vs native (poll %d), what-if around %s",
			d.Workload, d.Mode, strings.Join(d.Engines, "+"), d.Poll, d.SoC)
	}
	for _, c := range []struct {
		level float64
		name  string
		style draw.LineStyle
	}{
		{0, "gain 0 (parity)", draw.LineStyle{Color: black, Width: vg.Points(2)}},
		{1, "±1% (parity band)", draw.LineStyle{Color: black, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}},
		{-1, "", draw.LineStyle{Color: black, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}},
	} {
		ct := plotter.NewContour(gainGrid{&d}, []float64{c.level}, nil)
		ct.LineStyles = []draw.LineStyle{c.style}
		ct.Min, ct.Max = -lim, lim
		p.Add(ct)
		if c.name != "" && !(d.NWay && !d.crosses(c.level)) {
			// An N-engine heatmap's best split can always give the
			// helpers nothing, so it rarely loses: its legend names only
			// the contours it has.
			l, err := plotter.NewLine(plotter.XYs{{}, {X: 1}})
			if err != nil {
				return nil, err
			}
			l.LineStyle = c.style
			fig.Legend = append(fig.Legend, LegendEntry{c.name, l})
		}
	}
	// Cell edges: half a cell beyond the first and last centres (in plot
	// coordinates).
	g := gainGrid{&d}
	nx, ny := g.Dims()
	xmin := g.X(0) - (g.X(1)-g.X(0))/2
	xmax := g.X(nx-1) + (g.X(nx-1)-g.X(nx-2))/2
	ymin := g.Y(0) - (g.Y(1)-g.Y(0))/2
	ymax := g.Y(ny-1) + (g.Y(ny-1)-g.Y(ny-2))/2
	atX, atY := axisCoord(d.AtX, d.LogX), axisCoord(d.AtY, d.LogY)
	if atX >= xmin && atX <= xmax && atY >= ymin && atY <= ymax {
		sc, err := plotter.NewScatter(plotter.XYs{{X: atX, Y: atY}})
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: black, Radius: vg.Points(5), Shape: draw.RingGlyph{}}
		in, err := plotter.NewScatter(plotter.XYs{{X: atX, Y: atY}})
		if err != nil {
			return nil, err
		}
		in.GlyphStyle = draw.GlyphStyle{Color: color.White, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(in, sc)
		label, entry := fmt.Sprintf("%s: %+.1f%% at %.3f", d.SoC, d.AtGain, d.AtFrac), "studied SoC (best gain at its best fraction)"
		if d.NWay {
			label = fmt.Sprintf("%s: %+.1f%% (%s)", d.SoC, d.AtGain, shareText(d.Engines, d.AtFracs))
			entry = "studied SoC (best gain at its best shares)"
		}
		p.Add(&pointLabels{xys: plotter.XYs{{X: atX, Y: atY}},
			labels: []string{label},
			style:  labelText{size: 10, background: true}})
		fig.Legend = append(fig.Legend, LegendEntry{entry, sc})
	}
	p.X.Label.Text = d.XLabel
	p.Y.Label.Text = d.YLabel
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xmin, xmax, ymin, ymax
	if d.LogX {
		p.X.Tick.Marker = heatLogTicks{}
	}
	if d.LogY {
		p.Y.Tick.Marker = heatLogTicks{}
	}

	bar := plot.New()
	cb := &plotter.ColorBar{ColorMap: rev}
	bar.Add(cb)
	bar.HideY()
	bar.X.Label.Text = fmt.Sprintf("best %s-split gain over native (%%)", d.Mode)
	if d.NWay {
		bar.X.Label.Text = fmt.Sprintf("best %s-split gain over native, %s (%%)", d.Mode, strings.Join(d.Engines, "+"))
	}
	bar.X.Min, bar.X.Max = -lim, lim
	fig.Panels = []*plot.Plot{p, bar}
	fig.Heights = []float64{8, 1.3}
	return fig, nil
}
