package measure

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/blsim/blsim/model"
	"gonum.org/v1/gonum/stat"
)

// Schema is the schema tag of every measurement line.
const Schema = "blsim/measurement/v1"

// Kinds of measurement.
const (
	// Dispatcher is a prompt-processing run of blsim's built-in dispatcher
	// (t/s): predicted by simulating Workload under Plan.
	Dispatcher = "dispatcher"
	// LlamaBench is a run of the user's llama-bench (t/s), same use.
	LlamaBench = "llama-bench"
	// Reported is a figure copied from a report (t/s), e.g. the seed's.
	Reported = "reported"
	// Microbenchmark kinds: their Param names the SoC parameter path they
	// inform (a prior for the fit), Unit its unit.
	Stream          = "stream"           // GB/s, one engine alone
	StreamContended = "stream_contended" // GB/s, all engines at once (sum)
	Kernel          = "kernel"           // GOPS per thread
	FutexWake       = "futex_wake"       // µs
	SpinWake        = "spin_wake"        // µs
	Spawn           = "spawn"            // µs
	Barrier         = "barrier"          // µs
	Timeslice       = "timeslice"        // µs a barrier of one thread more than the cores
	// AtOnce is two engines' dispatcher runs alone and at once (a
	// fraction: the smaller of their at-once speeds over alone); it
	// informs no parameter by itself (Param is empty), but tells the fit
	// whether the engines share DRAM bandwidth (calibrate/fit.AtOnceKeep).
	AtOnce = "at_once"
)

// Statuses of a measurement.
const (
	// StatusOK is a finished run with a usable value.
	StatusOK = "ok"
	// StatusFailed is a run that did not finish or printed nothing usable.
	StatusFailed = "failed"
	// StatusTimeout is a run killed at its time limit.
	StatusTimeout = "timeout"
	// StatusFlagged is a run that finished, but whose record does not match
	// what its knobs asked for (another thread count, model or test, as a
	// fork may report them): Error says why. It is kept out of fits and,
	// like an ok run, not run again by --resume.
	StatusFlagged = "flagged"
)

// Run is the test a llama-bench record ran, when it says so: its prompt
// length, ubatch, KV depth and generated tokens. It overrides the run of
// the measurement's workload, so one grid can span prompt lengths and
// ubatches (arithmetic intensity) over one model.
type Run struct {
	PromptTokens int `json:"prompt_tokens"`
	Ubatch       int `json:"ubatch"`
	Depth        int `json:"depth,omitempty"`
	GenTokens    int `json:"gen_tokens,omitempty"`
	// FlashAttn: the run used flash attention (llama-bench's flash_attn).
	FlashAttn bool `json:"flash_attn,omitempty"`
}

// Test names the run's test as llama-bench does: "pp512", "tg128",
// "pp512+tg128".
func (r Run) Test() string {
	switch {
	case r.GenTokens == 0:
		return fmt.Sprintf("pp%d", r.PromptTokens)
	case r.PromptTokens == 0:
		return fmt.Sprintf("tg%d", r.GenTokens)
	}
	return fmt.Sprintf("pp%d+tg%d", r.PromptTokens, r.GenTokens)
}

// Of is the run a record of r ran on a workload whose own run is own: r's
// test, with its ubatch at most its prompt (a tg test keeps own's ubatch,
// which one-token graphs do not use); own itself when r is nil or names
// no test.
func (r *Run) Of(own model.Run) model.Run {
	if r == nil || r.PromptTokens <= 0 && r.GenTokens <= 0 {
		return own
	}
	ub := own.Ubatch
	if r.PromptTokens > 0 {
		ub = min(max(r.Ubatch, 1), r.PromptTokens)
	}
	return model.Run{PromptTokens: r.PromptTokens, Ubatch: ub, Depth: r.Depth, GenTokens: r.GenTokens, FlashAttn: r.FlashAttn}
}

// Host is where a measurement ran.
type Host struct {
	Name      string            `json:"name,omitempty"`
	Kernel    string            `json:"kernel,omitempty"`
	CPU       string            `json:"cpu,omitempty"`
	Arch      string            `json:"arch,omitempty"`
	Governors map[string]string `json:"governors,omitempty"`
	// Clusters are the CPU clusters a calibration measured, as it found
	// or was given them: what its prior was built from (the cores, their
	// clock and caches), so that a refit of its file (blsim fit without
	// --soc) starts from the same prior. Empty in files written before
	// blsim recorded them, and for runs of other programs.
	Clusters []Cluster `json:"clusters,omitempty"`
}

// Cluster is one CPU cluster of a Host, as calibrate's topology found it
// (calibrate/topology.Cluster, whose fields these are).
type Cluster struct {
	Name           string `json:"name"`
	CPUs           []int  `json:"cpus"`
	CoreType       string `json:"core_type,omitempty"`
	MaxFreqKHz     int    `json:"max_freq_khz,omitempty"`
	CapacityUnits  int    `json:"capacity_units,omitempty"`
	L2KiBPerCore   int    `json:"l2_kib_per_core,omitempty"`
	SharedCacheKiB int    `json:"shared_cache_kib,omitempty"`
	SMTWays        int    `json:"smt_ways,omitempty"`
	CoreCPUs       []int  `json:"core_cpus,omitempty"`
	SMTCPUs        []int  `json:"smt_cpus,omitempty"`
	Package        int    `json:"package,omitempty"`
}

