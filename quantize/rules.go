package quantize

import (
	"fmt"
	"strings"

	"github.com/blsim/blsim/gguf"
)

// Model is what the rules read of a model besides its tensors: llama.cpp's
// hparams as its loader fills them from the GGUF's keys.
type Model struct {
	// Arch is general.architecture (llama, qwen2, phi3...).
	Arch string
	// Layers is block_count; Heads and KVHeads the attention heads of a
	// layer (their ratio is llama.cpp's n_gqa); Experts the routed experts
	// (0 for a dense model).
	Layers, Heads, KVHeads, Experts int
}

// gqa is llama.cpp's n_gqa(): query heads per KV head, 0 without KV heads.
func (m Model) gqa() int {
	if m.KVHeads == 0 {
		return 0
	}
	return m.Heads / m.KVHeads
}

// is70B is llama.cpp's LLM_TYPE_70B, whose value projections take a bigger
// type: a llama of 80 layers with grouped-query attention (not an 8-expert
// one), or a qwen2 of 80 layers.
func (m Model) is70B() bool {
	switch m.Arch {
	case "llama":
		return m.Experts != 8 && m.Layers == 80 && m.Heads != m.KVHeads
	case "qwen2":
		return m.Layers == 80
	}
	return false
}

// Options are how the file was made besides its scheme.
type Options struct {
	// Imatrix: llama-quantize was given an importance matrix (most
	// published GGUFs of 2024 on are). It allows the IQ1/IQ2 schemes and
	// Q2_K_S, and changes a few rules.
	Imatrix bool
}

// state is the quantizer's running state over one model's tensors: the
// counters llama.cpp keeps as it walks them in order.
type state struct {
	s        Scheme
	m        Model
	o        Options
	falcon   bool
	hasOut   bool
	nAttnV   int // attn_v, attn_qkv and attn_kv_b tensors
	iAttnV   int // attn_v tensors seen
	nFFN     int // layers
	iDown    int
	iGate    int
	iUp      int
	fellBack map[string]bool // tensors that took the row-width fallback
}

// useMoreBits picks the layers a Q4_K_M or Q5_K_M gives more bits: the
// first and last eighth, and every third layer between.
func useMoreBits(i, n int) bool {
	return i < n/8 || i >= 7*n/8 || (i-n/8)%3 == 2
}

// layerOf is the layer a tensor's rule counts: its counter for a model of
// at most one expert, else the layer its name gives (an MoE's tensors
// need not come in layer order).
func (st *state) layerOf(counter int, name string) (int, error) {
	if st.m.Experts <= 1 {
		return counter, nil
	}
	var i int
	if _, err := fmt.Sscanf(name, "blk.%d.", &i); err != nil {
		return 0, fmt.Errorf("tensor %s: no layer in its name", name)
	}
	if i < 0 || i >= st.nFFN {
		return 0, fmt.Errorf("tensor %s: layer %d is outside [0, %d)", name, i, st.nFFN)
	}
	return i, nil
}

// iq12 are the schemes of one or two bits a weight.
func (s Scheme) iq12() bool {
	switch s {
	case IQ2_XXS, IQ2_XS, IQ1_S, IQ2_S, IQ2_M, IQ1_M:
		return true
	}
	return false
}

