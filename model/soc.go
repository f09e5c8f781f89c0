package model

import (
	"fmt"
	"slices"
)

// SoCSchema is the schema tag every SoC profile carries.
const SoCSchema = "blsim/soc/v1"

// SoC is a system on chip: compute engines sharing one DRAM system, and the
// cost of handing one op's work between their thread pools.
type SoC struct {
	Schema      string   `yaml:"schema"`
	Name        string   `yaml:"name"`
	Description string   `yaml:"description,omitempty"`
	DRAM        DRAM     `yaml:"dram"`
	Engines     []Engine `yaml:"engines"`
	Handoff     Handoff  `yaml:"handoff"`
	// Uncertainty maps a parameter path (see Get) to its standard deviation,
	// in the parameter's own unit. Predictions sample it to give intervals.
	Uncertainty map[string]float64 `yaml:"uncertainty,omitempty"`
	// Provenance says where the numbers came from (datasheet, fit, host).
	Provenance *Provenance `yaml:"provenance,omitempty"`
}

// DRAM is the memory system every engine streams from.
type DRAM struct {
	// PeakGBs is the datasheet peak (bus width x transfer rate).
	PeakGBs float64 `yaml:"peak_gb_s"`
	// SustainedGBs is the most all engines together sustain when streaming
	// at once; utilisation figures are relative to it.
	SustainedGBs float64 `yaml:"sustained_gb_s"`
	// Sharing says how SustainedGBs is divided among engines whose demand
	// exceeds it: ShareMaxMin (max-min fair) or ShareProportional (to
	// demand).
	Sharing Sharing `yaml:"sharing"`
	// Type names the memory part (package parts: lpddr4x, lpddr5, ddr5,
	// ...) whose bus and transfer rate give PeakGBs, and whose sustained
	// share gives SustainedGBs, where the file gives none. Optional, as
	// are BusBits, MTs and Controller, which a spec sheet gives with it.
	Type string `yaml:"type,omitempty"`
	// BusBits is the memory bus width in bits (64 for four 16-bit LPDDR4x
	// channels, 128 for dual-channel DDR5).
	BusBits int `yaml:"bus_bits,omitempty"`
	// MTs is the transfer rate in mega-transfers per second (4224 for
	// LPDDR4x-4224).
	MTs float64 `yaml:"mt_s,omitempty"`
	// Controller names the memory-controller family whose measured
	// sustained share the memory part gives, when it has one for it
	// (rockchip, apple, ...); absent: the type's default share.
	Controller string `yaml:"controller,omitempty"`
}

// MaxEngines is the most engines a SoC may have: far more clusters and
// accelerators than any SoC has, few enough that every sweep stays fast.
const MaxEngines = 64

