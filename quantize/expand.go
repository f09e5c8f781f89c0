package quantize

import (
	"fmt"
	"sort"
	"strings"

	"github.com/blsim/blsim/gguf"
)

// Result is a model's tensors as the scheme leaves them, in the order they
// were given, and what the expansion noticed.
type Result struct {
	Scheme  Scheme
	Tensors []gguf.Tensor
	// Fallbacks are the tensors whose rows are not a multiple of the
	// chosen type's block, and which took llama.cpp's fallback type.
	Fallbacks []string
	// Notes say, one line each, what a reader of the workload should know:
	// the fallbacks, the 2024 interleaved layout.
	Notes []string
}

// Error is a model that the scheme cannot quantize, as llama-quantize
// refuses it: the tensor and why.
type Error struct {
	Scheme Scheme
	Tensor string
	Msg    string
}

func (e *Error) Error() string {
	if e.Tensor == "" {
		return fmt.Sprintf("%s: %s", e.Scheme, e.Msg)
	}
	return fmt.Sprintf("%s: tensor %s: %s", e.Scheme, e.Tensor, e.Msg)
}

// quantizable reports whether llama-quantize quantizes the tensor at all:
// a weight of two or more dimensions that is not a norm, a MoE router, a
// position or token-type embedding, a Mamba convolution, an RWKV time-mix
// vector or a T5 relative-position bias. Others keep the type they were
// converted to.
func quantizable(t gguf.Tensor) bool {
	n := t.Name
	if !strings.HasSuffix(n, "weight") || nDims(t) < 2 {
		return false
	}
	for _, skip := range []string{"_norm.weight", "ffn_gate_inp.weight", "ssm_conv1d.weight", "attn_rel_b.weight",
		"time_mix_first.weight", "time_mix_w1.weight", "time_mix_w2.weight", "time_mix_decay_w1.weight",
		"time_mix_decay_w2.weight", "time_mix_lerp_fused.weight"} {
		if strings.Contains(n, skip) {
			return false
		}
	}
	return n != "position_embd.weight" && n != "token_types.weight"
}

// nDims is ggml_n_dims: the dimensions up to the last that is not 1.
func nDims(t gguf.Tensor) int {
	n := len(t.Dims)
	for n > 1 && t.Dims[n-1] == 1 {
		n--
	}
	return n
}

// layerKey orders tensors as llama.cpp's loader does: by the layer their
// name gives (-1 outside the layers), then by name.
func layerKey(name string) int {
	var i int
	if _, err := fmt.Sscanf(name, "blk.%d.", &i); err != nil {
		return -1
	}
	return i
}

