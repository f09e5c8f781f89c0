package model

// The kernel rates of llama.cpp's attention path that an engine's
// kernel_ops_per_cycle may list beside the classes and GGML types. An
// engine that lists RateSoftmax runs attention as llama.cpp's CPU backend
// does (AttentionWork); one without (profiles written before blsim
// measured the path) charges an attention op's Ops at its f16 rate.
const (
	// RateSoftmax is the softmax of attention's scores, in elements (one a
	// token, cached position and head) per cycle: soft_max_ext with its
	// scale and mask, and the probabilities' conversion to f16 for the
	// second product.
	RateSoftmax = "softmax"
	// RateF16Gemv is the f16 class for one token: its products run as one
	// dot product an output (ggml's vec_dot_f16), where two tokens or more
	// run llamafile's tiles (the f16 class's rate).
	RateF16Gemv = "f16_gemv"
	// RateFlashAttn is flash attention (llama-bench -fa 1), in the ops of
	// its two products over the positions each token sees.
	RateFlashAttn = "flash_attn"
)

// AttentionRateKeys are the attention-path rate keys, in a fixed order.
var AttentionRateKeys = []string{RateSoftmax, RateF16Gemv, RateFlashAttn}

// Work is an amount of an op's work at one kernel rate: Ops operations
// (or elements, for RateSoftmax) at the engine's rate for Key.
type Work struct {
	Key string
	Ops float64
}

// LlamaAttention says whether the engine runs attention as llama.cpp's
// CPU backend does: it lists the softmax's rate.
func (e *Engine) LlamaAttention() bool { return e.KernelOpsPerCycle[RateSoftmax] > 0 }

// AttentionWork is an AttentionScores op's work on e, by the rate it runs
// at (AttentionRate). Without flash attention llama.cpp multiplies the
// f16 KV cache with the queries over every cached position, padded and
// masked ones included (KVOps: tiles for a prompt, RateF16Gemv's dot
// products for one token), and takes the softmax of every score (Elems);
// with it (an op without KVOps and Elems), each token walks the positions
// it sees (Ops) at RateFlashAttn. An engine without the softmax rate
// charges Ops at its f16 rate.
func (e *Engine) AttentionWork(o *Op) []Work {
	if !e.LlamaAttention() {
		return []Work{{string(ClassF16), o.Ops}}
	}
	if o.KVOps == 0 && o.Elems == 0 {
		return []Work{{RateFlashAttn, o.Ops}}
	}
	products := string(ClassF16)
	if o.Tokens <= 1 {
		products = RateF16Gemv
	}
	return []Work{{products, o.KVOps}, {RateSoftmax, o.Elems}}
}

// AttentionRate is e's rate for an attention work key, per cycle and
// thread: the key's own, or where the engine does not list it the f16
// class's (RateF16Gemv, RateFlashAttn).
func (e *Engine) AttentionRate(key string) float64 {
	return e.KernelOpsPerCycle[e.AttentionKey(key)]
}

// AttentionKey is the key of e's kernel table that an attention work
// key's rate is read from: the key where the table lists it, else f16.
func (e *Engine) AttentionKey(key string) string {
	if v := e.KernelOpsPerCycle[key]; v > 0 {
		return key
	}
	return string(ClassF16)
}
