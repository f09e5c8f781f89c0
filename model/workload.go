package model

import "github.com/blsim/blsim/model/enum"

// WorkloadSchema is the schema tag every workload file carries.
const WorkloadSchema = "blsim/workload/v1"

// Workload is an MoE transformer and the run to time on it.
type Workload struct {
	Schema      string `yaml:"schema"`
	Name        string `yaml:"name"`
	Description string `yaml:"description,omitempty"`
	Model       Arch   `yaml:"model"`
	Run         Run    `yaml:"run"`
}

// Arch is the transformer's shape.
type Arch struct {
	Layers int `yaml:"layers"`
	// Pattern is the attention kind of consecutive layers, repeated:
	// F full attention, S sliding-window attention, L linear attention
	// (Gated DeltaNet). "LLLF" is three linear layers then a full one.
	Pattern string `yaml:"pattern"`
	Hidden  int    `yaml:"hidden"`
	Vocab   int    `yaml:"vocab"`
	// Attention describes the F and S layers.
	Attention SoftmaxAttention `yaml:"attention"`
	// Linear describes the L layers; required when Pattern has an L.
	Linear *LinearAttention `yaml:"linear_attention,omitempty"`
	MoE    MoE              `yaml:"moe"`
	// BitsPerWeight by tensor class.
	BitsPerWeight BitsPerWeight `yaml:"bits_per_weight"`
	// Types is the GGML type of each tensor class, keyed like
	// bits_per_weight (experts_gate_up: q4_k), in ggml's lower-case names,
	// as read from a GGUF (package gguf); where a class mixes types, the
	// one holding most of its bytes (the description says how they mix).
	// Optional: a workload without it is timed by its bits per weight.
	Types map[string]string `yaml:"types,omitempty"`
	// GraphNodes is how many nodes llama.cpp's graph of one ubatch has, as
	// its log says at load ("graph nodes = 382"): views, reshapes and
	// permutes included, each followed by a barrier of the thread pool, so
	// a pool's barriers number this many, not the ops blsim times.
	// Optional: without it, one barrier follows each op.
	GraphNodes int `yaml:"graph_nodes,omitempty"`
}

// SoftmaxAttention is softmax attention: grouped-query, optionally gated, optionally
// windowed, or multi-head latent.
type SoftmaxAttention struct {
	Heads   int `yaml:"heads"`
	KVHeads int `yaml:"kv_heads"`
	// HeadDim is a head's key (and query) width.
	HeadDim int  `yaml:"head_dim"`
	QGate   bool `yaml:"q_gate"`
	// SlidingWindow is the window of S layers in tokens (0 when none).
	SlidingWindow int `yaml:"sliding_window"`
	// KVLoraRank above 0 makes the attention multi-head latent (MLA:
	// DeepSeek-V2/V3, llama.cpp's deepseek2). Each position's keys and
	// values are one KVLoraRank-wide latent plus a RopeDim-wide rotary key
	// shared by the heads (attn_kv_a_mqa), and that is all the KV cache
	// holds; the per-head keys (HeadDim: RopeDim rotary plus the rest) and
	// values (ValueDim) come from the latent through attn_kv_b. As
	// llama.cpp runs it, that projection is absorbed into each token's
	// query and output, and the scores run over the latent. Queries come
	// through a QLoraRank bottleneck (attn_q_a, attn_q_b), or directly when
	// QLoraRank is 0 (the Lite models). KVHeads is Heads.
	KVLoraRank int `yaml:"kv_lora_rank,omitempty"`
	QLoraRank  int `yaml:"q_lora_rank,omitempty"`
	RopeDim    int `yaml:"rope_dim,omitempty"`
	// ValueDim is a head's value width where it differs from HeadDim
	// (MLA); 0 means HeadDim.
	ValueDim int `yaml:"value_dim,omitempty"`
}

// MLA says whether the attention is multi-head latent.
func (a *SoftmaxAttention) MLA() bool { return a.KVLoraRank > 0 }

// VDim is a head's value width: ValueDim, or HeadDim when it is 0.
func (a *SoftmaxAttention) VDim() int {
	if a.ValueDim > 0 {
		return a.ValueDim
	}
	return a.HeadDim
}

// LinearAttention is a Gated-DeltaNet-style recurrent layer.
type LinearAttention struct {
	// InProjOut is the output width of the fused input projection
	// (q, k, v, gates).
	InProjOut int `yaml:"in_proj_out"`
	// OutProjIn is the input width of the output projection.
	OutProjIn  int `yaml:"out_proj_in"`
	ValueHeads int `yaml:"value_heads"`
	KeyDim     int `yaml:"key_dim"`
	ValueDim   int `yaml:"value_dim"`
	ConvKernel int `yaml:"conv_kernel"`
}