// rule is the type the scheme gives one quantized tensor, before the
// row-width fallback: llama.cpp's llama_tensor_get_type at c392e50, whose
// branches it follows in order (the first that matches the name decides).
func (st *state) rule(t gguf.Tensor, typ gguf.Type) (gguf.Type, error) {
	s, m, name := st.s, st.m, t.Name
	has := func(sub string) bool { return strings.Contains(name, sub) }
	nx := t.Dims[0]
	switch {
	case name == "output.weight" || (!st.hasOut && name == "token_embd.weight"):
		switch {
		case st.falcon || nx%typ.BlockWeights() != 0:
			return tQ8_0, nil
		case s == IQ2_XXS || s == IQ2_XS || s == IQ3_XXS || s == IQ1_S || s == IQ2_S || s == IQ2_M || s == IQ1_M:
			return tQ5_K, nil
		case typ != tQ8_0:
			return tQ6_K, nil
		}
		return typ, nil
	case name == "token_embd.weight":
		switch s {
		case IQ2_XXS, IQ2_XS, IQ1_S, IQ1_M:
			return tQ2_K, nil
		case IQ2_S, IQ2_M, IQ3_XXS:
			return tIQ3S, nil
		case TQ1_0, TQ2_0:
			return tQ4_K, nil
		}
		return typ, nil // the 2024 interleaved schemes: plain Q4_0
	case s.iq12():
		switch {
		case has("attn_v.weight"):
			st.iAttnV++
			if m.gqa() >= 4 || m.Experts >= 4 {
				return tQ4_K, nil
			}
			if s == IQ2_S || s == IQ2_M {
				return tIQ3S, nil
			}
			return tQ2_K, nil
		case m.Experts == 8 && has("attn_k.weight"):
			return tQ4_K, nil
		case has("ffn_down"):
			i := st.iDown
			st.iDown++
			if i < st.nFFN/8 {
				if s == IQ2_S || s == IQ2_M {
					return tIQ3S, nil
				}
				return tQ2_K, nil
			}
		case has("attn_output.weight"):
			switch {
			case m.Experts == 8:
				return tQ5_K, nil
			case s == IQ1_S || s == IQ1_M:
				return tIQ2XXS, nil
			case s == IQ2_S || s == IQ2_M:
				return tIQ3S, nil
			}
		}
		return typ, nil
	case has("attn_v.weight"):
		return st.valueRule(typ), nil
	case has("attn_k.weight"):
		switch {
		case m.Experts == 8:
			return tQ8_0, nil
		case s == IQ3_XS:
			return tIQ3XXS, nil
		case s == IQ3_XXS:
			return tIQ2S, nil
		}
		return typ, nil
	case has("attn_q.weight"):
		switch s {
		case IQ3_XS:
			return tIQ3XXS, nil
		case IQ3_XXS:
			return tIQ2S, nil
		}
		return typ, nil
	case has("ffn_down"):
		i, err := st.layerOf(st.iDown, name)
		st.iDown++
		if err != nil {
			return 0, err
		}
		return st.downRule(typ, i, st.nFFN), nil
	case has("attn_output.weight"):
		return st.outProjRule(typ), nil
	case has("attn_qkv.weight"):
		switch s {
		case Q3_K_M, Q3_K_L, IQ3_M:
			return tQ4_K, nil
		case Q4_K_M:
			return tQ5_K, nil
		case Q5_K_M:
			return tQ6_K, nil
		}
		return typ, nil
	case has("ffn_gate"), has("ffn_up"):
		counter := &st.iUp
		if has("ffn_gate") {
			counter = &st.iGate
		}
		i, err := st.layerOf(*counter, name)
		*counter++
		if err != nil {
			return 0, err
		}
		if s == IQ3_XS && i >= st.nFFN/8 && i < 7*st.nFFN/8 {
			return tIQ3XXS, nil
		}
	}
	return typ, nil
}