// Engine is one thread pool's worth of hardware: a CPU cluster, or an
// accelerator (kind npu).
//
// For an accelerator the CPU fields keep their meaning per NPU core:
// cores is its cores, a plan's threads how many of them a job uses,
// kernel_ops_per_cycle its effective rate per core (ops/cycle at clock_ghz),
// moe_efficiency the share of it a MUL_MAT_ID's small per-expert tiles
// reach, l2_kib_per_core its on-chip buffer per core, expert_token_tile the
// tokens that share one weight walk. Its scalar rate is never used (it runs
// no scalar ops) but must be positive.
type Engine struct {
	Name     string     `yaml:"name"`
	Kind     EngineKind `yaml:"kind"` // KindCPU or KindNPU
	CoreType string     `yaml:"core_type,omitempty"`
	// Core names the core part (package parts: cortex-a76, zen4, ...)
	// that gives the engine every value its file leaves out: kernel
	// rates, overlaps, caches, SMT ways, per-core bandwidth. Optional.
	Core     string  `yaml:"core,omitempty"`
	Cores    int     `yaml:"cores"`
	ClockGHz float64 `yaml:"clock_ghz"`
	// ClockGHzByBusyCores is the clock with 1, 2, ... of the engine's
	// cores busy, where it runs faster with few (a DVFS table by active
	// cores); from one past its end on, ClockGHz. Empty: ClockGHz at any
	// count. A pool's op waits for its slowest thread, so with the
	// engine's cores in several clock domains the count is the engine's.
	ClockGHzByBusyCores []float64 `yaml:"clock_ghz_by_busy_cores,omitempty,flow"`
	// KernelOpsPerCycle is one thread's matmul throughput per clock cycle, in
	// operations (multiply and add count as two), by kernel
	// class: q4, q6, q8, f16, f32 (see KernelClass), all required, and
	// optionally by GGML type (q4_0, q4_k, q3_k, iq4_xs, q8_0, bf16...:
	// GGMLTypes), whose own dot kernels differ by factors. An op whose
	// weights' type the workload names (Arch.Types) takes its type's rate,
	// else its class's (KernelRate; KernelFallbacks warns).
	KernelOpsPerCycle map[string]float64 `yaml:"kernel_ops_per_cycle"`
	// MoEEfficiency is the fraction of the dense rate a MUL_MAT_ID kernel
	// reaches (per-expert tiles are small; rows are gathered).
	MoEEfficiency float64 `yaml:"moe_efficiency"`
	// ScalarOpsPerCycle is the rate of non-matmul work (norms, the
	// Gated-DeltaNet recurrence, softmax), per thread per cycle.
	ScalarOpsPerCycle float64 `yaml:"scalar_ops_per_cycle"`
	// ThreadScalingLoss: n threads run at n/(1+loss*(n-1)) times one.
	ThreadScalingLoss float64 `yaml:"thread_scaling_loss"`
	// BandwidthMaxGBs is the most DRAM bandwidth this engine pulls alone.
	BandwidthMaxGBs float64 `yaml:"bandwidth_max_gb_s"`
	// BandwidthPerThreadGBs is the most DRAM bandwidth one of its threads
	// pulls: a plan that runs fewer threads than the engine has cores
	// streams at most threads times this (llama-bench -t 1 on a two-core
	// cluster). Zero (or absent) sets no per-thread limit: the engine's
	// cap alone.
	BandwidthPerThreadGBs float64 `yaml:"bandwidth_per_thread_gb_s,omitempty"`
	L2KiBPerCore          float64 `yaml:"l2_kib_per_core"`
	SharedCacheKiB        float64 `yaml:"shared_cache_kib"`
	// CacheUsableFrac is the share of a core's L2 (plus its share of the
	// shared cache) that holds the thread's weight slice between token tiles.
	CacheUsableFrac float64 `yaml:"cache_usable_frac"`
	// LLCBandwidthGBs is what the engine's threads read from the shared
	// last-level cache, in GB/s. With it, the cache keeps weights between
	// graphs: a weight a graph touches with probability p is found there
	// with probability min(1, p*C/S), C the usable shared cache
	// (CacheUsableFrac of SharedCacheKiB) and S the weight bytes one graph
	// walks, and is read at this rate instead of from DRAM (LLCHitShare).
	// Zero (or absent): every graph's weights come from DRAM, as they do
	// whenever a graph walks far more than the cache holds.
	LLCBandwidthGBs float64 `yaml:"llc_bandwidth_gb_s,omitempty"`
	// TokenTile is how many tokens share one walk over the weights in the
	// matmul kernel (ggml's generic path: 16). When a thread's weight slice
	// does not fit its cache, the weights are re-streamed once per tile.
	TokenTile int `yaml:"token_tile"`
	// ExpertTokenTile is the same for MUL_MAT_ID: ggml's repacked-weights
	// path runs a gemv per routed token (1); the generic path tiles by 16.
	ExpertTokenTile int `yaml:"expert_token_tile"`
	// GemvEfficiency is the share of the kernel rate a thread reaches on a
	// weight walk for one token (a gemv: token generation's graphs, or an
	// expert with one routed token): each weight is loaded for one
	// multiply-add, where a gemm tile reuses it for token_tile tokens. A
	// walk's load cost is amortised over its tokens, so between 1 and
	// token_tile tokens the rate rises to the full one (WalkEfficiency).
	// Zero (or absent) means 1: the kernel rate at any tile.
	GemvEfficiency float64 `yaml:"gemv_efficiency,omitempty"`
	// GemvEfficiencyByType is GemvEfficiency for the GGML types given, in
	// its place: a type whose one-token kernel is not its prompt kernel's
	// loop (ggml's repacked path runs a GEMV of its own beside the 4-row
	// GEMM; the generic dot kernel is one loop for any count of tokens).
	GemvEfficiencyByType map[string]float64 `yaml:"gemv_efficiency_by_type,omitempty"`
	// MemComputeOverlap is the fraction of a burst's compute that overlaps
	// its memory-heavy phase (0: load then compute; 1: fully pipelined).
	MemComputeOverlap float64 `yaml:"mem_compute_overlap"`
	// GemvOverlap is MemComputeOverlap for the ops of a graph of one token
	// (a generated token's, or a prompt ubatch of one): every walk then
	// loads each weight from DRAM for one multiply-add, and the graph
	// streams its weights through the dot loop, where a prefill's bursts
	// load a tile and compute the rest from cache. That is where the
	// decode tables measure it; the ops of longer graphs (a routed expert's
	// gemvs in a prefill ubatch, the prompt's last-token tail) keep
	// MemComputeOverlap, as the prefill it was fitted to ran them
	// (GraphOverlap). Zero (or absent): MemComputeOverlap for every graph.
	GemvOverlap float64 `yaml:"gemv_overlap,omitempty"`
	// IndependentThreadLoads says how the engine's threads share the DRAM
	// while they walk weights. 0 (absent): they load in lockstep, as one
	// partition whose bursts pull min(cap, threads x
	// bandwidth_per_thread_gb_s) together and then compute. 1: each thread
	// loads its slice at its own stream rate (bandwidth_per_thread_gb_s)
	// and computes the rest of its share (1 - the overlap), and the
	// threads' phases are independent, so the engine draws their mean
	// demand steadily and the DRAM caps that mean, not a burst. Requires
	// bandwidth_per_thread_gb_s. A what-if of the mechanism the 13900K's
	// and the Pi 5's decode rows point to (docs/threads.md, "Why INT-1 and
	// INT-2 miss"); no preset or part sets it. CPU clusters only.
	IndependentThreadLoads float64 `yaml:"independent_thread_loads,omitempty"`
	// RepackedTypes lists the GGML types (lower case: q4_0, iq4_nl) whose
	// weights the llama.cpp build runs on this cluster from a repacked
	// layout (ggml-cpu/repack.cpp, CPU_REPACK buffers), or through another
	// kernel that gives each thread a fixed slice of the rows. In a pool
	// plan such an op is divided statically, so the slowest thread gates
	// it, where the generic kernels let fast threads claim more chunks.
	// ggml repacks q4_0 (4x4, 4x8, 8x8) and iq4_nl (4x4) on arm64 CPUs
	// with the dot-product extension, more types in later builds (q8_0,
	// q4_k, q5_k, q6_k, mxfp4 by 2026); optional, none when absent. A
	// workload without types is matched by its bits (Engine.Repacked). CPU
	// clusters only.
	RepackedTypes []string `yaml:"repacked_types,omitempty"`
	// SgemmHeadBarriers says that the build runs a prompt's attention
	// products (the f16 KV cache against the queries, converted to f16)
	// through llamafile's sgemm, one call per query head and two barriers
	// of the pool in each (tinyBLAS::gemm): llama.cpp's x86 builds, where
	// GGML_LLAMAFILE is on by default. A prompt's graph then meets 4 x heads more barriers per
	// attention layer, which count where the pool waits at each barrier
	// (more threads than cores). Used with the workload's graph_nodes.
	SgemmHeadBarriers bool `yaml:"sgemm_head_barriers,omitempty"`
	// CPUs are the cluster's Linux CPU ids (as sysfs numbers them), one
	// per core; optional. With them a stock pool's recommendation names
	// its --cpu-mask in hex (a list of another length than the cores gives
	// none, and the thread sweep says so). CPU clusters only.
	CPUs []int `yaml:"cpus,omitempty"`
	// SMTWays is the hardware threads of each core (2 with SMT or
	// Hyper-Threading); 0 or absent means 1. The model carries it for
	// the placement of threads on siblings (a core's ways share its
	// pipes, caches and DRAM streams). CPU clusters only.
	SMTWays int `yaml:"smt_ways,omitempty"`
	// SMTCPUs are the Linux CPU ids of the cores' other hardware threads,
	// when cpus lists the first: (smt_ways-1) ids per core, core by core
	// in the order of cpus (with two ways, smt_cpus[i] is cpus[i]'s
	// sibling). Optional; requires cpus.
	SMTCPUs []int `yaml:"smt_cpus,omitempty"`
	// SMTYield is what a core's second hardware thread adds to one
	// thread's rate on it, by op kind (see SMTYield); absent: nothing
	// (0), what a core whose one thread fills its pipes and fill buffers
	// gives. Used where a pool puts two threads on one core (a thread
	// count past the cores, or a mask of siblings). CPU clusters only.
	SMTYield *SMTYield `yaml:"smt_yield,omitempty"`

	// The fields below are for accelerators (kind npu) only; CPU engines
	// must leave them out.

	// SubmitUS is what one job submission costs the dispatcher before the
	// accelerator starts, completion interrupt and wake-up of the waiting
	// thread included (kind npu: required, positive).
	SubmitUS float64 `yaml:"submit_us,omitempty"`
	// SetupUSPerOp is the accelerator's own setup per split op: register
	// programming, task descriptors, weight handles (kind npu; 0 if absent).
	SetupUSPerOp float64 `yaml:"setup_us_per_op,omitempty"`
	// Ops lists the op kinds the accelerator can run (by name in YAML,
	// OpKindNames: matmul, expert_matmul, attention, scalar); a plan may
	// give it a share only of those (kind npu: required).
	Ops []OpKind `yaml:"ops,omitempty"`
	// SplitModes lists how the accelerator can take a share of the split
	// ops: token (a slice of the tokens) and/or expert (a set of experts);
	// absent means both.
	SplitModes []Mode `yaml:"split_modes,omitempty"`
	// SharesDRAM says whether the accelerator streams from the SoC's DRAM
	// (and so contends with the CPU clusters) or from memory of its own at
	// bandwidth_max_gb_s (kind npu: required).
	SharesDRAM *bool `yaml:"shares_dram,omitempty"`
	// ConvertBytesPerWeightByte is, by kernel class, the extra DRAM bytes
	// the accelerator moves per byte of ggml weights it touches because it
	// needs them in its own format (e.g. Q4_K at 4.5 bits per weight read
	// as an int8 copy: 8/4.5 - 1 = 0.78); a class not listed needs none.
	ConvertBytesPerWeightByte map[KernelClass]float64 `yaml:"convert_bytes_per_weight_byte,omitempty"`
}

