package gguf

import (
	"fmt"
	"sort"
	"strings"

	"github.com/blsim/blsim/model"
)

// family is how one general.architecture is laid out, after llama.cpp's
// loader for it (src/llama-model.cpp and src/models/ARCH.cpp, load_hparams
// and load_tensors).
type family struct {
	experts expertRule
	// expertKey: the expert FFN width is ARCH.expert_feed_forward_length;
	// otherwise (llama with experts, Mixtral style) ARCH.feed_forward_length.
	expertKey bool
	// swaPeriod is llama.cpp's set_swa_pattern(n) for the architecture:
	// layer i slides when i%n < n-1 (0: no sliding window).
	swaPeriod int
	// window is the sliding window when ARCH.attention.sliding_window is
	// missing (0: the key is required).
	window int
	// hybrid: Gated DeltaNet layers between full-attention ones, with a
	// gated query (Qwen3-Next, Qwen3.5).
	hybrid bool
	// mla: multi-head latent attention (DeepSeek-V2/V3).
	mla bool
}

type expertRule int

const (
	dense        expertRule = iota // no routed experts
	maybeExperts                   // experts when ARCH.expert_count > 0 (llama: Mixtral)
	needExperts                    // ARCH.expert_count and ARCH.expert_used_count required
)

// families are the architectures blsim maps.
var families = map[string]family{
	"llama":     {experts: maybeExperts},
	"qwen2":     {},
	"qwen3":     {},
	"phi3":      {},
	"gemma":     {},
	"gemma2":    {swaPeriod: 2, window: 4096}, // llama.cpp: "default value of gemma 2"
	"gemma3":    {swaPeriod: 6},
	"qwen2moe":  {experts: needExperts, expertKey: true},
	"qwen3moe":  {experts: needExperts, expertKey: true},
	"gpt-oss":   {experts: needExperts, expertKey: true, swaPeriod: 2},
	"deepseek2": {experts: needExperts, expertKey: true, mla: true},
	"qwen3next": {experts: needExperts, expertKey: true, hybrid: true},
	"qwen35moe": {experts: needExperts, expertKey: true, hybrid: true},
}

// maxLayers is the most layers a workload may have (model.Validate's
// bound on model.layers), checked before anything is sized by it.
const maxLayers = 1000