// MoE describes the feed-forward blocks.
type MoE struct {
	Experts   int `yaml:"experts"`
	TopK      int `yaml:"top_k"`
	ExpertFFN int `yaml:"expert_ffn"`
	// SharedExperts run on every token, each SharedFFN wide.
	SharedExperts int `yaml:"shared_experts"`
	SharedFFN     int `yaml:"shared_ffn"`
	// DenseLayers: the first DenseLayers layers use a dense FFN DenseFFN
	// wide instead of experts.
	DenseLayers int `yaml:"dense_layers"`
	DenseFFN    int `yaml:"dense_ffn"`
	// RouterSkew is the Zipf exponent of expert popularity (0: uniform
	// routing, every expert equally likely).
	RouterSkew float64 `yaml:"router_skew"`
}

// BitsPerWeight by tensor class; quantised formats include their scales
// (Q4_0 4.5, Q4_K 4.5, Q5_K 5.5, Q6_K 6.5625, Q8_0 8.5, MXFP4 4.25).
type BitsPerWeight struct {
	Attention   float64 `yaml:"attention"`
	ExpertsUp   float64 `yaml:"experts_gate_up"`
	ExpertsDown float64 `yaml:"experts_down"`
	Shared      float64 `yaml:"shared"`
	Dense       float64 `yaml:"dense_ffn"`
	Router      float64 `yaml:"router"`
	Output      float64 `yaml:"output"`
}

// tensorClasses are the keys of bits_per_weight (and of types), in the
// order a workload file lists them.
var tensorClasses = []string{"attention", "experts_gate_up", "experts_down", "shared", "dense_ffn", "router", "output"}

// Of is the bits per weight of tensor class name (attention,
// experts_gate_up, ..., the keys of bits_per_weight), and whether there is
// such a class.
func (b *BitsPerWeight) Of(name string) (float64, bool) {
	switch name {
	case "attention":
		return b.Attention, true
	case "experts_gate_up":
		return b.ExpertsUp, true
	case "experts_down":
		return b.ExpertsDown, true
	case "shared":
		return b.Shared, true
	case "dense_ffn":
		return b.Dense, true
	case "router":
		return b.Router, true
	case "output":
		return b.Output, true
	}
	return 0, false
}

// Run is what is timed, as llama-bench names its tests: pp (a prompt of
// PromptTokens, llama-bench -p), tg (GenTokens generated, -n, with
// PromptTokens 0) or both in one run (-pg P,N: the prompt, then the tokens).
type Run struct {
	// PromptTokens may be 0 in a tg test (GenTokens > 0).
	PromptTokens int `yaml:"prompt_tokens"`
	Ubatch       int `yaml:"ubatch"`
	// Depth is the KV-cache depth before the prompt (llama-bench -d).
	Depth int `yaml:"depth"`
	// GenTokens is how many tokens are generated after the prompt, one per
	// graph (llama-bench -n); 0 for a pp test.
	GenTokens int `yaml:"gen_tokens,omitempty"`
	// FlashAttn says the run uses flash attention (llama-bench -fa 1):
	// each token's attention walks the positions it sees, one at a time,
	// where without it the two products and the softmax run over every
	// cached position (Engine.AttentionWork).
	FlashAttn bool `yaml:"flash_attn,omitempty"`
}

// LayerKind returns the attention kind letter of layer i.
func (a *Arch) LayerKind(i int) byte {
	return a.Pattern[i%len(a.Pattern)]
}

// Ubatches is the number of ubatches the prompt is cut into.
func (r Run) Ubatches() int {
	return (r.PromptTokens + r.Ubatch - 1) / r.Ubatch
}

// KernelClass is a matmul kernel class: weights of a range of bits per
// weight, whose throughput an engine lists (KernelClassOf; enum.KernelClass).
type KernelClass = enum.KernelClass

// Kernel classes.
const (
	ClassQ4  = enum.ClassQ4  // below 5 bits per weight
	ClassQ6  = enum.ClassQ6  // 5 to 7
	ClassQ8  = enum.ClassQ8  // 7 to 9
	ClassF16 = enum.ClassF16 // 9 to 17
	ClassF32 = enum.ClassF32 // 17 and more
)

// KernelClasses are the classes an engine must list.
var KernelClasses = enum.KernelClasses

// isClass says whether a kernel table's key k is a class (not a GGML type).
func isClass(k string) bool { return KernelClass(k).Known() }

// KernelClassOf maps bits per weight to the matmul kernel class whose
// throughput an engine lists: q4 (<5), q6 (<7), q8 (<9), f16 (<17), f32.
func KernelClassOf(bpw float64) KernelClass {
	switch {
	case bpw < 5:
		return ClassQ4
	case bpw < 7:
		return ClassQ6
	case bpw < 9:
		return ClassQ8
	case bpw < 17:
		return ClassF16
	}
	return ClassF32
}

// WithRun is w running r: w itself when that is its run, else a copy.
func (w *Workload) WithRun(r Run) *Workload {
	if w.Run == r {
		return w
	}
	c := *w
	c.Run = r
	return &c
}