// IsAccelerator says whether the engine is an accelerator rather than a
// CPU cluster.
func (e *Engine) IsAccelerator() bool { return e.Kind != KindCPU }

// CanRun says whether the engine can run ops of kind k: a CPU cluster runs
// everything, an accelerator what it lists.
func (e *Engine) CanRun(k OpKind) bool {
	if !e.IsAccelerator() {
		return true
	}
	return slices.Contains(e.Ops, k)
}

// CanSplit says whether the engine can take a share of the split ops in
// mode m.
func (e *Engine) CanSplit(m Mode) bool {
	if !e.CanRun(ExpertMatmul) {
		return false
	}
	return len(e.SplitModes) == 0 || slices.Contains(e.SplitModes, m)
}

// UsesSharedDRAM says whether the engine's traffic goes through the SoC's
// DRAM system (every CPU cluster's does).
func (e *Engine) UsesSharedDRAM() bool {
	return !e.IsAccelerator() || e.SharesDRAM == nil || *e.SharesDRAM
}

// ConvertFactor is the multiplier on the weight bytes the engine reads for
// kernel class class: 1 plus its conversion traffic.
func (e *Engine) ConvertFactor(class KernelClass) float64 {
	return 1 + e.ConvertBytesPerWeightByte[class]
}

// IdleShare is the share of the sleep exit a pool pays after IdleUS of
// idle (Handoff.SleepExitByIdle).
type IdleShare struct {
	IdleUS float64 `yaml:"idle_us"`
	Share  float64 `yaml:"share"`
}