// Measurement is one finished run.
type Measurement struct {
	Schema string `json:"schema"`
	// ID identifies the configuration; a resumed run skips IDs already
	// measured with status ok.
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// SoC and Workload name what the measurement is about: a preset name
	// or the profile/workload's own name. WorkloadYAML holds the whole
	// workload when it is not a preset (the built-in dispatcher's).
	SoC          string      `json:"soc,omitempty"`
	Workload     string      `json:"workload,omitempty"`
	WorkloadYAML string      `json:"workload_yaml,omitempty"`
	Plan         *model.Plan `json:"plan,omitempty"`
	// Run is the test the record ran (llama-bench's n_prompt, n_ubatch,
	// n_depth); nil means the workload's own run.
	Run *Run `json:"run,omitempty"`
	// Param is the SoC parameter path a microbenchmark informs; Engine
	// the engine it ran on (for a throughput, set only for a native run
	// on an engine other than its grid's first, which its label names).
	Param  string `json:"param,omitempty"`
	Engine string `json:"engine,omitempty"`
	// Knobs are the settings that produced the run (env, flags, sizes).
	Knobs   map[string]string `json:"knobs,omitempty"`
	Unit    string            `json:"unit"`
	Samples []float64         `json:"samples,omitempty"`
	Median  float64           `json:"median"`
	// CV is the coefficient of variation of the samples (sd/mean).
	CV     float64 `json:"cv"`
	Host   *Host   `json:"host,omitempty"`
	Time   string  `json:"time,omitempty"`
	Status string  `json:"status"` // ok, failed, timeout
	Error  string  `json:"error,omitempty"`
	// Stdout and Stderr of an external command (kept short).
	Stdout   string `json:"stdout,omitempty"`
	Stderr   string `json:"stderr,omitempty"`
	ExitCode int    `json:"exit_code,omitempty"`
	// Interference is what else ran on the machine while the run was
	// timed; nil when it was not measured (files written before it was,
	// a system without /proc).
	Interference *Interference `json:"interference,omitempty"`
}

// OK reports whether the measurement finished and has a usable value.
func (m *Measurement) OK() bool { return m.Status == "ok" && m.Median > 0 && !math.IsInf(m.Median, 0) }

// IsThroughput reports whether the measurement is a throughput the
// simulator predicts (t/s of a plan: a dispatcher, llama-bench or reported
// run), as opposed to a microbenchmark that informs a prior.
func (m *Measurement) IsThroughput() bool {
	switch m.Kind {
	case Dispatcher, LlamaBench, Reported:
		return m.Plan != nil && (m.Unit == "t/s" || m.Unit == "")
	}
	return false
}

// Summarize fills Median and CV from Samples.
func (m *Measurement) Summarize() {
	if len(m.Samples) == 0 {
		return
	}
	s := append([]float64(nil), m.Samples...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		m.Median = s[n/2]
	} else {
		m.Median = s[n/2-1]/2 + s[n/2]/2 // no overflow
	}
	if mean, sd, ok := meanSD(s); ok && n > 1 && mean != 0 {
		m.CV = sd / math.Abs(mean)
	}
}

// SD is the measurement's standard deviation: of its samples when it has
// two or more, else its CV times its median.
func (m *Measurement) SD() float64 {
	if len(m.Samples) < 2 {
		return m.CV * m.Median
	}
	_, sd, _ := meanSD(m.Samples)
	return sd
}

// MeanSD is the mean and sample standard deviation of xs (0 for fewer
// than two), the one helper every package uses for them: overflow-safe
// (see meanSD), on gonum's stat.MeanStdDev.
func MeanSD(xs []float64) (mean, sd float64) {
	mean, sd, _ = meanSD(xs)
	return mean, sd
}

// meanSD is the mean and sample standard deviation of xs, computed on xs
// scaled by their largest magnitude, so that no sum overflows (samples of
// 1e308 give finite figures, and CheckRange says what is wrong); ok is
// false when xs are empty, all zero or not finite.
func meanSD(xs []float64) (mean, sd float64, ok bool) {
	scale := 0.0
	for _, x := range xs {
		scale = math.Max(scale, math.Abs(x))
	}
	if len(xs) == 0 || scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		return 0, 0, false
	}
	scaled := make([]float64, len(xs))
	for i, x := range xs {
		scaled[i] = x / scale
	}
	mean, sd = stat.MeanStdDev(scaled, nil)
	if len(xs) < 2 {
		sd = 0
	}
	return mean * scale, sd * scale, true
}

