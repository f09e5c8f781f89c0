package fit

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/blsim/blsim/internal/lm"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// Options are settings of a fit; the zero value fits DefaultFree.
type Options struct {
	// Free lists the parameter paths to fit; nil means DefaultFree.
	Free []string
	// MinRelSigma is the smallest relative error assumed for a measured
	// throughput (its CV is used when larger). Zero means 1%.
	MinRelSigma float64
	// NoRobust turns off the Huber reweighting of outliers.
	NoRobust bool
	// PriorRelSigma is the relative prior width of a free parameter with no
	// uncertainty in the prior profile and no microbenchmark. Zero: 50%.
	PriorRelSigma float64
	// Stat says which value of a configuration's runs and samples is fitted
	// and predicted: Median (the zero value) or Best.
	Stat Stat
	// Kernels says whose kernels the runs ran (KernelsAuto: foreign for
	// llama-bench runs). With KernelsForeign and Free nil, the free set is
	// ForeignFree and the kernel rates get wide priors.
	Kernels Kernels
}

// Stat is how the runs of one configuration become the one throughput
// that is fitted or predicted.
type Stat string

const (
	// Median is the median of the runs' medians: the typical run, right on
	// a quiet machine (a board with its governors at performance).
	Median Stat = "median"
	// Best is the highest throughput of any sample of any run: on a shared
	// or virtual machine other tenants only ever slow a run down, so the
	// fastest sample is the one least disturbed, and the most repeatable
	// (the reasoning of Chen and Revels, "Robust benchmarking in noisy
	// environments", 2016).
	Best Stat = "best"
)

// ParseStat reads "median" or "best" ("" is Median).
func ParseStat(s string) (Stat, error) {
	switch Stat(s) {
	case "", Median:
		return Median, nil
	case Best:
		return Best, nil
	}
	return "", fmt.Errorf("%q is not a statistic: median or best", s)
}

// ParamFit is one fitted parameter.
type ParamFit struct {
	Path       string  `json:"path"`
	Prior      float64 `json:"prior"`
	PriorSigma float64 `json:"prior_sigma"`
	// PriorFrom says where the prior came from.
	PriorFrom    PriorSource `json:"prior_from"`
	Value        float64     `json:"value"`
	Sigma        float64     `json:"sigma"`
	Identifiable bool        `json:"identifiable"`
	// AtBound is "lower" or "upper" when the fitted value sits on a bound
	// of the parameter (a rate at 0, an overlap at 1), else "".
	AtBound string `json:"at_bound,omitempty"`
	// CoupledWith names, for a parameter that is not Identifiable, the
	// other free parameters the runs determine it together with: they
	// share a direction of the null space of the runs' Jacobian.
	CoupledWith []string `json:"coupled_with,omitempty"`
	// Identification is IdentificationOf the above: what the fit learnt.
	Identification Identification `json:"identification"`
}

// Residual is one measurement's fit.
type Residual struct {
	ID        string  `json:"id"`
	Label     string  `json:"label"`
	Measured  float64 `json:"measured"`
	Predicted float64 `json:"predicted"`
	ErrPct    float64 `json:"err_pct"`
	// DRAMBoundPct is the share of the predicted run's critical path the
	// model says was waiting on DRAM (sim.Bound.DRAM), in percent: which
	// regime the run was in.
	DRAMBoundPct float64 `json:"dram_bound_pct"`
	// InFit says the profile that predicted the configuration was fitted
	// on it (a run of it): the point is in-sample, not held out. Every
	// residual of a Result is.
	InFit bool `json:"in_fit,omitempty"`
}

// Result is a fitted profile and how well it fits.
type Result struct {
	SoC       *model.SoC `json:"-"`
	Params    []ParamFit `json:"params"`
	Residuals []Residual `json:"residuals"`
	// RMSPct is the root-mean-square relative error over the throughputs.
	RMSPct float64 `json:"rms_pct"`
	// MAPE is the mean absolute relative error in percent.
	MAPE       float64 `json:"mape"`
	Iterations int     `json:"iterations"`
	Status     string  `json:"status"`
	// Downweighted counts the measurements the robust refit trusted less
	// (residual beyond HuberK standard errors).
	Downweighted int `json:"downweighted"`
	// FarOutliers counts the down-weighted throughputs that the fit misses
	// by more than PoorOutlierPct: noise a robust fit may discount is a
	// few standard errors; a miss this large is the model or the data.
	FarOutliers int `json:"far_outliers"`
	// Kernels is whose kernels the fit took the runs for (never Auto).
	Kernels Kernels `json:"kernels"`
	// KernelScales are, by kernel class ("scalar" for the scalar rate),
	// the factors the prior's rates were scaled by to centre a foreign
	// fit's priors (nil otherwise).
	KernelScales map[string]float64 `json:"kernel_scales,omitempty"`
	// Notes say why a parameter the fit could not identify cannot be
	// identified from runs like these, where the profile itself tells
	// (a cap that no run can reach, say).
	Notes []string `json:"notes,omitempty"`
	// Skipped lists the throughputs left out because the prior profile
	// cannot run their plan (more threads than an engine has cores, an
	// engine it lacks).
	Skipped []Skip `json:"skipped,omitempty"`
}