// Handoff is what crossing between thread pools costs, per the dispatcher
// and llama.cpp build the profile describes.
type Handoff struct {
	// SignalUS: the dispatcher posts a partition to a pool.
	SignalUS float64 `yaml:"signal_us"`
	// SpinWakeUS: a spinning pool notices new work.
	SpinWakeUS float64 `yaml:"spin_wake_us"`
	// FutexWakeUS: a pool sleeping in futex is woken (syscall, IPI, schedule).
	FutexWakeUS float64 `yaml:"futex_wake_us"`
	// SleepExitUS: the extra time a pool loses after sleeping: idle-state
	// exit and the clock ramp under the board's cpufreq governor.
	SleepExitUS float64 `yaml:"sleep_exit_us"`
	// SleepExitAfterUS: the idle at which SleepExitUS was measured
	// (calibrate's futex_wake_idle step sleeps 10 ms; the futex wake was
	// measured at once). A pool woken after a shorter idle pays that share
	// of it: linear between the two measured idles, the simplest rule they
	// allow. Optional; 0 or absent: any idle past the spin window pays it
	// all (profiles written before, and the presets).
	SleepExitAfterUS float64 `yaml:"sleep_exit_after_us,omitempty"`
	// SleepExitByIdle: the share of SleepExitUS a pool pays after
	// shorter idles, as measured (calibrate's futex_wake_idle step wakes
	// after 100 µs and 1 ms too: the wake then, less the wake at once,
	// over the sleep exit). The charge interpolates linearly between
	// (0, 0), these points in order of idle, and (SleepExitAfterUS, 1).
	// Optional; absent: linear from 0 to SleepExitAfterUS.
	SleepExitByIdle []IdleShare `yaml:"sleep_exit_by_idle,omitempty"`
	// SpinWindowUSPerPoll: a pool spins poll*SpinWindowUSPerPoll µs before
	// it sleeps in futex (ggml: poll*128Ki rounds of cpu_relax).
	SpinWindowUSPerPoll float64 `yaml:"spin_window_us_per_poll"`
	// SpawnUS: thread creation the dispatcher pays per split op before a
	// second pool can start (e.g. a driver thread per op); 0 when the
	// dispatcher's threads are all persistent.
	SpawnUS float64 `yaml:"spawn_us"`
	// JoinUS: the barrier that joins the pools at the end of a split op.
	JoinUS float64 `yaml:"join_us"`
	// ForfeitPct: slowdown of a split op's kernels because the dispatcher
	// that claims the op forfeits the repacked-weights fast path.
	ForfeitPct float64 `yaml:"forfeit_pct"`
	// GatherUS: fixed cost of an expert split's gather and scatter per op
	// (the bytes moved are counted as DRAM traffic separately).
	GatherUS float64 `yaml:"gather_us"`
	// GraphSplitsPerLayer: times per layer the main pool waits for the
	// next graph in the native run (backend-scheduler splits of the build).
	GraphSplitsPerLayer int `yaml:"graph_splits_per_layer"`
	// GraphSplitGapUS: how long the main pool idles at each graph split.
	GraphSplitGapUS float64 `yaml:"graph_split_gap_us"`
	// SplitAbsorbsGraphSplits: of those, how many per layer disappear when
	// the split dispatcher claims the MoE block and keeps its pools hot.
	SplitAbsorbsGraphSplits int `yaml:"split_absorbs_graph_splits"`
	// TimesliceUS: how long a pool's spinning barrier waits for one of its
	// threads that is runnable but descheduled (more threads than free
	// cores: oversubscription, or cores busy with another process), per
	// runnable task queued on its core. Optional; 0 or absent means
	// DefaultTimesliceUS.
	TimesliceUS float64 `yaml:"timeslice_us,omitempty"`
	// BackgroundCPUs: the host's other work (its OS threads, a desktop
	// session), in CPUs' worth of running time, that the OS must place on
	// a pool's hardware thread when the pool leaves none idle; each stalls
	// the whole pool at its next barrier (Plan.BackgroundStall); a
	// calibration measures it (calibrate.BackgroundCPUs). Optional; 0 or
	// absent: a host with nothing else running.
	BackgroundCPUs float64 `yaml:"background_cpus,omitempty"`
}

