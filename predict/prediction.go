package predict

import (
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// Schema is the schema tag of every Prediction document.
const Schema = "blsim/prediction/v1"

// Kind says which plan of a mode a PlanPrediction is.
type Kind string

// Kinds of plan.
const (
	// Requested is the split at the request's fractions.
	Requested Kind = "requested"
	// Best is the split at the fractions that maximise throughput.
	Best Kind = "best"
	// DispatcherOnly is the split with every share on the main engine:
	// the split dispatcher runs, the other engines do no work. Its gain
	// is the handoff saved or paid, not another engine's compute.
	DispatcherOnly Kind = "dispatcher_only"
)

// Outcome is one simulated run as a prediction reports it.
type Outcome struct {
	// TPS is llama-bench's figure for the test: prompt t/s (pp), generated
	// t/s (tg), or all tokens over all time (pp+tg); PromptTPS and GenTPS
	// are each phase's (0 for a phase the test lacks).
	TPS       float64   `json:"tps"`
	PromptTPS float64   `json:"prompt_tps,omitempty"`
	GenTPS    float64   `json:"gen_tps,omitempty"`
	WallS     float64   `json:"wall_s"`
	Bound     sim.Bound `json:"bound"`
	// DRAMUtilMean and DRAMUtilPeak are the DRAM utilisation against the
	// sustained bandwidth, 0..1: over the run, and at its busiest burst.
	DRAMUtilMean float64 `json:"dram_util_mean"`
	DRAMUtilPeak float64 `json:"dram_util_peak"`
	// HandoffS is the wall time spent in handoffs (waking pools, joins).
	HandoffS float64 `json:"handoff_s"`
	// ExpertOpS is the wall time of the routed-expert ops.
	ExpertOpS float64 `json:"expert_op_s"`
	// EngineS is each engine's busy time inside the split ops (empty for
	// native).
	EngineS []float64 `json:"engine_s,omitempty"`
}

func outcomeOf(r *sim.Result) Outcome {
	o := Outcome{TPS: r.TPS, WallS: r.WallS, PromptTPS: r.PromptTPS, GenTPS: r.GenTPS, Bound: r.Bound, DRAMUtilMean: r.DRAMUtilMean,
		DRAMUtilPeak: r.DRAMUtilPeak, HandoffS: r.Bound.Handoff * r.WallS, ExpertOpS: r.ExpertOpS}
	if len(r.Split.EngineS) > 0 {
		o.EngineS = append([]float64(nil), r.Split.EngineS...)
	}
	return o
}

// PlanPrediction is one split plan's prediction against native.
type PlanPrediction struct {
	Kind Kind       `json:"kind"`
	Plan model.Plan `json:"plan"`
	Outcome
	// GainPct is the gain in t/s over native, in percent.
	GainPct float64 `json:"gain_pct"`
	// Interval is the spread of GainPct over the SoC's uncertainty.
	Interval sim.Interval `json:"interval"`
	Verdict  sim.Verdict  `json:"verdict"`
}

// Frac is the second engine's share of the split ops.
func (p PlanPrediction) Frac() float64 {
	if len(p.Plan.Fracs) < 2 {
		return 0
	}
	return p.Plan.Fracs[1]
}

// Balance is where a mode's split has the first two engines finish the
// split ops together; None says why there is no such share (Frac is then
// 0).
type Balance struct {
	Mode model.Mode `json:"mode"`
	Frac float64    `json:"frac"`
	None string     `json:"none,omitempty"`
}

// SweepPoint is the t/s of a two-engine split at one share of the second
// engine.
type SweepPoint struct {
	Mode    model.Mode `json:"mode"`
	Frac    float64    `json:"frac"`
	TPS     float64    `json:"tps"`
	GainPct float64    `json:"gain_pct"`
}

// Why breaks the best split's gain down: what the dispatcher alone gives
// (the best mode's DispatcherOnly plan: handoff saved or paid) and what
// the other engines' share of the work adds on top.
type Why struct {
	DispatcherOnlyGainPct float64 `json:"dispatcher_only_gain_pct"`
	WorkGainPct           float64 `json:"work_gain_pct"`
}

// Warning is a value of the request that cannot matter, or does not do
// what it seems to: Path names it (a SoC parameter path, "threads" or
// "split").
type Warning struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

func (w Warning) String() string { return w.Path + ": " + w.Text }

// Prediction is everything blsim predicts for one Request: every table,
// JSON document, report and figure of it is a view of this one value.
type Prediction struct {
	Schema   string `json:"schema"`
	SoC      string `json:"soc"`
	Workload string `json:"workload"`
	// Prompt and Ubatch are the run predicted (llama-bench's -p and -ub).
	Prompt int `json:"prompt"`
	Ubatch int `json:"ubatch"`
	// Gen is the tokens generated after the prompt (llama-bench's -n),
	// Depth the KV cache before it (-d), and Test the run as llama-bench
	// names it: pp512, tg128, pp512+tg128, with "@ d4096" for a depth.
	Gen   int    `json:"gen,omitempty"`
	Depth int    `json:"depth,omitempty"`
	Test  string `json:"test"`
	// Engines of the split, main first, their kinds and threads.
	Engines []string           `json:"engines"`
	Kinds   []model.EngineKind `json:"kinds"`
	Threads []int              `json:"threads"`
	Poll    int                `json:"poll"`
	// Method is how the intervals were made from the SoC's uncertainty:
	// "first-order" (the default: each uncertain parameter at ±σ),
	// "monte-carlo" (Request.Draws random draws) or "none" (no
	// uncertainty); Draws is how many perturbed SoCs each plan was
	// simulated on for it (two per parameter, or the draws).
	Method sim.IntervalMethod `json:"method"`
	Draws  int                `json:"draws"`
	// Native is everything on the first engine alone.
	Native Outcome `json:"native"`
	// Plans are, per mode in order, the requested split (when there is
	// one), the best and the dispatcher alone.
	Plans []PlanPrediction `json:"plans"`
	// Best is the plan the headline judges (sim.Headline): among the
	// Plans of kind Best and DispatcherOnly, a sure gain first (WIN or
	// ALONE), then PARITY, then LOSS, the larger gain first within each.
	// Best.Plan is the plan to run.
	Best PlanPrediction `json:"best"`
	// Balances, for two CPU engines: per mode, where both finish the
	// split ops together, or (None) why they never do.
	Balances []Balance `json:"balances,omitempty"`
	// MarginalRatio, for two CPU engines with a requested split: the
	// tokens per second the second engine sustains inside the split ops
	// of the first mode, relative to the first engine's in the same run.
	MarginalRatio float64 `json:"marginal_ratio,omitempty"`
	Why           Why     `json:"why"`
	// Sweep, when asked for: t/s at second-engine shares 0 to 0.5.
	Sweep []SweepPoint `json:"sweep,omitempty"`
	// Sensitivity, when asked for: the gain as an accelerator's
	// throughput and submit latency vary, with where it turns WIN.
	Sensitivity   *sim.SensitivityGrid `json:"sensitivity,omitempty"`
	BoundaryBest  []sim.Boundary       `json:"win_boundary_best,omitempty"`
	BoundaryFixed []sim.Boundary       `json:"win_boundary_fixed,omitempty"`
	// Warnings are values of the request that cannot matter.
	Warnings []Warning `json:"warnings,omitempty"`
	// Span, for a fitted profile that recorded what its runs covered: the
	// run against that span, and native's t/s interval.
	Span *SpanCheck `json:"span,omitempty"`
	// Traces, when asked for (Request.Traces): what the timeline and
	// roofline figures draw.
	Traces *Traces `json:"-"`
	// from is the evaluator that made the prediction (Run), for the
	// views beside it.
	from *origin
}

// Plan returns the prediction of mode's plan of kind k.
func (p *Prediction) Plan(mode model.Mode, k Kind) (PlanPrediction, bool) {
	for _, s := range p.Plans {
		if s.Plan.Mode == mode && s.Kind == k {
			return s, true
		}
	}
	return PlanPrediction{}, false
}

// Balance returns mode's balance point: the second engine's share at
// which the first two engines finish the split ops together; ok is false
// when there is none (the second is faster even at the smallest share,
// slower at the largest, or the split has more than two engines).
func (p *Prediction) Balance(mode model.Mode) (frac float64, ok bool) {
	for _, b := range p.Balances {
		if b.Mode == mode && b.None == "" {
			return b.Frac, true
		}
	}
	return 0, false
}

// Modes are the split modes predicted, in order.
func (p *Prediction) Modes() []model.Mode {
	var ms []model.Mode
	for _, s := range p.Plans {
		if len(ms) == 0 || ms[len(ms)-1] != s.Plan.Mode {
			ms = append(ms, s.Plan.Mode)
		}
	}
	return ms
}

// TwoEngine reports whether the split is between two CPU engines: the
// one a single fraction describes, with balance points and a sweep.
func (p *Prediction) TwoEngine() bool {
	if len(p.Engines) != 2 {
		return false
	}
	for _, k := range p.Kinds {
		if k != model.KindCPU {
			return false
		}
	}
	return true
}

// Notable are the warnings worth a word: all of them for the user's own
// SoC, and for a preset (blsim's own profile) all but the datasheet peak,
// which every profile carries as a bound only.
func (p *Prediction) Notable(preset bool) []Warning {
	var out []Warning
	for _, w := range p.Warnings {
		if !(preset && w.Path == "dram.peak_gb_s") {
			out = append(out, w)
		}
	}
	return out
}