// CheckRange checks a measurement's test against the run ranges
// (Run.Check), its CV against model.CVRange and, when it finished, its
// median and every sample against the physical range of its unit
// (model.RangeOf): a run that printed 1e308 t/s, a median of 1e-300, a
// sample of 1e-9 t/s beside others of 20 or a prompt of 2^20 one-token
// ubatches is not a measurement of anything. Units without a range pass.
func (m *Measurement) CheckRange() error {
	if err := m.Run.Check(); err != nil {
		return err
	}
	if err := model.CVRange.Check(m.CV); err != nil {
		return fmt.Errorf("cv: %w", err)
	}
	if m.Status != StatusOK && m.Status != StatusFlagged {
		return nil
	}
	r, ok := model.RangeOf(m.Unit)
	if !ok {
		return nil
	}
	if err := r.Check(m.Median); err != nil {
		return fmt.Errorf("median: %w", err)
	}
	for i, v := range m.Samples {
		if err := r.Check(v); err != nil {
			return fmt.Errorf("samples[%d]: %w", i, err)
		}
	}
	return nil
}

// Check checks a record's test by the ranges every run is held to
// (model.Run.Check): a prompt of 2^20 one-token ubatches, or a depth of
// 2^62, is no run blsim can predict. A tg test may leave its ubatch out;
// nil passes.
func (r *Run) Check() error {
	if r == nil {
		return nil
	}
	mr := model.Run{PromptTokens: r.PromptTokens, Ubatch: r.Ubatch, Depth: r.Depth, GenTokens: r.GenTokens}
	if mr.PromptTokens == 0 && mr.Ubatch == 0 {
		mr.Ubatch = 1
	}
	if err := mr.Check(); err != nil {
		return fmt.Errorf("run %s: %w", r.Test(), err)
	}
	return nil
}

// Validate checks a measurement read from a file.
func (m *Measurement) Validate() error {
	switch {
	case m.Schema != Schema:
		return fmt.Errorf("schema %q is not %q", m.Schema, Schema)
	case m.ID == "":
		return fmt.Errorf("id is empty")
	case m.Kind == "":
		return fmt.Errorf("kind is empty")
	case m.Status != StatusOK && m.Status != StatusFailed && m.Status != StatusTimeout && m.Status != StatusFlagged:
		return fmt.Errorf("status %q is not ok, failed, timeout or flagged", m.Status)
	case math.IsNaN(m.Median) || math.IsInf(m.Median, 0) || m.Median < 0:
		return fmt.Errorf("median %g is not a finite non-negative number", m.Median)
	case math.IsNaN(m.CV) || m.CV < 0:
		return fmt.Errorf("cv %g is not a non-negative number", m.CV)
	}
	for i, v := range m.Samples {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("samples[%d] is %g", i, v)
		}
	}
	if err := m.CheckRange(); err != nil {
		return err
	}
	if m.Interference != nil {
		if err := m.Interference.Validate(); err != nil {
			return err
		}
	}
	if m.Plan != nil {
		return m.Plan.CheckShape()
	}
	return nil
}

// Label is a short human label: "token f=0.12 poll=50".
func (m *Measurement) Label() string {
	if m.Plan == nil {
		parts := []string{m.Kind}
		if m.Engine != "" {
			parts = append(parts, m.Engine)
		}
		return strings.Join(parts, " ")
	}
	p := m.Plan
	var label string
	if p.Mode == model.Native {
		label = fmt.Sprintf("native poll=%d", p.Poll)
		if m.Engine != "" {
			// A native run on an engine the record names: one other
			// than the first of its grid's.
			label = fmt.Sprintf("native %s poll=%d", m.Engine, p.Poll)
		}
	} else {
		f := 0.0
		if len(p.Fracs) > 1 {
			f = p.Fracs[1]
		}
		label = fmt.Sprintf("%s f=%.3g poll=%d", p.Mode, f, p.Poll)
	}
	if r := m.Run; r != nil {
		// A record that says its test: the threads and the test too, so
		// that --holdout can name "t=2", "pp256", "tg32", "pp64+tg32" or
		// "ub=512".
		t := make([]string, len(p.Threads))
		for i, n := range p.Threads {
			t[i] = fmt.Sprint(n)
		}
		label += fmt.Sprintf(" t=%s %s ub=%d", strings.Join(t, "+"), r.Test(), r.Ubatch)
		if r.Depth > 0 {
			label += fmt.Sprintf(" d=%d", r.Depth)
		}
		if r.FlashAttn {
			label += " fa"
		}
	}
	return label
}

// PlanOf records a plan: a copy of p that shares no slices with it.
func PlanOf(p model.Plan) *model.Plan {
	return &model.Plan{Mode: p.Mode, Engines: append([]string(nil), p.Engines...),
		Fracs: append([]float64(nil), p.Fracs...), Threads: append([]int(nil), p.Threads...), Poll: p.Poll}
}

// ErrPct is the error of a prediction against a measured value, in
// percent: the one definition every residual, parity point and MAPE uses.
func ErrPct(predicted, measured float64) float64 { return 100 * (predicted/measured - 1) }

// MAPE is the mean absolute percentage error of errPcts (each an ErrPct);
// NaN for none.
func MAPE(errPcts []float64) float64 {
	if len(errPcts) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, e := range errPcts {
		s += math.Abs(e)
	}
	return s / float64(len(errPcts))
}