// Provenance records where a profile's values came from.
type Provenance struct {
	Source    string            `yaml:"source"`
	Host      string            `yaml:"host,omitempty"`
	Kernel    string            `yaml:"kernel,omitempty"`
	CPU       string            `yaml:"cpu,omitempty"`
	Date      string            `yaml:"date,omitempty"`
	Runs      int               `yaml:"runs,omitempty"`
	Residual  float64           `yaml:"residual_rms_pct,omitempty"`
	Governors map[string]string `yaml:"governors,omitempty"`
	Notes     []string          `yaml:"notes,omitempty"`
	// FittedRuns lists the measurement records a fitted profile was
	// fitted on, one "DIGEST ID" a record: the record's digest
	// (fit.RunDigest) and its ID, for a reader. blsim validate and the
	// parity figure call the points they list fitted (in-sample), the
	// others held out. Empty in a profile that is not a fit, or a fit
	// written before blsim recorded them.
	FittedRuns []string `yaml:"fitted_runs,omitempty"`
	// Span is what the fitted runs covered (prompt lengths, depths,
	// ubatches, generated lengths): a prediction outside it says so, and
	// its interval then draws the PriorLed parameters too.
	Span *Span `yaml:"span,omitempty"`
	// PriorLed lists the parameters the fitted runs could not inform,
	// which kept the prior's ratio to those they did (a prompt's attention
	// with one prompt length, decode's one-token rates with no tg): their
	// uncertainty is the prior's width.
	PriorLed []string `yaml:"prior_led,omitempty"`
	// Measured lists the parameter paths (Get) a calibration fitted from
	// its runs: where the profile's values come from calibration rather
	// than from the prior it started at (a part, a file). Empty in a
	// profile that is not a fit.
	Measured []string `yaml:"measured,omitempty"`
}

