package predict

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// WhatIfOptions are the settings of SweepWhatIf.
type WhatIfOptions struct {
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
	// BigThreads and LittleThreads default to the engine's DefaultThreads
	// (min(4, its cores)) when zero.
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
	// for the first, then LittleThreads when set, else each engine's
	// DefaultThreads (min(4, its cores)).
	Threads []int
	// Progress, when not nil, is called after each cell of an N-engine
	// grid (each a sim.BestN: seconds to minutes) with the cells done and
	// their total, from the goroutines that compute them.
	Progress func(done, total int)
}

// SweepWhatIf computes, on a grid of what-if variants of s, the best
// split's gain over native: at each cell a native run and FracSteps split
// runs, all in one sim.Sweep; or, for an N-engine split (see
// WhatIfOptions.Engines), a native run and sim.BestN, cells in parallel.
func SweepWhatIf(s *model.SoC, w *model.Workload, o WhatIfOptions) (WhatIf, error) {
	return sweepWhatIf(s, w, o, true)
}

// WhatIfOf is the what-if grid around prediction p, of the SoC and
// workload p was predicted on: over p's engines, threads and poll, for
// o.Mode ("": the mode of p's best split); the studied SoC's point is p's
// best split of that mode, so the figure and the table cannot disagree.
// o's engines, threads and poll are p's.
func WhatIfOf(p *Prediction, s *model.SoC, w *model.Workload, o WhatIfOptions) (WhatIf, error) {
	if p.SoC != s.Name || p.Workload != w.Name {
		return WhatIf{}, fmt.Errorf("whatif: the prediction is of %s on %s, not %s on %s", p.Workload, p.SoC, w.Name, s.Name)
	}
	if o.Mode == "" {
		o.Mode = p.Best.Plan.Mode
	}
	b, ok := p.Plan(o.Mode, Best)
	if !ok {
		return WhatIf{}, fmt.Errorf("whatif: the prediction has no %s split", o.Mode)
	}
	o.Engines, o.Threads, o.Poll = p.Engines, p.Threads, p.Poll
	o.BigThreads, o.LittleThreads = 0, 0
	d, err := sweepWhatIf(s, w, o, false)
	if err != nil {
		return WhatIf{}, err
	}
	d.AtGain, d.AtFrac = b.GainPct, 1-b.Plan.Fracs[0]
	if d.NWay {
		d.AtFracs = append([]float64(nil), b.Plan.Fracs...)
	}
	return d, nil
}

