package fit

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/blsim/blsim/internal/lm"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// DefaultFree is the set of parameters a dispatcher grid can inform: each
// engine's q4 and q8 kernel rates, bandwidth cap and burst overlap, the
// sustained DRAM bandwidth, and the handoff's wake costs.
func DefaultFree(s *model.SoC) []string {
	var out []string
	for _, e := range s.Engines {
		p := "engines." + e.Name + "."
		out = append(out, p+"kernel_ops_per_cycle.q4", p+"kernel_ops_per_cycle.q8", p+"bandwidth_max_gb_s", p+"mem_compute_overlap")
	}
	return append(out, "dram.sustained_gb_s", "handoff.futex_wake_us", "handoff.sleep_exit_us", "handoff.spin_wake_us")
}

// ErrNoThroughput is returned when a measurements set has nothing to fit.
var ErrNoThroughput = errors.New("fit: no usable throughput measurements (dispatcher, llama-bench or reported t/s)")

// Fit fits prior's free parameters to the throughput measurements in ms;
// microbenchmark measurements whose Param names a free parameter set its
// prior mean. It returns a new profile with the fitted values, their
// standard deviations in its uncertainty map and a provenance that lists
// the records fitted (model.Provenance.FittedRuns), and the fit's
// residuals.
func Fit(prior *model.SoC, ms []measure.Measurement, o Options) (*Result, error) {
	if _, err := ParseStat(string(o.Stat)); err != nil {
		return nil, fmt.Errorf("fit: %w", err)
	}
	if o.Context != nil && o.Context.Err() != nil {
		return nil, fmt.Errorf("fit: %w", o.Context.Err())
	}
	free := o.Free
	if free == nil {
		free = DefaultFree(prior)
	}
	minRel := o.MinRelSigma
	if minRel == 0 {
		minRel = 0.01
	}
	priorRel := o.PriorRelSigma
	if priorRel == 0 {
		priorRel = 0.5
	}
	pred := NewPredictor()
	pred.ctx = o.Context
	obs, skipped := runnable(prior, throughputs(ms, o.Stat), pred)
	obs, disturbed := splitDisturbed(obs)
	if len(obs) == 0 {
		if len(disturbed) > 0 {
			return nil, &InterferenceError{Disturbed: disturbed, N: len(disturbed), Stat: o.Stat}
		}
		if len(skipped) > 0 {
			return nil, fmt.Errorf("fit: no throughput can be predicted on the prior profile: %s: %s", skipped[0].Label, skipped[0].Reason)
		}
		return nil, ErrNoThroughput
	}
	kernels := o.Kernels.resolve(obs)
	var notes []string
	if kernels == KernelsForeign {
		var note string
		if prior, note = stockGraph(prior, obs); note != "" {
			notes = append(notes, note)
		}
		var added []string
		prior, added = typeRates(prior, obs, pred)
		notes = append(notes, added...)
	}
	span := spanOfObs(obs, pred)
	gaps := Gaps(span)
	var follows []follower
	if o.Free == nil && kernels == KernelsForeign {
		free = ForeignFree(prior, obs, pred)
		// The rates the runs cannot tell apart keep the prior's ratio.
		follows, free = followers(prior, free, obs, pred, gaps, span)
	}
	if o.Free == nil && kernels != KernelsForeign {
		// The dispatcher's one-token walks, where its microbenchmark
		// measured a gemv efficiency and some run walks weights for
		// fewer tokens than a tile.
		for i := range prior.Engines {
			e := &prior.Engines[i]
			if e.GemvEfficiency > 0 && !e.IsAccelerator() && shortWalks(e, obs, pred) {
				free = append(free, "engines."+e.Name+".gemv_efficiency")
			}
			if e.GemvOverlap > 0 && !e.IsAccelerator() && oneTokenGraphs(obs, pred) {
				free = append(free, "engines."+e.Name+".gemv_overlap")
			}
			if !e.IsAccelerator() && threadSpread(e.Name, obs) {
				free = append(free, "engines."+e.Name+".thread_scaling_loss")
			}
		}
	}
	var scales map[string]float64
	if kernels == KernelsForeign {
		scales = kernelScales(prior, free, follows, obs, pred)
	}
	x0 := make([]float64, len(free))
	priors := make([]lm.Prior, len(free))
	bounds := make([]lm.Bound, len(free))
	from := make([]PriorSource, len(free))
	for i, path := range free {
		v, err := prior.Get(path)
		if err != nil {
			return nil, fmt.Errorf("fit: %w", err)
		}
		if v == 0 && hasSuffix(path, "gemv_efficiency") {
			v = 1 // unset: the kernel rate at any tile
		}
		sigma := prior.Uncertainty[path]
		from[i] = PriorProfile
		if sigma == 0 {
			sigma = priorRel * math.Max(math.Abs(v), 1e-3)
			from[i] = PriorDefault
		}
		if mv, ms, ok := microPrior(ms, path); ok {
			v, sigma = mv, ms
			from[i] = PriorMicrobenchmark
		}
		if hasSuffix(path, "thread_scaling_loss") {
			// The microbenchmark times one kernel in cache on every core;
			// a pool also shares DRAM and the cluster's cache, and its
			// loss was 0.18 where the kernel's was 0.05 on the build
			// machine (docs/llamacpp-accuracy.md): a tenth of the share's
			// range at least, so the runs can move it.
			sigma = math.Max(sigma, ShareFloorSigma)
		}
		if kernels == KernelsForeign && isKernelRate(path) {
			// The benchmark's own kernels: centred on the prior's rate
			// times its class's factor, as wide relative to it as the
			// prior was.
			rel := math.Max(MinScaledRelSigma, sigma/math.Max(math.Abs(v), 1e-12))
			v *= scales[classOf(path)]
			sigma = rel * math.Abs(v)
			from[i] = PriorScaled
		}
		bounds[i] = boundFor(prior, path, v)
		// Start inside the bounds (a scaled rate may overshoot the
		// ceiling); the prior stays where it was put.
		x := math.Min(math.Max(v, bounds[i].Lower), bounds[i].Upper)
		if x == bounds[i].Upper && !math.IsInf(x, 1) {
			x = bounds[i].Lower + 0.99*(bounds[i].Upper-bounds[i].Lower)
		}
		v = math.Min(v, bounds[i].Upper)
		x0[i] = x
		priors[i] = lm.Prior{Mean: v, Sigma: sigma}
	}
	// Twin engines (one core type, clock and core count) share their
	// core's parameters: all is every path fitted, free the ones the
	// optimiser moves, at[k] the index into free whose value all[k] takes.
	all := free
	at := make([]int, len(all))
	for k := range at {
		at[k] = k
	}
	if !o.NoTie {
		tw := twins(prior)
		leaders, follows := tie(tw, free, priors)
		if len(follows) > 0 {
			pos := map[int]int{}
			var f2 []string
			var x2 []float64
			var p2 []lm.Prior
			var b2 []lm.Bound
			var s2 []PriorSource
			for j, i := range leaders {
				pos[i] = j
				f2, x2, p2, b2, s2 = append(f2, free[i]), append(x2, x0[i]), append(p2, priors[i]), append(b2, bounds[i]), append(s2, from[i])
			}
			for k := range all {
				if l, ok := follows[k]; ok {
					at[k] = pos[l]
				} else {
					at[k] = pos[k]
				}
			}
			if n := tieNote(prior, tw, len(follows)); n != "" {
				notes = append(notes, n)
			}
			free, x0, priors, bounds, from = f2, x2, p2, b2, s2
		}
	}
	// Followers take their leader's value times their ratio.
	mult := make([]float64, len(all), len(all)+len(follows))
	for k := range mult {
		mult[k] = 1
	}
	for _, f := range follows {
		j := slices.Index(all, f.leader)
		if j < 0 {
			continue
		}
		all = append(all, f.path)
		at = append(at, at[j])
		mult = append(mult, f.ratio*mult[j])
	}
	weights := make([]float64, len(obs))
	for i, m := range obs {
		rel := math.Max(m.CV, minRel)
		weights[i] = 1 / (rel * rel)
	}
	work := prior.Clone()
	r := &Result{Kernels: kernels, KernelScales: scales, Skipped: skipped, Disturbed: disturbed, Stat: o.Stat}
	var evalErr error
	residuals := func(dst, x []float64) {
		if o.Context != nil && o.Context.Err() != nil {
			// Stopped: every evaluation fails at once, and the fit
			// returns the context's error.
			evalErr = o.Context.Err()
			for i := range dst {
				dst[i] = math.NaN()
			}
			return
		}
		s := work.Clone()
		for k, path := range all {
			_ = s.Set(path, x[at[k]]*mult[k])
		}
		vals, _, err := predictAll(pred, s, obs)
		if err != nil {
			evalErr = err
			for i := range dst {
				dst[i] = math.NaN()
			}
			return
		}
		for i, m := range obs {
			dst[i] = vals[i]/m.Median - 1
			if math.IsNaN(dst[i]) || math.IsInf(dst[i], 0) {
				// A profile the simulator cannot run to a finite
				// throughput (a parameter at a bound): as bad as
				// predicting nothing, and finite, so that the Jacobian
				// and its decomposition stay defined.
				dst[i] = -1
			}
		}
	}
	problem := lm.Problem{Residuals: residuals, NumResiduals: len(obs), Priors: priors}
	settings := &lm.Settings{Weights: weights, AbsoluteWeights: true, MaxIterations: 60, FiniteDifferenceStep: 1e-4}
	res, err := lm.Minimize(problem, x0, bounds, settings)
	if x1, ok := lossStart(free, x0); ok && err == nil && evalErr == nil {
		// A second start from a loss the pool often has: a loss near
		// zero lets the fit slow the kernels instead, a minimum of its
		// own (the build machine's quick calibration fell into it 2
		// times in 10). The lower cost wins.
		if res1, err1 := lm.Minimize(problem, x1, bounds, settings); err1 == nil && evalErr == nil && res1.Cost < res.Cost {
			res = res1
		}
	}
	// Starts with the bandwidth caps binding (CapStartShares, from where
	// the first fit reached); the lower cost wins.
	var first []float64
	if err == nil && evalErr == nil {
		first = slices.Clone(res.X)
	}
	for _, share := range CapStartShares {
		if first == nil || evalErr != nil || kernels == KernelsForeign || !severalIntensities(span) {
			break
		}
		x1, ok := capStart(free, first, bounds, share)
		if !ok {
			break
		}
		if res1, err1 := lm.Minimize(problem, x1, bounds, settings); err1 == nil && evalErr == nil && res1.Cost < CapStartGain*res.Cost {
			res = res1
		}
	}
	// Noisy machines produce outliers (a run the OS preempted): unless
	// told otherwise, refit with Huber weights, which count a residual
	// beyond HuberK standard errors linearly instead of quadratically.
	for pass := 0; err == nil && evalErr == nil && !o.NoRobust && pass < 3; pass++ {
		robust := make([]float64, len(weights))
		changed := false
		for i, e := range res.Residuals {
			robust[i] = weights[i]
			if z := math.Abs(e) * math.Sqrt(weights[i]); z > HuberK {
				robust[i] *= HuberK / z
				changed = true
			}
		}
		if !changed {
			break
		}
		settings.Weights = robust
		res, err = lm.Minimize(problem, res.X, bounds, settings)
		r.Downweighted, r.FarOutliers = 0, 0
		for i := range robust {
			if robust[i] < weights[i] {
				r.Downweighted++
				if err == nil && math.Abs(res.Residuals[i]) > PoorOutlierPct/100 {
					r.FarOutliers++
				}
			}
		}
	}
	if evalErr != nil {
		return nil, fmt.Errorf("fit: %w", evalErr)
	}
	if err != nil {
		return nil, fmt.Errorf("fit: %w", err)
	}
	out := prior.Clone()
	if out.Uncertainty == nil {
		out.Uncertainty = map[string]float64{}
	}
	unident := map[int]bool{}
	for _, i := range res.Unidentifiable {
		unident[i] = true
	}
	r.SoC, r.Iterations, r.Status = out, res.Iterations, res.Status.String()
	sigmas := make([]float64, len(free))
	for i := range priors {
		sigmas[i] = priors[i].Sigma
	}
	followed := map[string]follower{}
	for _, f := range follows {
		followed[f.path] = f
	}
	for k, path := range all {
		i := at[k]
		if err := out.Set(path, res.X[i]*mult[k]); err != nil {
			return nil, err
		}
		sd := res.StdErr[i]
		if math.IsInf(sd, 0) || math.IsNaN(sd) {
			sd = priors[i].Sigma
		}
		if f, ok := followed[path]; ok {
			// The leader's relative σ and the prior's width of the ratio.
			v := res.X[i] * mult[k]
			rel := math.Hypot(sd/math.Max(math.Abs(res.X[i]), 1e-12), f.relWidth)
			out.Uncertainty[path] = rel * math.Abs(v)
			pv := priors[i].Mean * mult[k]
			r.Params = append(r.Params, ParamFit{Path: path, Prior: pv, PriorSigma: f.relWidth * math.Abs(pv), PriorFrom: PriorRatio,
				Value: v, Sigma: rel * math.Abs(v), RidesOn: free[i], Identification: RidesOnPrior})
			continue
		}
		out.Uncertainty[path] = sd
		pf := ParamFit{Path: path, Prior: priors[i].Mean, PriorSigma: priors[i].Sigma,
			PriorFrom: from[i], Value: res.X[i], Sigma: sd, Identifiable: !unident[i], AtBound: atBound(res.X[i], bounds[i])}
		if path != free[i] {
			pf.SameAs = free[i]
		}
		if unident[i] {
			pf.CoupledWith = coupledWith(i, res.NullSpace, sigmas, free)
		}
		pf.Identification = IdentificationOf(pf)
		r.Params = append(r.Params, pf)
	}
	notes = append(notes, capsAtDRAM(out, r.Params)...)
	for i := range r.Params {
		if MeasuredDirectly(out, r.Params[i], ms) {
			r.Params[i].Identification = Measured
		}
	}
	vals, dram, err := predictAll(pred, out, obs)
	if err != nil {
		return nil, err
	}
	r.Residuals, r.RMSPct, r.MAPE = residualTable(obs, vals, dram, o.Stat)
	for i := range r.Residuals {
		r.Residuals[i].InFit = true
	}
	r.Notes = append(notes, capNotes(out, r.Params, ms)...)
	for _, g := range gaps {
		r.Notes = append(r.Notes, g.Line)
	}
	r.Notes = append(r.Notes, followNotes(follows)...)
	r.Span = span
	runs := fittedRuns(ms, obs)
	out.Provenance = &model.Provenance{Source: "fit", Runs: len(runs), Residual: r.RMSPct, FittedRuns: runs, Span: &r.Span}
	for _, f := range follows {
		out.Provenance.PriorLed = append(out.Provenance.PriorLed, f.path)
	}
	return r, nil
}

