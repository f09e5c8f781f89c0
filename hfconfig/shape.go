package hfconfig

import (
	"fmt"
	"sort"
	"strings"
)

// Shape is the model as llama.cpp's converter lays it out: the
// architecture by llama.cpp's name, the widths, and what was assumed.
type Shape struct {
	// Arch is llama.cpp's general.architecture (llama, qwen2, phi3...).
	Arch                                    string
	Layers, Hidden, Heads, KVHeads, HeadDim int
	FFN, Vocab                              int
	Experts, TopK, ExpertFFN, SharedFFN     int
	Tied                                    bool
	// SlidingWindow is the window of the sliding layers (0: none); the
	// layers that slide are the architecture's (package gguf).
	SlidingWindow int
	// SWAPattern is Gemma 3's period of full-attention layers.
	SWAPattern    int
	ContextLength int
	// RopeFreqs: Llama 3.1-style rope scaling, which adds a rope_freqs
	// tensor of HeadDim/2 values.
	RopeFreqs bool
	Notes     []string
}

// archInfo is one architecture as its Hugging Face class and llama.cpp
// know it.
type archInfo struct {
	arch  string // llama.cpp's name
	class string // Hugging Face's config class, for notes
	tied  bool   // that class's tie_word_embeddings default
	moe   bool   // routes to experts
}

// archs maps Hugging Face's architectures (the model class) and
// model_type values to llama.cpp's architecture, as convert_hf_to_gguf.py
// registers them.
var archs = map[string]archInfo{
	"LlamaForCausalLM": {"llama", "LlamaConfig", false, false}, "llama": {"llama", "LlamaConfig", false, false},
	"MistralForCausalLM": {"llama", "MistralConfig", false, false}, "mistral": {"llama", "MistralConfig", false, false},
	"MixtralForCausalLM": {"llama", "MixtralConfig", false, true}, "mixtral": {"llama", "MixtralConfig", false, true},
	"Qwen2ForCausalLM": {"qwen2", "Qwen2Config", false, false}, "qwen2": {"qwen2", "Qwen2Config", false, false},
	"Qwen2MoeForCausalLM": {"qwen2moe", "Qwen2MoeConfig", false, true}, "qwen2_moe": {"qwen2moe", "Qwen2MoeConfig", false, true},
	"Qwen3ForCausalLM": {"qwen3", "Qwen3Config", false, false}, "qwen3": {"qwen3", "Qwen3Config", false, false},
	"Qwen3MoeForCausalLM": {"qwen3moe", "Qwen3MoeConfig", false, true}, "qwen3_moe": {"qwen3moe", "Qwen3MoeConfig", false, true},
	"Phi3ForCausalLM": {"phi3", "Phi3Config", false, false}, "phi3": {"phi3", "Phi3Config", false, false},
	"GemmaForCausalLM": {"gemma", "GemmaConfig", true, false}, "gemma": {"gemma", "GemmaConfig", true, false},
	"Gemma2ForCausalLM": {"gemma2", "Gemma2Config", true, false}, "gemma2": {"gemma2", "Gemma2Config", true, false},
	"Gemma3ForCausalLM": {"gemma3", "Gemma3TextConfig", true, false}, "gemma3_text": {"gemma3", "Gemma3TextConfig", true, false},
	"Gemma3ForConditionalGeneration": {"gemma3", "Gemma3TextConfig", true, false},
}