// Skip is a throughput left out of a fit, and why.
type Skip struct {
	ID     string `json:"id"`
	Label  string `json:"label"`
	Reason string `json:"reason"`
}

// HuberK is where the robust fit starts to discount a residual, in
// standard errors.
const HuberK = 2.0

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
	obs, skipped := runnable(prior, throughputs(ms, o.Stat), pred)
	if len(obs) == 0 {
		if len(skipped) > 0 {
			return nil, fmt.Errorf("fit: no throughput can be predicted on the prior profile: %s: %s", skipped[0].Label, skipped[0].Reason)
		}
		return nil, ErrNoThroughput
	}
	kernels := o.Kernels.resolve(obs)
	if o.Free == nil && kernels == KernelsForeign {
		free = ForeignFree(prior, obs, pred)
	}
	var scales map[string]float64
	if kernels == KernelsForeign {
		scales = kernelScales(prior, free, obs, pred)
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
	weights := make([]float64, len(obs))
	for i, m := range obs {
		rel := math.Max(m.CV, minRel)
		weights[i] = 1 / (rel * rel)
	}
	work := prior.Clone()
	r := &Result{Kernels: kernels, KernelScales: scales, Skipped: skipped}
	var evalErr error
	residuals := func(dst, x []float64) {
		s := work.Clone()
		for i, path := range free {
			_ = s.Set(path, x[i])
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
	for i, path := range free {
		if err := out.Set(path, res.X[i]); err != nil {
			return nil, err
		}
		sd := res.StdErr[i]
		if math.IsInf(sd, 0) || math.IsNaN(sd) {
			sd = priors[i].Sigma
		}
		out.Uncertainty[path] = sd
		pf := ParamFit{Path: path, Prior: priors[i].Mean, PriorSigma: priors[i].Sigma,
			PriorFrom: from[i], Value: res.X[i], Sigma: sd, Identifiable: !unident[i], AtBound: atBound(res.X[i], bounds[i])}
		if unident[i] {
			pf.CoupledWith = coupledWith(i, res.NullSpace, sigmas, free)
		}
		pf.Identification = IdentificationOf(pf)
		r.Params = append(r.Params, pf)
	}
	vals, dram, err := predictAll(pred, out, obs)
	if err != nil {
		return nil, err
	}
	r.Residuals, r.RMSPct, r.MAPE = residualTable(obs, vals, dram)
	for i := range r.Residuals {
		r.Residuals[i].InFit = true
	}
	r.Notes = capNotes(out, r.Params)
	runs := fittedRuns(ms, obs)
	out.Provenance = &model.Provenance{Source: "fit", Runs: len(runs), Residual: r.RMSPct, FittedRuns: runs}
	return r, nil
}

// capNotes explains an unidentified sustained DRAM bandwidth that no run
// can reach: the engines' own caps, all streaming at once, sum below it.
func capNotes(s *model.SoC, params []ParamFit) []string {
	const path = "dram.sustained_gb_s"
	for _, p := range params {
		if p.Path != path || p.Identifiable {
			continue
		}
		sum := 0.0
		for i := range s.Engines {
			if e := &s.Engines[i]; e.UsesSharedDRAM() {
				sum += e.BandwidthMaxGBs
			}
		}
		if sum > 0 && sum <= s.DRAM.SustainedGBs {
			value := "its value is the prior's"
			switch {
			case p.Moved():
				value = fmt.Sprintf("the fit moved it from %.4g to %.4g", p.Prior, p.Value)
			case p.PriorFrom == PriorMicrobenchmark:
				value += ", the microbenchmark's (all engines streaming at once)"
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

// atBound says which bound x sits on, if any.
func atBound(x float64, b lm.Bound) string {
	tol := func(v float64) float64 { return 1e-6 * math.Max(1, math.Abs(v)) }
	switch {
	case !math.IsInf(b.Lower, -1) && x-b.Lower <= tol(b.Lower):
		return "lower"
	case !math.IsInf(b.Upper, 1) && b.Upper-x <= tol(b.Upper):
		return "upper"
	}
	return ""
}

// microPrior returns the median of the microbenchmarks that inform path.
func microPrior(ms []measure.Measurement, path string) (float64, float64, bool) {
	var vals []float64
	cv := 0.0
	for _, m := range ms {
		if m.Param == path && m.OK() && !Throughput(&m) {
			vals = append(vals, m.Median)
			cv = math.Max(cv, m.CV)
		}
	}
	if len(vals) == 0 {
		return 0, 0, false
	}
	sort.Float64s(vals)
	v := vals[len(vals)/2]
	// A microbenchmark measures the mechanism, not the dispatcher's use of
	// it: keep the prior wide enough for the fit to move it.
	return v, v * math.Max(0.25, 3*cv), true
}

func boundFor(prior *model.SoC, path string, v float64) lm.Bound {
	switch {
	case path == "dram.sustained_gb_s", hasSuffix(path, "bandwidth_max_gb_s") && prior.DRAM.PeakGBs > 0:
		// The profile's peak bounds what DRAM sustains and what an engine
		// pulls (an accelerator with memory of its own is not checked
		// against it, and keeps no upper bound here either way).
		up := prior.DRAM.PeakGBs
		if hasSuffix(path, "bandwidth_max_gb_s") && !sharesDRAM(prior, path) {
			up = math.Inf(1)
		}
		return lm.Bound{Lower: math.Max(1e-6*math.Abs(v), model.BandwidthRange.Min), Upper: math.Max(up, v)}
	case hasSuffix(path, "mem_compute_overlap"), hasSuffix(path, "cache_usable_frac"), hasSuffix(path, "moe_efficiency"):
		return lm.Bound{Lower: 0, Upper: 1}
	case isKernelRate(path):
		return lm.Bound{Lower: math.Max(1e-6*math.Abs(v), model.KernelRateRange.Min), Upper: model.KernelRateRange.Max} // a fitted profile must load
	case hasSuffix(path, "forfeit_pct"):
		return lm.Bound{Lower: 0, Upper: 90}
	}
	// Rates, bandwidths and costs stay positive: at zero an op would never
	// end (or cost nothing), which no machine does.
	return lm.Bound{Lower: 1e-6 * math.Max(math.Abs(v), 1e-9), Upper: math.Inf(1)}
}

// sharesDRAM says whether the engine of an engines.NAME.… path streams
// from the SoC's DRAM.
func sharesDRAM(s *model.SoC, path string) bool {
	for i := range s.Engines {
		if strings.HasPrefix(path, "engines."+s.Engines[i].Name+".") {
			return s.Engines[i].UsesSharedDRAM()
		}
	}
	return true
}

func hasSuffix(s, suf string) bool { return len(s) >= len(suf) && s[len(s)-len(suf):] == suf }

// predictAll predicts every measurement on all cores: its t/s and the
// share of its critical path that was DRAM-bound, in percent.
func predictAll(p *Predictor, s *model.SoC, obs []measure.Measurement) (tps, dramPct []float64, err error) {
	out := make([]float64, len(obs))
	dram := make([]float64, len(obs))
	errs := make([]error, len(obs))
	var wg sync.WaitGroup
	next := make(chan int)
	for k := 0; k < runtime.GOMAXPROCS(0); k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := p.Simulate(s, &obs[i])
				if err != nil {
					errs[i] = err
					continue
				}
				out[i], dram[i] = r.TPS, 100*r.Bound.DRAM
			}
		}()
	}
	for i := range obs {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return out, dram, nil
}

func residualTable(obs []measure.Measurement, pred, dramPct []float64) ([]Residual, float64, float64) {
	var rows []Residual
	ss, sa := 0.0, 0.0
	for i, m := range obs {
		e := 100 * (pred[i]/m.Median - 1)
		ss += e * e
		sa += math.Abs(e)
		rows = append(rows, Residual{ID: m.ID, Label: m.Label(), Measured: m.Median, Predicted: pred[i], ErrPct: e, DRAMBoundPct: dramPct[i]})
	}
	n := float64(len(obs))
	return rows, math.Sqrt(ss / n), sa / n
}