// valueRule is the value projection's type (attn_v).
func (st *state) valueRule(typ gguf.Type) gguf.Type {
	s, m := st.s, st.m
	i := st.iAttnV
	st.iAttnV++
	switch {
	case s == Q2_K:
		typ = tQ3_K
		if m.gqa() >= 4 {
			typ = tQ4_K
		}
	case s == Q2_K_S && m.gqa() >= 4:
		typ = tQ4_K
	case s == IQ3_XXS:
		switch {
		case m.gqa() >= 4:
			typ = tQ4_K
		case !st.o.Imatrix:
			typ = tIQ3S
		default:
			typ = tIQ3XXS
		}
	case (s == IQ3_XS || s == IQ3_S) && m.gqa() >= 4:
		typ = tQ4_K
	case s == IQ3_M:
		typ = tQ4_K
	case s == Q3_K_M:
		typ = tQ4_K
		if i < 2 {
			typ = tQ5_K
		}
	case s == Q3_K_L:
		typ = tQ5_K
	case (s == IQ4_NL || s == IQ4_XS) && m.gqa() >= 4:
		typ = tQ5_K
	case (s == Q4_K_M || s == Q5_K_M) && useMoreBits(i, st.nAttnV):
		typ = tQ6_K
	case s == Q4_K_S && i < 4:
		typ = tQ5_K
	}
	if m.is70B() && (typ == tQ3_K || typ == tQ4_K) {
		typ = tQ5_K
	}
	if m.Experts == 8 {
		typ = tQ8_0
	}
	return typ
}

// downRule is the FFN down projection's type in layer i of n.
func (st *state) downRule(typ gguf.Type, i, n int) gguf.Type {
	s, falcon := st.s, st.falcon
	more := useMoreBits(i, n)
	switch {
	case s == Q2_K:
		return tQ3_K
	case s == Q2_K_S:
		if i < n/8 {
			return tQ4_K
		}
	case s == IQ3_XXS && !st.o.Imatrix:
		if i < n/8 {
			return tQ4_K
		}
		return tQ3_K
	case s == Q3_K_M:
		switch {
		case i < n/16:
			return tQ5_K
		case !falcon || more:
			return tQ4_K
		}
		return tQ3_K
	case s == IQ3_M && (i < n/8 || (st.m.Experts == 8 && more)):
		return tQ4_K
	case s == Q3_K_L:
		if falcon {
			return tQ4_K
		}
		return tQ5_K
	case s == Q4_K_M:
		switch {
		case falcon && i < n/16:
			return tQ6_K
		case falcon && more:
			return tQ5_K
		case falcon:
			return tQ4_K
		case more:
			return tQ6_K
		}
	case i < n/8 && (s == IQ4_NL || s == IQ4_XS) && !st.o.Imatrix:
		return tQ5_K
	case s == Q5_K_M && more:
		return tQ6_K
	case s == Q4_K_S && !falcon && i < n/8:
		return tQ5_K
	case (s == Q4_0 || s == Q5_0) && st.o.Imatrix && i < n/8:
		if s == Q4_0 {
			return tQ4_1
		}
		return tQ5_1
	}
	return typ
}

// outProjRule is the attention output projection's type (attn_output).
func (st *state) outProjRule(typ gguf.Type) gguf.Type {
	s := st.s
	if st.falcon {
		if s == Q3_K_L {
			return tQ4_K
		}
		return typ
	}
	if st.m.Experts == 8 {
		switch s {
		case Q2_K, IQ3_XS, IQ3_XXS, Q3_K_S, Q3_K_M, IQ4_NL, Q4_K_S, Q4_K_M, IQ3_S, IQ3_M, IQ4_XS:
			return tQ5_K
		}
		return typ
	}
	switch s {
	case Q2_K:
		return tQ3_K
	case IQ3_XXS:
		return tIQ3S
	case Q3_K_M, IQ3_M:
		return tQ4_K
	case Q3_K_L:
		return tQ5_K
	}
	return typ
}

// fallbackOf is the type a tensor whose rows are not a multiple of typ's
// block takes instead, and whether there is one.
func fallbackOf(typ gguf.Type) (gguf.Type, bool) {
	switch typ {
	case tTQ1_0, tTQ2_0:
		return tQ4_0, true
	case tIQ2XXS, tIQ2XS, tIQ2S, tIQ3XXS, tIQ3S, tIQ1S, tIQ1M, tQ2_K, tQ3_K, tIQ4XS:
		return tIQ4NL, true
	case tQ4_K:
		return tQ5_0, true
	case tQ5_K:
		return tQ5_1, true
	case tQ6_K:
		return tQ8_0, true
	}
	return 0, false
}