// Engine returns the engine named name.
func (s *SoC) Engine(name string) (*Engine, int, error) {
	for i := range s.Engines {
		if s.Engines[i].Name == name {
			return &s.Engines[i], i, nil
		}
	}
	return nil, -1, fmt.Errorf("soc %s: no engine %q (have %s)", s.Name, name, s.engineNames())
}

func (s *SoC) engineNames() string {
	out := ""
	for i, e := range s.Engines {
		if i > 0 {
			out += ", "
		}
		out += e.Name
	}
	return out
}

// Clone returns a deep copy, so what-if edits do not touch the original.
func (s *SoC) Clone() *SoC {
	c := *s
	c.Engines = make([]Engine, len(s.Engines))
	for i, e := range s.Engines {
		e.KernelOpsPerCycle = cloneMap(e.KernelOpsPerCycle)
		e.ConvertBytesPerWeightByte = cloneMap(e.ConvertBytesPerWeightByte)
		e.GemvEfficiencyByType = cloneMap(e.GemvEfficiencyByType)
		e.Ops = append([]OpKind(nil), e.Ops...)
		e.SplitModes = append([]Mode(nil), e.SplitModes...)
		e.RepackedTypes = append([]string(nil), e.RepackedTypes...)
		e.CPUs = append([]int(nil), e.CPUs...)
		e.SMTCPUs = append([]int(nil), e.SMTCPUs...)
		e.ClockGHzByBusyCores = append([]float64(nil), e.ClockGHzByBusyCores...)
		if e.SMTYield != nil {
			y := *e.SMTYield
			e.SMTYield = &y
		}
		if e.RepackedTypes == nil && s.Engines[i].RepackedTypes != nil {
			e.RepackedTypes = []string{}
		}
		if e.Ops == nil && s.Engines[i].Ops != nil {
			e.Ops = []OpKind{}
		}
		if e.SplitModes == nil && s.Engines[i].SplitModes != nil {
			e.SplitModes = []Mode{}
		}
		if e.SharesDRAM != nil {
			b := *e.SharesDRAM
			e.SharesDRAM = &b
		}
		c.Engines[i] = e
	}
	c.Handoff.SleepExitByIdle = slices.Clone(s.Handoff.SleepExitByIdle)
	c.Uncertainty = cloneMap(s.Uncertainty)
	if s.Provenance != nil {
		p := *s.Provenance
		p.Governors = cloneMap(p.Governors)
		p.Notes = append([]string(nil), p.Notes...)
		p.FittedRuns = append([]string(nil), p.FittedRuns...)
		p.PriorLed = append([]string(nil), p.PriorLed...)
		if p.Span != nil {
			sp := *p.Span
			sp.Prompts, sp.Depths = slices.Clone(sp.Prompts), slices.Clone(sp.Depths)
			sp.Ubatches, sp.Gens = slices.Clone(sp.Ubatches), slices.Clone(sp.Gens)
			p.Span = &sp
		}
		p.Measured = append([]string(nil), p.Measured...)
		c.Provenance = &p
	}
	return &c
}

func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return nil
	}
	c := make(map[K]V, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
