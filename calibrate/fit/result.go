package fit

import (
	"context"
	"fmt"

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
	// NoTie fits twin engines (one core type, clock and core count)
	// apart: by default their kernel rates, gemv efficiency, overlap and
	// bandwidth caps are one parameter each (ParamFit.SameAs).
	NoTie bool
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
	// Context, when not nil, stops a fit once it is done (Ctrl-C, SIGTERM
	// or SIGHUP reaching a calibration in its fit): the fit returns its
	// error within one evaluation of the model.
	Context context.Context
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
	// SameAs names the parameter this one was fitted as, for a twin
	// engine's (one core type, clock and core count as another engine):
	// the two are one parameter of the fit. Empty otherwise.
	SameAs string `json:"same_as,omitempty"`
	// RidesOn names, for a rate the runs cannot tell apart from another
	// class's (a prompt's attention with one prompt length, decode's with
	// no tg), the rate it keeps the prior's ratio to, with no factor of
	// its own (Identification RidesOnPrior). Empty otherwise.
	RidesOn string `json:"rides_on,omitempty"`
	// Identification is IdentificationOf the above: what the fit learnt.
	Identification Identification `json:"identification"`
}

// MemoryBoundPct is the share of the predicted run spent waiting on
// memory, DRAM's or the engine's cap: DRAMBoundPct + CapBoundPct.
func (r Residual) MemoryBoundPct() float64 { return r.DRAMBoundPct + r.CapBoundPct }

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
	// CapBoundPct is the share the engine's own bandwidth cap adds, where
	// it is below the DRAM's bandwidth (sim.Bound.EngineCap), in percent.
	// DRAMBoundPct + CapBoundPct is the share of the run spent waiting on
	// memory (MemoryBoundPct): with the caps fitted below sustained DRAM,
	// as on the 2-vCPU build machine, most of a run's waiting is the cap's.
	CapBoundPct float64 `json:"cap_bound_pct"`
	// InFit says the profile that predicted the configuration was fitted
	// on it (a run of it): the point is in-sample, not held out. Every
	// residual of a Result is.
	InFit bool `json:"in_fit,omitempty"`
	// OtherPct is the share of the run's time, in percent, other
	// processes (and steal) took of OtherCPU, the CPU of the run they took
	// most of (of its most disturbed run, for a merged configuration);
	// Reruns counts its re-runs. Zero when not measured. OtherSource is
	// who took most of it: other processes, or the hypervisor (steal).
	OtherPct    float64        `json:"other_pct,omitempty"`
	OtherCPU    int            `json:"other_cpu,omitempty"`
	OtherSource measure.Source `json:"other_source,omitempty"`
	Reruns      int            `json:"reruns,omitempty"`
	// SpreadPct is the standard error of Measured, in percent: how far it
	// would move were the configuration timed again the same way, however
	// good the model (the spread of its rounds, or of its repeats; see
	// Group.SpreadMAPE). Values counts what Measured is the median of. 0
	// when not known.
	SpreadPct float64 `json:"spread_pct,omitempty"`
	Values    int     `json:"values,omitempty"`
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
	// Span is what the fitted throughputs' runs covered.
	Span model.Span `json:"span"`
	// Skipped lists the throughputs left out because the prior profile
	// cannot run their plan (more threads than an engine has cores, an
	// engine it lacks).
	Skipped []Skip `json:"skipped,omitempty"`
	// Disturbed lists the configurations left out because other processes
	// disturbed every run of them (Disturbance).
	Disturbed []Disturbance `json:"disturbed,omitempty"`
	// Stat is the statistic fitted (Options.Stat, Median when empty).
	Stat Stat `json:"stat,omitempty"`
}

// Identified maps each parameter the runs identify (all but the
// prior-led ones) to its fitted value.
func (r *Result) Identified() map[string]float64 {
	out := map[string]float64{}
	for _, p := range r.Params {
		if p.Identification != PriorOnly {
			out[p.Path] = p.Value
		}
	}
	return out
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
