package sim

// Result is the prediction for one plan.
type Result struct {
	Plan string `json:"plan"`
	// TPS is the test's figure as llama-bench reports it: prompt tokens per
	// second of a pp test, generated tokens per second of a tg test (no
	// prompt), and (prompt + generated tokens) / (PromptS + GenS) of a
	// pp+tg test (-pg).
	TPS float64 `json:"tps"`
	// WallS is the time of the whole run: PromptS + GenS.
	WallS float64 `json:"wall_s"`
	// PromptS and GenS are the wall times of the prompt and of the
	// generated tokens; PromptTPS and GenTPS their tokens per second (0 for
	// a phase the run does not have).
	PromptS   float64 `json:"prompt_s"`
	GenS      float64 `json:"gen_s"`
	PromptTPS float64 `json:"prompt_tps"`
	GenTPS    float64 `json:"gen_tps"`
	// TokenOverheadS is what the generated tokens' graphs spent on their
	// fixed costs, on the critical path: each graph's launch and the
	// barrier after each op (part of Bound.Handoff).
	TokenOverheadS float64 `json:"token_overhead_s"`
	// tokenGraphs is how many generated tokens' graphs were simulated.
	tokenGraphs int
	// Bound is the share of wall time spent in each state; they add up
	// to 1. Outside split ops it is the critical path's state; inside one
	// it is counted over the engines still at work (splitBound), so that
	// it moves continuously with the shares.
	Bound Bound `json:"bound"`
	// DRAMUtilMean is bytes moved / (sustained bandwidth x wall time);
	// DRAMUtilPeak is the highest utilisation inside memory bursts.
	DRAMUtilMean float64 `json:"dram_util_mean"`
	DRAMUtilPeak float64 `json:"dram_util_peak"`
	// BytesDemanded is what the ops asked for; BytesMoved is what the
	// simulation moved (integrated bandwidth). They agree.
	BytesDemanded float64 `json:"bytes_demanded"`
	BytesMoved    float64 `json:"bytes_moved"`
	// Engines is per-engine activity, in plan order.
	Engines []EngineStats `json:"engines"`
	// ExpertOpS is the wall time of the routed-expert (MUL_MAT_ID) ops,
	// handoff included.
	ExpertOpS float64 `json:"expert_op_s"`
	// Split summarises the split ops (zero for a native or pool plan).
	Split SplitStats `json:"split"`
	// Pool summarises how a pool plan divided its ops among its engines'
	// threads (zero for other plans).
	Pool PoolStats `json:"pool"`
	// Timeline is the simulated activity of ubatch 0, or of the first
	// generated token when there is no prompt (only when asked).
	Timeline []Span `json:"timeline,omitempty"`
	// DRAM is utilisation over time of the same graph (only when asked).
	DRAM []DRAMSample `json:"dram,omitempty"`
}

// Bound breaks the wall time down by what limited it (Result.Bound).
type Bound struct {
	Compute float64 `json:"compute"`
	// DRAM is waiting on loads as the memory itself makes an engine
	// wait: at its sustained bandwidth, shared with the other engines
	// (the shared cache's reads and an accelerator's own memory count
	// here too).
	DRAM float64 `json:"dram"`
	// EngineCap is the waiting an engine's own cap adds, where it is
	// below the DRAM's bandwidth (a cluster's bandwidth_max_gb_s, its
	// threads' streams): the stall alone at the cap less the stall alone
	// at the DRAM's whole bandwidth. More DRAM bandwidth would not
	// shorten it.
	EngineCap float64 `json:"engine_cap"`
	Handoff   float64 `json:"handoff"`
}

// EngineStats is one engine's time over the whole run.
type EngineStats struct {
	Name     string  `json:"name"`
	Threads  int     `json:"threads"`
	BusyS    float64 `json:"busy_s"`
	IdleS    float64 `json:"idle_s"`
	HandoffS float64 `json:"handoff_s"`
	Bytes    float64 `json:"bytes"`
	Ops      float64 `json:"ops"`
}

// SplitStats describes the split ops.
type SplitStats struct {
	Ops int `json:"ops"`
	// OpS is the wall time of all split ops, handoff included.
	OpS float64 `json:"op_s"`
	// EngineS is each engine's busy time inside split ops (plan order).
	EngineS []float64 `json:"engine_s"`
	// Imbalance is (last engine's finish - first engine's finish) summed
	// over split ops, in seconds.
	ImbalanceS float64 `json:"imbalance_s"`
	// HandoffS is the time split ops spent on handoff (signal, wake, spawn,
	// gather, join) on the critical path.
	HandoffS float64 `json:"handoff_s"`
	// GraphSplitS is the main pool's waiting at graph splits, whole prompt.
	GraphSplitS float64 `json:"graph_split_s"`
}

// PoolStats describes a pool plan's ops: every op divided among the
// threads of all its engines, then a barrier.
type PoolStats struct {
	// Ops is how many ops were divided among more than one engine's
	// threads (every op of a pool over two clusters or more).
	Ops int `json:"ops"`
	// StaticOps is how many of those ggml divides in fixed slices, one per
	// thread, so that the slowest thread gates the op: scalar ops, repacked
	// weights, matrix products with too few chunks for the threads.
	StaticOps int `json:"static_ops"`
	// ImbalanceS is (last engine's finish - first engine's finish) summed
	// over the ops: how long the fast cores spun at the barriers waiting
	// for the slow ones.
	ImbalanceS float64 `json:"imbalance_s"`
	// DescheduledS is the barriers' waits for threads that were runnable
	// but not running (more threads than free cores, or a core the host's
	// background work took: model.Plan.BackgroundStall), on the critical
	// path.
	DescheduledS float64 `json:"descheduled_s"`
}

// State is what an engine does during a span.
type State string

const (
	Compute  State = "compute"
	DRAMWait State = "dram"
	Handoff  State = "handoff"
	Idle     State = "idle"
)

// Span is one engine's activity over an interval of ubatch 0.
type Span struct {
	Engine string  `json:"engine"`
	Op     string  `json:"op"`
	State  State   `json:"state"`
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
}

// DRAMSample is the DRAM utilisation over an interval of ubatch 0: the mean
// and the peak inside memory bursts.
type DRAMSample struct {
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
	Mean   float64 `json:"mean"`
	Peak   float64 `json:"peak"`
}