// stockGraph returns the prior a benchmark of stock llama.cpp is fitted
// from: when no throughput splits an op between engines, the benchmark
// is taken for llama.cpp's own CPU backend, whose graph is one backend
// split (its threads meet at spinning barriers between ops and wait for
// the next graph only between graphs), so a prior's graph splits per
// layer (the built-in dispatcher's fork-join per op, or a fork's backend
// splits) are set to none, with a note. It returns prior itself when that
// changes nothing.
func stockGraph(prior *model.SoC, obs []measure.Measurement) (*model.SoC, string) {
	if prior.Handoff.GraphSplitsPerLayer == 0 {
		return prior, ""
	}
	for _, m := range obs {
		if m.Plan != nil && m.Plan.Mode.IsSplit() {
			return prior, ""
		}
	}
	s := prior.Clone()
	was := s.Handoff.GraphSplitsPerLayer
	s.Handoff.GraphSplitsPerLayer, s.Handoff.SplitAbsorbsGraphSplits = 0, 0
	return s, fmt.Sprintf("no run splits an op between engines, so the benchmark is taken for stock llama.cpp, whose CPU graph is one backend split: handoff.graph_splits_per_layer %d of the prior (its own dispatcher's) set to 0", was)
}

// MeasuredDirectly reports whether p, fitted into s from the
// measurements ms, is a parameter no run reaches whose value is its own
// direct measurement (Identification Measured): sustained DRAM that the
// fit left at its microbenchmark's value (every CPU of the engines
// streaming at once, measure.StreamContended), where the at-once step
// says the dispatcher's engines keep their speed running together
// (AtOnceKeep at least AtOnceUnshared) and the engines' own caps sum to
// no more than it, so that no run, however DRAM-bound, is held by it.
func MeasuredDirectly(s *model.SoC, p ParamFit, ms []measure.Measurement) bool {
	if p.Path != "dram.sustained_gb_s" || p.Identification != PriorOnly || p.PriorFrom != PriorMicrobenchmark {
		return false
	}
	if keep, ok := AtOnceKeep(ms); !ok || keep < AtOnceUnshared {
		return false
	}
	sum := capSum(s)
	return sum > 0 && sum <= p.Value
}

