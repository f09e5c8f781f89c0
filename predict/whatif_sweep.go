package predict

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// WhatIfOptions are the settings of WhatIfOf.
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
	// FracSteps chooses how a two-engine cell searches for its best
	// share. Zero: near the share its neighbours found
	// (sim.Evaluator.BestNear), from the cell's left and lower
	// neighbours' best shares, extrapolated; the first cell starts from
	// the studied SoC's best share; each cell also runs the dispatcher
	// alone (share 0). Above zero: each cell on its own, a grid of that
	// many intervals over [0, 1] refined by golden section
	// (sim.Evaluator.BestCoarse). Either finds a best share within
	// nearTol (0.005) of a maximum; the neighbours' search runs about a
	// fifth of the simulations and misses a higher maximum far from its
	// neighbours' (docs/verdicts.md measures what it changes).
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
	// Threads are the threads of each of Engines (of the SoC's first two
	// when Engines is nil); nil means each engine's DefaultThreads
	// (min(4, its cores)).
	Threads []int
	// Progress, when not nil, is called after each cell of the grid
	// (an N-engine cell is a sim.Evaluator.BestN: seconds to minutes)
	// with the cells done and their total, one call at a time.
	Progress measure.Progress
}

// WhatIfOf computes, on a grid of what-if variants of s, the best
// split's gain over native: at each cell a native run and the best share
// (sim.Evaluator.BestCoarse), or for an N-engine split (see
// WhatIfOptions.Engines) sim.Evaluator.BestN, cells in parallel; and each
// cell's verdict by sim.JudgePlan, with the studied SoC's best split's
// interval moved to the cell's gain (a what-if has no draws of its own).
//
// With a prediction p, the grid is around p, of the SoC and workload p
// was predicted on: over p's engines, threads and poll, for o.Mode ("":
// the mode of p's best split); the studied SoC's point is p's best split
// of that mode, so the figure and the table cannot disagree. o's engines,
// threads and poll are p's. With p nil, the grid is around s over o's
// engines, threads and poll, and its studied point is predicted here.
func WhatIfOf(p *Prediction, s *model.SoC, w *model.Workload, o WhatIfOptions) (WhatIf, error) {
	if p == nil {
		return sweepWhatIf(s, w, o, nil)
	}
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
	return sweepWhatIf(s, w, o, &b)
}