// Expand gives each of the model's tensors the type scheme s assigns it,
// as llama-quantize of llama.cpp c392e50 does (see the package doc). The
// tensors come as converted (2-D weights F16, BF16 or F32; norms, biases
// and routers F32), in any order; the result keeps that order. A scheme
// that needs an importance matrix the options do not have, or a tensor
// with no type its rows fit, is an *Error.
func Expand(s Scheme, m Model, tensors []gguf.Tensor, o Options) (*Result, error) {
	if _, ok := schemes[s]; !ok {
		return nil, &Error{Scheme: s, Msg: "not a llama.cpp quantization scheme"}
	}
	if s.NeedsImatrix() && !o.Imatrix {
		return nil, &Error{Scheme: s, Msg: "llama-quantize refuses it without an importance matrix (its IQ1/IQ2 or Q2_K tensors would be garbage): say the file was made with one (imatrix)"}
	}
	if m.Layers < 1 {
		return nil, &Error{Scheme: s, Msg: fmt.Sprintf("a model of %d layers", m.Layers)}
	}
	st := &state{s: s, m: m, o: o, falcon: m.Arch == "falcon", nFFN: m.Layers, fellBack: map[string]bool{}}
	for _, t := range tensors {
		switch {
		case strings.Contains(t.Name, "attn_v.weight"), strings.Contains(t.Name, "attn_qkv.weight"), strings.Contains(t.Name, "attn_kv_b.weight"):
			st.nAttnV++
		case t.Name == "output.weight":
			st.hasOut = true
		}
	}
	order := make([]int, len(tensors))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		na, nb := tensors[order[a]].Name, tensors[order[b]].Name
		if la, lb := layerKey(na), layerKey(nb); la != lb {
			return la < lb
		}
		return na < nb
	})
	r := &Result{Scheme: s, Tensors: make([]gguf.Tensor, len(tensors))}
	interleaved, plain := 0, 0
	for _, i := range order {
		t := tensors[i]
		t.Dims = append([]int64(nil), t.Dims...)
		if len(t.Dims) == 0 {
			return nil, &Error{Scheme: s, Tensor: t.Name, Msg: "no dimensions"}
		}
		if quantizable(t) {
			typ, err := st.tensorType(t)
			if err != nil {
				return nil, err
			}
			if s.Legacy() && typ == tQ4_0 {
				if t.Name != "token_embd.weight" && legacyRowsFit(s, t) {
					interleaved++
				} else {
					plain++
				}
			}
			t.Type = typ
		}
		r.Tensors[i] = t
	}
	for _, i := range order {
		if n := r.Tensors[i].Name; st.fellBack[n] {
			r.Fallbacks = append(r.Fallbacks, n)
		}
	}
	if len(r.Fallbacks) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d tensors have rows that are not a multiple of their type's block and took llama.cpp's fallback type (Q4_K to Q5_0, Q6_K to Q8_0...): %s", len(r.Fallbacks), abbreviate(r.Fallbacks, 4)))
	}
	if s.Legacy() {
		r.Notes = append(r.Notes, fmt.Sprintf("%s is a 2024 file type (llama.cpp PR #5780 to #10446): %d weights hold Q4_0 blocks interleaved for arm64's kernels and %d plain Q4_0 (the token embedding, rows not in fours); all are typed q4_0 here, as ggml since #10446 repacks Q4_0 at load", s, interleaved, plain))
	}
	return r, nil
}

// legacyRowsFit: the interleaved 2024 layouts take weights whose rows come
// in fours (eights for Q4_0_8_8); others stay plain Q4_0.
func legacyRowsFit(s Scheme, t gguf.Tensor) bool {
	if len(t.Dims) < 2 {
		return false
	}
	if s == Q4_0_8_8 {
		return t.Dims[1]%8 == 0
	}
	return t.Dims[1]%4 == 0
}

// tensorType is a quantized tensor's type: the scheme's default, the
// per-tensor rules (for a quantized default), the row-width fallback, and
// llama-quantize's refusal of IQ1/IQ2 (and Q2_K_S's Q2_K) without an
// importance matrix.
func (st *state) tensorType(t gguf.Tensor) (gguf.Type, error) {
	s := st.s
	typ := s.Default()
	if !s.quantized() {
		return typ, nil
	}
	typ, err := st.rule(t, typ)
	if err != nil {
		return 0, &Error{Scheme: s, Tensor: t.Name, Msg: err.Error()}
	}
	if nx := t.Dims[0]; nx%typ.BlockWeights() != 0 {
		fb, ok := fallbackOf(typ)
		if !ok {
			return 0, &Error{Scheme: s, Tensor: t.Name, Msg: fmt.Sprintf("rows of %d weights are not a multiple of %s's block of %d, and llama.cpp has no fallback for %s", nx, typ, typ.BlockWeights(), typ)}
		}
		if nx%fb.BlockWeights() != 0 {
			fb = tF16
		}
		typ = fb
		st.fellBack[t.Name] = true
	}
	if !st.o.Imatrix && t.Type != typ {
		embOrOut := t.Name == "token_embd.weight" || t.Name == "output.weight"
		switch {
		case typ == tIQ2XXS || typ == tIQ2XS || typ == tIQ2S || typ == tIQ1S,
			typ == tIQ1M && !embOrOut,
			typ == tQ2_K && s == Q2_K_S && t.Name != "token_embd.weight":
			return 0, &Error{Scheme: s, Tensor: t.Name, Msg: fmt.Sprintf("would be %s, which llama-quantize refuses without an importance matrix", typ)}
		}
	}
	return typ, nil
}

// abbreviate lists the first k names and how many more.
func abbreviate(names []string, k int) string {
	if len(names) <= k {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:k], ", "), len(names)-k)
}