// Architectures lists the names an architectures entry or model_type may
// take (Hugging Face's), sorted.
func Architectures() []string {
	var out []string
	for k := range archs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// byLlamaName lets a config (or --arch) name llama.cpp's architecture
// directly.
func byLlamaName(n string) (archInfo, bool) {
	for _, a := range archs {
		if a.arch == n {
			if n == "llama" {
				return archs["llama"], true
			}
			return a, true
		}
	}
	return archInfo{}, false
}

func (c *Config) err(key, format string, a ...any) error {
	return &ConfigError{File: c.File, Key: key, Msg: fmt.Sprintf(format, a...)}
}

func (c *Config) arch() (archInfo, string, error) {
	var tried []string
	for _, a := range c.Architectures {
		if i, ok := archs[a]; ok {
			return i, "architectures", nil
		}
		if i, ok := byLlamaName(a); ok {
			return i, "architectures", nil
		}
		tried = append(tried, a)
	}
	if c.ModelType != "" {
		if i, ok := archs[c.ModelType]; ok {
			return i, "model_type", nil
		}
		if i, ok := byLlamaName(c.ModelType); ok {
			return i, "model_type", nil
		}
		tried = append(tried, c.ModelType)
	}
	if len(tried) == 0 {
		return archInfo{}, "", c.err("architectures", "missing, and no model_type: which architecture is the model? (one of %s)", strings.Join(Architectures(), ", "))
	}
	return archInfo{}, "", c.err("architectures", "%s: not an architecture blsim builds from a config (it builds %s; others from their GGUF with --gguf)", strings.Join(tried, ", "), strings.Join(Architectures(), ", "))
}

// need returns a required positive integer key.
func (c *Config) need(p *int, key, what string) (int, error) {
	if p == nil {
		return 0, c.err(key, "missing (%s)", what)
	}
	if *p < 1 || *p > 1<<24 {
		return 0, c.err(key, "%d is outside [1, %d] (%s)", *p, 1<<24, what)
	}
	return *p, nil
}

// Shape checks the config and lays it out as llama.cpp would: required
// keys present, optional ones at their class's default (noted), widths
// consistent.
func (c *Config) Shape() (*Shape, error) {
	ai, _, err := c.arch()
	if err != nil {
		return nil, err
	}
	s := &Shape{Arch: ai.arch, ContextLength: 4096}
	note := func(format string, a ...any) { s.Notes = append(s.Notes, fmt.Sprintf(format, a...)) }
	if s.Layers, err = c.need(c.Layers, "num_hidden_layers", "the number of layers"); err != nil {
		return nil, err
	}
	if s.Layers > 1000 {
		return nil, c.err("num_hidden_layers", "%d layers is over blsim's 1000", s.Layers)
	}
	if s.Hidden, err = c.need(c.Hidden, "hidden_size", "the hidden width"); err != nil {
		return nil, err
	}
	if s.Heads, err = c.need(c.Heads, "num_attention_heads", "the attention heads"); err != nil {
		return nil, err
	}
	if s.FFN, err = c.need(c.FFN, "intermediate_size", "the FFN width"); err != nil {
		return nil, err
	}
	if s.Vocab, err = c.need(c.Vocab, "vocab_size", "the vocabulary"); err != nil {
		return nil, err
	}
	s.KVHeads = s.Heads
	if c.KVHeads != nil {
		if s.KVHeads, err = c.need(c.KVHeads, "num_key_value_heads", "the KV heads"); err != nil {
			return nil, err
		}
	} else {
		note("num_key_value_heads missing: %d, the attention heads (%s's default)", s.Heads, ai.class)
	}
	if s.KVHeads > s.Heads || s.Heads%s.KVHeads != 0 {
		return nil, c.err("num_key_value_heads", "%d KV heads do not divide %d heads", s.KVHeads, s.Heads)
	}
	if c.HeadDim != nil {
		if s.HeadDim, err = c.need(c.HeadDim, "head_dim", "each head's width"); err != nil {
			return nil, err
		}
	} else {
		if s.Hidden%s.Heads != 0 {
			return nil, c.err("head_dim", "missing, and hidden_size %d is not a multiple of %d heads", s.Hidden, s.Heads)
		}
		s.HeadDim = s.Hidden / s.Heads
	}
	s.Tied = ai.tied
	if c.Tied != nil {
		s.Tied = *c.Tied
	} else {
		note("tie_word_embeddings missing: %v, %s's default", ai.tied, ai.class)
	}
	if c.ContextLength != nil && *c.ContextLength > 0 {
		s.ContextLength = *c.ContextLength
	}
	if rt, ok := c.RopeScaling["rope_type"].(string); ok && rt == "llama3" && ai.arch == "llama" {
		s.RopeFreqs = true
	}
	if err := c.experts(ai, s); err != nil {
		return nil, err
	}
	c.window(ai, s, note)
	if len(c.unused) > 0 {
		note("%d keys do not change the workload and are not used: %s", len(c.unused), abbreviate(c.unused, 6))
	}
	return s, nil
}

// experts reads the routed and shared experts.
func (c *Config) experts(ai archInfo, s *Shape) error {
	n, key := c.Experts, "num_experts"
	if c.LocalExperts != nil {
		n, key = c.LocalExperts, "num_local_experts"
	}
	if n == nil || *n == 0 {
		if ai.moe {
			return c.err("num_experts", "missing (the routed experts of a %s)", ai.class)
		}
		return nil
	}
	if ai.arch != "llama" && !ai.moe {
		return c.err(key, "%d, but llama.cpp's %s has no experts", *n, ai.arch)
	}
	var err error
	if s.Experts, err = c.need(n, key, "the routed experts"); err != nil {
		return err
	}
	if s.TopK, err = c.need(c.TopK, "num_experts_per_tok", "the experts each token routes to"); err != nil {
		return err
	}
	if s.TopK > s.Experts {
		return c.err("num_experts_per_tok", "%d of %d experts", s.TopK, s.Experts)
	}
	s.ExpertFFN = s.FFN // Mixtral: intermediate_size is each expert's
	if ai.arch != "llama" {
		if s.ExpertFFN, err = c.need(c.ExpertFFN, "moe_intermediate_size", "each expert's FFN width"); err != nil {
			return err
		}
	}
	if ai.arch == "qwen2moe" {
		if s.SharedFFN, err = c.need(c.SharedFFN, "shared_expert_intermediate_size", "the shared expert's FFN width"); err != nil {
			return err
		}
	}
	if c.DecoderSparseStep != nil && *c.DecoderSparseStep > 1 {
		return c.err("decoder_sparse_step", "%d: dense FFNs between routed layers, which blsim does not model (every layer is routed)", *c.DecoderSparseStep)
	}
	if len(c.MLPOnlyLayers) > 0 {
		return c.err("mlp_only_layers", "%v: dense FFNs between routed layers, which blsim does not model", c.MLPOnlyLayers)
	}
	return nil
}

// window reads the sliding window: Gemma 2 and 3 slide on some layers;
// llama.cpp's other graphs (llama for Mistral, qwen2, phi3) attend fully
// in every layer whatever the config says.
func (c *Config) window(ai archInfo, s *Shape, note func(string, ...any)) {
	w := 0
	if c.SlidingWindow != nil {
		w = *c.SlidingWindow
	}
	switch ai.arch {
	case "gemma2":
		if w == 0 {
			w = 4096
			note("sliding_window missing: 4096, llama.cpp's default for gemma2")
		}
		s.SlidingWindow = w
	case "gemma3":
		if w == 0 {
			w = 512
			note("sliding_window missing: 512, Gemma3TextConfig's default")
		}
		s.SlidingWindow = w
		s.SWAPattern = 6
		if c.SlidingWindowPattern != nil && *c.SlidingWindowPattern > 0 {
			s.SWAPattern = *c.SlidingWindowPattern
		}
	default:
		if w > 0 && (c.UseSlidingWindow == nil || *c.UseSlidingWindow) {
			note("sliding_window %d is not applied: llama.cpp's %s graph attends to the whole context in every layer", w, ai.arch)
		}
		if ai.arch == "phi3" {
			s.SlidingWindow = w // written as the converter does; gguf ignores it for phi3
		}
	}
}

func abbreviate(names []string, k int) string {
	if len(names) <= k {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:k], ", "), len(names)-k)
}