// sweepWhatIf is WhatIfOf; at, when not nil, is the studied SoC's best
// split of the mode, already predicted.
func sweepWhatIf(s *model.SoC, w *model.Workload, o WhatIfOptions, at *PlanPrediction) (WhatIf, error) {
	if len(s.Engines) < 2 {
		return WhatIf{}, fmt.Errorf("whatif: %s has one engine; a split needs two", s.Name)
	}
	he, nway, err := heatmapEngines(s, o.Engines)
	if err != nil {
		return WhatIf{}, err
	}
	bt, lt, nx, ny, fs := s.Engines[he.first].DefaultThreads(), s.Engines[he.second].DefaultThreads(), o.NX, o.NY, o.FracSteps
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
	if fs < 0 || fs > 200 {
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
	var plan model.Plan
	if nway {
		d.Engines, d.NWay = append([]string(nil), o.Engines...), true
		d.Threads = append([]int(nil), threads...)
	} else {
		d.Engines = []string{s.Engines[he.first].Name, s.Engines[he.second].Name}
		d.Threads = []int{bt, lt}
	}
	plan = model.Plan{Mode: mode, Engines: d.Engines, Threads: d.Threads, Poll: o.Poll}
	native := model.NewNative(plan.Engines[0], plan.Threads[0], o.Poll)
	ev := sim.NewEvaluator(s, w, 0)
	if at == nil {
		// The studied SoC's best split, searched as the table searches it,
		// and its interval.
		nr, err := ev.Run(native)
		if err != nil {
			return WhatIf{}, err
		}
		bp, br, err := ev.Best(plan)
		if err != nil {
			return WhatIf{}, err
		}
		iv, err := ev.Interval(native, bp)
		if err != nil {
			return WhatIf{}, err
		}
		g := sim.GainPct(br.TPS, nr.TPS)
		at = &PlanPrediction{Kind: Best, Plan: bp, GainPct: g, Interval: iv, Verdict: sim.JudgePlan(bp, g, iv)}
	}
	d.AtGain, d.AtFrac, d.AtInterval, d.AtVerdict = at.GainPct, 1-at.Plan.Fracs[0], at.Interval, at.Verdict
	if nway {
		d.AtFracs = append([]float64(nil), at.Plan.Fracs...)
	}
	// Native runs on the main engine alone: along an axis that changes
	// another engine only, it runs the same in every cell, and once. So
	// does the dispatcher alone (a two-engine split with every share on
	// the main engine) along an axis that changes only another engine's
	// kernel rates (heatParam.rates), which an engine with no work never
	// reads: each cell's search takes it from the cell that ran it.
	cols := len(xs)
	other := func(p heatParam) bool { return p.engine != "" && p.engine != native.Engines[0] }
	// repOf is the cell that runs cell c's plan: the axes' first cell
	// along an axis where the plan runs the same.
	repOf := func(c int, sameX, sameY bool) int {
		i, j := c%cols, c/cols
		if sameX {
			i = 0
		}
		if sameY {
			j = 0
		}
		return j*cols + i
	}
	natCell := func(c int) int { return repOf(c, other(xp), other(yp)) }
	aloneCell := func(c int) int { return repOf(c, other(xp) && xp.rates, other(yp) && yp.rates) }
	alonePlan := plan
	alonePlan.Fracs = []float64{1, 0}
	d.NativeTPS = make([][]float64, len(ys))
	for j := range d.NativeTPS {
		d.NativeTPS[j] = make([]float64, cols)
	}
	// runs are the cells' plans to run once: native (alone false) and,
	// for a two-engine split, the dispatcher alone.
	type rep struct {
		c     int
		alone bool
	}
	var runs []rep
	for c := range variants {
		if natCell(c) == c {
			runs = append(runs, rep{c, false})
		}
		if !nway && aloneCell(c) == c {
			runs = append(runs, rep{c, true})
		}
	}
	alone := make([]*sim.Result, len(variants))
	if err := parallelCells(len(runs), func(k int) error {
		c := runs[k].c
		if runs[k].alone {
			r, err := ev.For(variants[c]).Run(alonePlan)
			alone[c] = r
			return err
		}
		r, err := ev.For(variants[c]).Run(native)
		if err != nil {
			return err
		}
		d.NativeTPS[c/cols][c%cols] = r.TPS
		return nil
	}); err != nil {
		return WhatIf{}, err
	}
	for c := range variants {
		d.NativeTPS[c/cols][c%cols] = d.NativeTPS[natCell(c)/cols][natCell(c)%cols]
	}
	cells := make([]heatCell, len(variants))
	var mu sync.Mutex // serialises Progress
	done := 0
	cell := func(c int) error {
		cev := ev.For(variants[c])
		if !nway {
			if err := cev.Adopt(alonePlan, alone[aloneCell(c)]); err != nil {
				return err
			}
		}
		var bp model.Plan
		var br *sim.Result
		var err error
		switch {
		case nway:
			bp, br, err = cev.BestN(plan)
		case fs > 0:
			bp, br, err = cev.BestCoarse(plan, fs, nearTol)
		default:
			bp, br, err = cev.BestNear(plan, nearTol, nearStarts(cells, c, cols, 1-at.Plan.Fracs[0])...)
		}
		if err != nil {
			return err
		}
		g := sim.GainPct(br.TPS, d.NativeTPS[c/cols][c%cols])
		cells[c].gain, cells[c].fracs = g, bp.Fracs
		cells[c].v = sim.JudgePlan(bp, g, at.Interval.Moved(at.GainPct, g))
		if o.Progress != nil {
			mu.Lock()
			done++
			o.Progress(done, len(variants), "", nil)
			mu.Unlock()
		}
		return nil
	}
	if nway || fs > 0 {
		err = parallelCells(len(variants), cell)
	} else {
		// A cell's search starts where its neighbours to the left and
		// below found theirs: a wavefront, one anti-diagonal at a time,
		// the cells of each in parallel (each cell's start depends on
		// the grid alone, not on the order they finish in).
		for k := 0; k < cols+len(ys)-1 && err == nil; k++ {
			var diag []int
			for j := range ys {
				if i := k - j; i >= 0 && i < cols {
					diag = append(diag, j*cols+i)
				}
			}
			err = parallelCells(len(diag), func(n int) error { return cell(diag[n]) })
		}
	}
	if err != nil {
		return WhatIf{}, err
	}
	for j := range ys {
		grow, frow := make([]float64, cols), make([]float64, cols)
		frs, vs := make([][]float64, cols), make([]sim.Verdict, cols)
		for i := range grow {
			c := cells[j*cols+i]
			grow[i], frow[i], frs[i], vs[i] = c.gain, 1-c.fracs[0], c.fracs, c.v
		}
		d.Gain = append(d.Gain, grow)
		d.BestFrac = append(d.BestFrac, frow)
		d.Verdict = append(d.Verdict, vs)
		if nway {
			d.BestFracs = append(d.BestFracs, frs)
		}
	}
	return d, nil
}

// heatCell is a heatmap cell's best split: its gain over native, its
// shares and its verdict.
type heatCell struct {
	gain  float64
	fracs []float64
	v     sim.Verdict
}

// nearTol is how close a heatmap cell's best share is to a maximum of its
// split curve (the search's tolerance).
const nearTol = 0.005

// nearStarts are where cell c's search for its best share starts: its
// left and lower neighbours' best shares (the second engine's)
// extrapolated, the left's trend taken up by the row below (L + B − BL),
// or along the row (2L − LL) or the column (2B − BB) where the grid has no
// such three; else the nearest neighbour's share. Only shares strictly
// inside (0, 1) are used: at an end the maximum is the end, whose place
// says nothing of where an inner maximum lies. A cell whose neighbours
// found an end, or that has none, starts from at (the studied SoC's best
// share). (Starting it from the end instead, the split curve's dip just
// past the dispatcher alone holds the search there while an inner
// maximum grows higher: rk3588's slowest-DRAM row stayed at 0.)
func nearStarts(cells []heatCell, c, nx int, at float64) []float64 {
	i, j := c%nx, c/nx
	f := func(di, dj int) (float64, bool) {
		if i-di < 0 || j-dj < 0 {
			return 0, false
		}
		v := cells[c-dj*nx-di].fracs[1]
		return v, v > 0 && v < 1
	}
	l, okL := f(1, 0)
	b, okB := f(0, 1)
	bl, okBL := f(1, 1)
	ll, okLL := f(2, 0)
	bb, okBB := f(0, 2)
	switch {
	case okL && okB && okBL:
		return []float64{l + b - bl}
	case okL && okLL:
		return []float64{2*l - ll}
	case okB && okBB:
		return []float64{2*b - bb}
	case okL:
		return []float64{l}
	case okB:
		return []float64{b}
	}
	return []float64{at}
}

// parallelCells calls f for each of n cells on all cores and returns the
// first error by index. Each cell is deterministic, so the result does
// not depend on the order.
func parallelCells(n int, f func(c int) error) error {
	errs := make([]error, n)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for k := 0; k < max(1, min(runtime.GOMAXPROCS(0), n)); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				errs[c] = f(c)
			}
		}()
	}
	for c := 0; c < n; c++ {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	return errors.Join(errs...)
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
	}
	return th, nil
}