// capSum is what the engines that stream from the SoC's DRAM pull at
// most, all at once: their caps (bandwidth_max_gb_s) added.
func capSum(s *model.SoC) float64 {
	sum := 0.0
	for i := range s.Engines {
		if e := &s.Engines[i]; e.UsesSharedDRAM() {
			sum += e.BandwidthMaxGBs
		}
	}
	return sum
}

// capNotes explains an unidentified sustained DRAM bandwidth that no run
// can reach: the engines' own caps, all streaming at once, sum below it;
// and, where the at-once step ran (AtOnceKeep), what it says.
func capNotes(s *model.SoC, params []ParamFit, ms []measure.Measurement) []string {
	const path = "dram.sustained_gb_s"
	for _, p := range params {
		if p.Path != path || p.Identifiable {
			continue
		}
		if sum := capSum(s); sum > 0 && sum <= s.DRAM.SustainedGBs {
			value := "its value is the prior's"
			switch {
			case p.Identification == Measured:
				value = fmt.Sprintf("it is measured: every CPU of the engines streaming at once read %.4g GB/s (σ %.2g, %.0f%%), and the runs bound it from below only (at least %.3g GB/s)",
					p.Value, p.Sigma, 100*p.Sigma/p.Value, sum)
			case p.Moved():
				value = fmt.Sprintf("the fit moved it from %.4g to %.4g", p.Prior, p.Value)
			case p.PriorFrom == PriorMicrobenchmark:
				value += ", the microbenchmark's (all engines streaming at once)"
			}
			if keep, ok := AtOnceKeep(ms); ok {
				value += fmt.Sprintf("; the dispatcher's engines kept %.2f of their speed or more running at once", keep)
				if keep >= AtOnceUnshared {
					value += ", so DRAM is not what they share"
				}
			}
			return []string{fmt.Sprintf("%s never limits a run here: the engines' own caps (bandwidth_max_gb_s) sum to %.3g GB/s, "+
				"no more than its %.3g, so no run, however DRAM-bound, tells what it is; %s",
				path, sum, s.DRAM.SustainedGBs, value)}
		}
	}
	return nil
}

// runnable splits the throughputs into those the prior profile can
// predict and those it cannot (their plan asks for more threads than an
// engine has, or an engine it lacks), which are skipped with the reason.
func runnable(prior *model.SoC, obs []measure.Measurement, p *Predictor) ([]measure.Measurement, []Skip) {
	var ok []measure.Measurement
	var skipped []Skip
	for i := range obs {
		if _, err := p.Predict(prior, &obs[i]); err != nil {
			skipped = append(skipped, Skip{ID: obs[i].ID, Label: obs[i].Label(), Reason: err.Error()})
			continue
		}
		ok = append(ok, obs[i])
	}
	return ok, skipped
}