// Architectures lists the general.architecture values blsim maps, sorted.
func Architectures() []string {
	out := make([]string, 0, len(families))
	for a := range families {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// shape is what mapArch reads: the architecture and the notes on how.
type shape struct {
	arch  model.Arch
	notes []string
}

// mapArch maps the header to a model.Arch (widths, heads, experts,
// layer pattern), checking every value it uses. BitsPerWeight and Types
// are filled by the caller from the tensors.
func (m *Model) mapArch() (*shape, error) {
	fam, ok := families[m.Arch]
	g := m.meta()
	if !ok {
		return nil, g.err("general.architecture", "%q is not an architecture blsim maps (it maps %s)", m.Arch, strings.Join(Architectures(), ", "))
	}
	s := &shape{}
	note := func(format string, a ...any) { s.notes = append(s.notes, fmt.Sprintf(format, a...)) }
	p := m.Arch + "."
	a := &s.arch

	layers, err := g.need(p+"block_count", "the number of layers")
	if err != nil {
		return nil, err
	}
	if layers < 1 || layers > maxLayers {
		return nil, g.err(p+"block_count", "%d layers is outside [1, %d]", layers, maxLayers)
	}
	a.Layers = layers
	if a.Hidden, err = g.need(p+"embedding_length", "the hidden width"); err != nil {
		return nil, err
	}
	if err := m.attention(g, fam, p, s); err != nil {
		return nil, err
	}
	if a.Vocab, err = m.vocab(g, a.Hidden, note); err != nil {
		return nil, err
	}
	if err := m.ffn(g, fam, p, s); err != nil {
		return nil, err
	}
	if err := m.pattern(g, fam, p, s); err != nil {
		return nil, err
	}
	return s, nil
}

// attention reads the softmax attention's heads and head width.
func (m *Model) attention(g meta, fam family, p string, s *shape) error {
	a := &s.arch
	heads, ok, err := g.layerInt(p+"attention.head_count", a.Layers)
	if err != nil {
		return err
	}
	if !ok || heads == 0 {
		return g.err(p+"attention.head_count", "missing (the attention heads)")
	}
	kv, ok, err := g.layerInt(p+"attention.head_count_kv", a.Layers)
	if err != nil {
		return err
	}
	if !ok || kv == 0 {
		kv = heads // llama.cpp: n_head_kv defaults to n_head
	}
	if kv > heads || heads%kv != 0 {
		return g.err(p+"attention.head_count_kv", "%d KV heads do not divide %d heads", kv, heads)
	}
	if fam.mla {
		return m.mla(g, p, heads, kv, a)
	}
	hd, ok, err := g.int(p + "attention.key_length")
	if err != nil {
		return err
	}
	if !ok {
		if a.Hidden%heads != 0 {
			return g.err(p+"attention.key_length", "missing, and hidden %d is not a multiple of %d heads", a.Hidden, heads)
		}
		hd = a.Hidden / heads // llama.cpp: n_embd_head_k defaults to n_embd / n_head
	}
	if vl, ok, err := g.int(p + "attention.value_length"); err != nil {
		return err
	} else if ok && vl != hd {
		return g.err(p+"attention.value_length", "%d differs from the key width %d: blsim models one head width", vl, hd)
	}
	a.Attention = model.SoftmaxAttention{Heads: heads, KVHeads: kv, HeadDim: hd, QGate: fam.hybrid}
	return nil
}

// mla maps multi-head latent attention (deepseek2, llama.cpp's
// llm_build_deepseek2): the kv LoRA rank and the rotary width are
// required, the q LoRA rank is 0 when absent (the Lite models project
// queries directly), and the key and value widths come from key_length and
// value_length.
func (m *Model) mla(g meta, p string, heads, kv int, a *model.Arch) error {
	need := func(key, what string) (int, error) {
		v, ok, err := g.int(p + key)
		if err != nil {
			return 0, err
		}
		if !ok || v <= 0 {
			return 0, g.err(p+key, "missing (%s uses multi-head latent attention: %s)", m.Arch, what)
		}
		return v, nil
	}
	rank, err := need("attention.kv_lora_rank", "the rank of its key-value latent")
	if err != nil {
		return err
	}
	rope, err := need("rope.dimension_count", "the rotary part of each key")
	if err != nil {
		return err
	}
	hd, err := need("attention.key_length", "each head's key width")
	if err != nil {
		return err
	}
	vd, err := need("attention.value_length", "each head's value width")
	if err != nil {
		return err
	}
	qr, _, err := g.int(p + "attention.q_lora_rank")
	if err != nil {
		return err
	}
	if kv != heads {
		return g.err(p+"attention.head_count_kv", "%d KV heads of %d: multi-head latent attention has one latent for all heads, and llama.cpp gives it head_count_kv = head_count", kv, heads)
	}
	if rope >= hd {
		return g.err(p+"rope.dimension_count", "%d is not below the key width %d (key_length: the rotary part plus the rest)", rope, hd)
	}
	a.Attention = model.SoftmaxAttention{Heads: heads, KVHeads: kv, HeadDim: hd, ValueDim: vd, KVLoraRank: rank, QLoraRank: qr, RopeDim: rope}
	return nil
}

// vocab is the output head's rows: output.weight, or token_embd.weight
// when the head is tied to the embedding.
func (m *Model) vocab(g meta, hidden int, note func(string, ...any)) (int, error) {
	t, ok := m.Tensor("output.weight")
	if !ok {
		t, ok = m.Tensor("token_embd.weight")
	}
	if !ok {
		return 0, g.err("output.weight", "missing, and no token_embd.weight to tie it to: there is no output head")
	}
	if len(t.Dims) != 2 || t.Dims[0] != int64(hidden) || t.Dims[1] > maxShape {
		return 0, g.err(t.Name, "shape %v is not {hidden %d, vocab}", t.Dims, hidden)
	}
	vocab := int(t.Dims[1])
	if v, ok := m.File.Get("tokenizer.ggml.tokens"); ok && v.Type == Array && v.Len != uint64(vocab) {
		note("the tokenizer lists %d tokens, the output head has %d rows: the head's rows are the vocabulary timed", v.Len, vocab)
	}
	return vocab, nil
}

// firstDim returns dimension i of the first tensor whose name, after
// "blk.N.", is one of bases.
func (m *Model) firstDim(i int, bases ...string) (int, string, bool) {
	for _, t := range m.File.Tensors {
		mm := layerName.FindStringSubmatch(t.Name)
		if mm == nil || len(t.Dims) <= i {
			continue
		}
		for _, b := range bases {
			if mm[2] == b {
				return int(t.Dims[i]), t.Name, true
			}
		}
	}
	return 0, "", false
}

// width reads an FFN width from key (a scalar or one value per layer),
// checked against the tensors that carry it (tensor bases, dimension
// dim); either alone will do.
func (m *Model) width(g meta, key string, layers, dim int, bases []string, what string, note func(string, ...any)) (int, bool, error) {
	kv, hasKey, err := g.layerInt(key, layers)
	if err != nil {
		return 0, false, err
	}
	tv, tname, hasT := m.firstDim(dim, bases...)
	switch {
	case hasKey && hasT && kv != tv:
		return 0, false, g.err(key, "%d, but tensor %s is %d wide", kv, tname, tv)
	case hasT:
		if !hasKey {
			note("%s %d from tensor %s (%s is missing)", what, tv, tname, key)
		}
		return tv, true, nil
	case hasKey && kv > 0:
		return kv, true, nil
	}
	return 0, false, nil
}

// ffn reads the feed-forward blocks: routed experts, shared experts,
// dense layers.
func (m *Model) ffn(g meta, fam family, p string, s *shape) error {
	a := &s.arch
	note := func(format string, x ...any) { s.notes = append(s.notes, fmt.Sprintf(format, x...)) }
	experts, hasE, err := g.int(p + "expert_count")
	if err != nil {
		return err
	}
	switch {
	case fam.experts == needExperts && (!hasE || experts == 0):
		return g.err(p+"expert_count", "missing (%s routes to experts)", m.Arch)
	case fam.experts == dense && experts > 0:
		return g.err(p+"expert_count", "%d, but llama.cpp's %s has no experts", experts, m.Arch)
	}
	e := &a.MoE
	upExps := []string{"ffn_gate_exps.weight", "ffn_up_exps.weight", "ffn_gate.0.weight", "ffn_up.0.weight"}
	if experts > 0 {
		topK, err := g.need(p+"expert_used_count", "the experts each token routes to")
		if err != nil {
			return err
		}
		if topK < 1 || topK > experts {
			return g.err(p+"expert_used_count", "%d is outside [1, %d experts]", topK, experts)
		}
		key := p + "feed_forward_length"
		if fam.expertKey {
			key = p + "expert_feed_forward_length"
		}
		ffn, ok, err := m.width(g, key, a.Layers, 1, upExps, "expert FFN width", note)
		if err != nil {
			return err
		}
		if !ok {
			return g.err(key, "missing, and no ffn_gate_exps/ffn_up_exps tensor to read the expert FFN width from")
		}
		e.Experts, e.TopK, e.ExpertFFN = experts, topK, ffn
		sh, ok, err := m.width(g, p+"expert_shared_feed_forward_length", a.Layers, 1, []string{"ffn_up_shexp.weight", "ffn_gate_shexp.weight"}, "shared expert width", func(string, ...any) {})
		if err != nil {
			return err
		}
		if _, _, hasT := m.firstDim(1, "ffn_up_shexp.weight"); ok && hasT {
			e.SharedExperts, e.SharedFFN = 1, sh
		}
		lead, _, err := g.int(p + "leading_dense_block_count")
		if err != nil {
			return err
		}
		if lead > a.Layers {
			return g.err(p+"leading_dense_block_count", "%d dense layers of %d", lead, a.Layers)
		}
		e.DenseLayers = lead
	} else {
		e.DenseLayers = a.Layers
	}
	if e.DenseLayers > 0 {
		ffn, ok, err := m.width(g, p+"feed_forward_length", a.Layers, 0, []string{"ffn_down.weight"}, "dense FFN width", note)
		if err != nil {
			return err
		}
		if !ok {
			return g.err(p+"feed_forward_length", "missing (the dense FFN width)")
		}
		e.DenseFFN = ffn
	}
	if experts == 0 {
		// A dense model: experts 0, every layer's FFN dense.
		e.Experts, e.TopK, e.ExpertFFN = 0, 0, 0
		note("dense model: dense_layers = layers (%d) with FFN %d, no experts", a.Layers, e.DenseFFN)
	}
	return nil
}