func sweepWhatIf(s *model.SoC, w *model.Workload, o WhatIfOptions, at bool) (WhatIf, error) {
	if len(s.Engines) < 2 {
		return WhatIf{}, fmt.Errorf("whatif: %s has one engine; a split needs two", s.Name)
	}
	he, nway, err := heatmapEngines(s, o.Engines)
	if err != nil {
		return WhatIf{}, err
	}
	bt, lt, nx, ny, fs := o.BigThreads, o.LittleThreads, o.NX, o.NY, o.FracSteps
	if bt == 0 {
		bt = s.Engines[0].DefaultThreads()
	}
	var threads []int
	if nway {
		if threads, err = heatmapThreads(s, o); err != nil {
			return WhatIf{}, err
		}
		for i, n := range o.Engines {
			if _, k, _ := s.Engine(n); k == he.accel {
				he.accelThreads = threads[i]
			}
		}
	} else if o.Threads != nil {
		if len(o.Threads) != 2 {
			return WhatIf{}, fmt.Errorf("whatif: %d thread counts for 2 engines", len(o.Threads))
		}
		bt, lt = o.Threads[0], o.Threads[1]
	}
	if lt == 0 {
		lt = s.Engines[1].DefaultThreads()
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
		return WhatIf{}, fmt.Errorf("whatif: %d fraction steps is outside 1..200", fs)
	}
	mode := o.Mode
	if mode == "" {
		mode = model.TokenSplit
	}
	if mode == model.Native {
		return WhatIf{}, errors.New("whatif: a heatmap of gain over native needs a split mode")
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
		return WhatIf{}, fmt.Errorf("whatif: x and y are both %s", xn)
	}
	xp, err := heatParamFor(xn, s, w, he)
	if err != nil {
		return WhatIf{}, err
	}
	yp, err := heatParamFor(yn, s, w, he)
	if err != nil {
		return WhatIf{}, err
	}
	x0, err := xp.get(s)
	if err != nil {
		return WhatIf{}, err
	}
	y0, err := yp.get(s)
	if err != nil {
		return WhatIf{}, err
	}
	xs, err := axisValues(o.XValues, nx, x0, "x ("+xn+")", xp)
	if err != nil {
		return WhatIf{}, err
	}
	ys, err := axisValues(o.YValues, ny, y0, "y ("+yn+")", yp)
	if err != nil {
		return WhatIf{}, err
	}
	variants := make([]*model.SoC, 0, len(xs)*len(ys))
	for _, y := range ys {
		for _, x := range xs {
			v := s.Clone()
			if err := xp.set(v, x); err != nil {
				return WhatIf{}, err
			}
			if err := yp.set(v, y); err != nil {
				return WhatIf{}, err
			}
			if err := v.Validate(); err != nil {
				return WhatIf{}, fmt.Errorf("whatif: what-if %s=%g, %s=%g: %w", xn, x, yn, y, err)
			}
			variants = append(variants, v)
		}
	}
	d := WhatIf{SoC: s.Name, Workload: w.Name, Mode: mode, Poll: o.Poll, XParam: xn, YParam: yn,
		XLabel: xp.label, YLabel: yp.label, X: xs, Y: ys, AtX: x0, AtY: y0, LogX: xp.log, LogY: yp.log}
	if nway {
		d.Engines, d.NWay = append([]string(nil), o.Engines...), true
		d.Threads = append([]int(nil), threads...)
		plan := model.Plan{Mode: mode, Engines: d.Engines, Threads: threads, Poll: o.Poll}
		if err := sweepHeatmapN(&d, variants, w, plan, o.Progress); err != nil {
			return WhatIf{}, err
		}
		if !at {
			return d, nil
		}
		native := model.NewNative(plan.Engines[0], threads[0], o.Poll)
		nr, err := sim.Run(s, w, native)
		if err != nil {
			return WhatIf{}, err
		}
		bp, br, err := sim.BestN(s, w, plan)
		if err != nil {
			return WhatIf{}, err
		}
		d.AtGain, d.AtFrac, d.AtFracs = sim.GainPct(br.TPS, nr.TPS), 1-bp.Fracs[0], bp.Fracs
		return d, nil
	}
	big, little := s.Engines[he.first].Name, s.Engines[he.second].Name
	d.Engines, d.Threads = []string{big, little}, []int{bt, lt}
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
		return WhatIf{}, err
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
	if !at {
		return d, nil
	}
	nr, err := sim.Run(s, w, native)
	if err != nil {
		return WhatIf{}, err
	}
	bp, br, err := sim.Best(s, w, model.NewSplit(mode, big, little, bt, lt, 0, o.Poll))
	if err != nil {
		return WhatIf{}, err
	}
	d.AtGain, d.AtFrac = sim.GainPct(br.TPS, nr.TPS), bp.Fracs[1]
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
		return he, false, fmt.Errorf("whatif: %d engine; a split needs two or more", len(names))
	}
	if len(names) > sim.MaxBestNEngines {
		return he, false, fmt.Errorf("whatif: %d engines; at most %d", len(names), sim.MaxBestNEngines)
	}
	seen := map[string]bool{}
	for i, n := range names {
		e, k, err := s.Engine(n)
		if err != nil {
			return he, false, fmt.Errorf("whatif: %w", err)
		}
		if seen[n] {
			return he, false, fmt.Errorf("whatif: engine %q listed twice", n)
		}
		seen[n] = true
		switch {
		case i == 0 && e.IsAccelerator():
			return he, false, fmt.Errorf("whatif: the first engine is the main one; %q is an accelerator (%s)", n, e.Kind)
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
func heatmapThreads(s *model.SoC, o WhatIfOptions) ([]int, error) {
	if o.Threads != nil {
		if len(o.Threads) != len(o.Engines) {
			return nil, fmt.Errorf("whatif: %d thread counts for %d engines", len(o.Threads), len(o.Engines))
		}
		return append([]int(nil), o.Threads...), nil
	}
	th := make([]int, len(o.Engines))
	for i, n := range o.Engines {
		e, _, _ := s.Engine(n)
		th[i] = e.DefaultThreads()
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
func sweepHeatmapN(d *WhatIf, variants []*model.SoC, w *model.Workload, plan model.Plan, progress func(done, total int)) error {
	nx := len(d.X)
	var mu sync.Mutex
	done := 0
	cellDone := func() {
		if progress != nil {
			mu.Lock()
			done++
			progress(done, len(variants))
			mu.Unlock()
		}
	}
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
				bp, br, err := sim.BestN(variants[c], w, plan)
				if err != nil {
					errs[c] = err
					continue
				}
				gains[c], fracs[c] = sim.GainPct(br.TPS, nr.TPS), bp.Fracs
				cellDone()
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
