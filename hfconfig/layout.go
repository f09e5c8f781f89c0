package hfconfig

import (
	"fmt"

	"github.com/blsim/blsim/gguf"
)

// The types a converter writes: 2-D weights F16 (convert_hf_to_gguf.py's
// default --outtype for an F16 or BF16 checkpoint, which the quantizer
// reads), 1-D tensors, norms and MoE routers F32.
const (
	f32 gguf.Type = 0
	f16 gguf.Type = 1
)

// keys are the metadata a converter writes for the shape, under
// llama.cpp's names: what package gguf and llama.cpp's loader read.
func (s *Shape) keys(name string) []gguf.KV {
	p := s.Arch + "."
	u := func(k string, v int) gguf.KV { return gguf.KV{Key: p + k, Value: gguf.Uint32Value(uint32(v))} }
	kv := []gguf.KV{
		{Key: "general.architecture", Value: gguf.StringValue(s.Arch)},
		{Key: "general.name", Value: gguf.StringValue(name)},
		u("block_count", s.Layers), u("context_length", s.ContextLength), u("embedding_length", s.Hidden),
		u("feed_forward_length", s.FFN), u("attention.head_count", s.Heads), u("attention.head_count_kv", s.KVHeads),
		u("vocab_size", s.Vocab),
	}
	if s.Hidden%s.Heads != 0 || s.HeadDim != s.Hidden/s.Heads {
		kv = append(kv, u("attention.key_length", s.HeadDim), u("attention.value_length", s.HeadDim))
	}
	if s.Arch == "llama" || s.Arch == "phi3" {
		kv = append(kv, u("rope.dimension_count", s.HeadDim))
	}
	if s.Experts > 0 {
		kv = append(kv, u("expert_count", s.Experts), u("expert_used_count", s.TopK))
		if s.Arch != "llama" {
			kv = append(kv, u("expert_feed_forward_length", s.ExpertFFN))
		}
		if s.SharedFFN > 0 {
			kv = append(kv, u("expert_shared_feed_forward_length", s.SharedFFN))
		}
	}
	if s.SlidingWindow > 0 {
		kv = append(kv, u("attention.sliding_window", s.SlidingWindow))
	}
	if s.Arch == "gemma3" && s.SWAPattern != 6 {
		kv = append(kv, u("attention.sliding_window_pattern", s.SWAPattern))
	}
	return kv
}

// tensors are the tensors a converter writes for the shape, by llama.cpp's
// names and shapes (ne: the row length first), as the architecture's
// loader creates them.
func (s *Shape) tensors() []gguf.Tensor {
	D, H, KV, hd, FF, V := int64(s.Hidden), int64(s.Heads), int64(s.KVHeads), int64(s.HeadDim), int64(s.FFN), int64(s.Vocab)
	var out []gguf.Tensor
	add := func(name string, typ gguf.Type, dims ...int64) {
		out = append(out, gguf.Tensor{Name: name, Dims: dims, Type: typ})
	}
	add("token_embd.weight", f16, D, V)
	add("output_norm.weight", f32, D)
	if !s.Tied {
		add("output.weight", f16, D, V)
	}
	if s.RopeFreqs {
		add("rope_freqs.weight", f32, hd/2)
	}
	for i := 0; i < s.Layers; i++ {
		b := fmt.Sprintf("blk.%d.", i)
		add(b+"attn_norm.weight", f32, D)
		if s.Arch == "phi3" {
			add(b+"attn_qkv.weight", f16, D, H*hd+2*KV*hd)
		} else {
			add(b+"attn_q.weight", f16, D, H*hd)
			add(b+"attn_k.weight", f16, D, KV*hd)
			add(b+"attn_v.weight", f16, D, KV*hd)
		}
		if s.Arch == "qwen2" || s.Arch == "qwen2moe" {
			add(b+"attn_q.bias", f32, H*hd)
			add(b+"attn_k.bias", f32, KV*hd)
			add(b+"attn_v.bias", f32, KV*hd)
		}
		if s.Arch == "qwen3" || s.Arch == "qwen3moe" || s.Arch == "gemma3" {
			add(b+"attn_q_norm.weight", f32, hd)
			add(b+"attn_k_norm.weight", f32, hd)
		}
		add(b+"attn_output.weight", f16, H*hd, D)
		if s.Arch == "gemma2" || s.Arch == "gemma3" {
			add(b+"post_attention_norm.weight", f32, D)
		}
		add(b+"ffn_norm.weight", f32, D)
		switch {
		case s.Experts > 0:
			E, EF := int64(s.Experts), int64(s.ExpertFFN)
			add(b+"ffn_gate_inp.weight", f32, D, E)
			add(b+"ffn_gate_exps.weight", f16, D, EF, E)
			add(b+"ffn_up_exps.weight", f16, D, EF, E)
			add(b+"ffn_down_exps.weight", f16, EF, D, E)
			if s.SharedFFN > 0 {
				SF := int64(s.SharedFFN)
				add(b+"ffn_gate_inp_shexp.weight", f32, D)
				add(b+"ffn_gate_shexp.weight", f16, D, SF)
				add(b+"ffn_up_shexp.weight", f16, D, SF)
				add(b+"ffn_down_shexp.weight", f16, SF, D)
			}
		case s.Arch == "phi3":
			add(b+"ffn_up.weight", f16, D, 2*FF) // gate and up fused
			add(b+"ffn_down.weight", f16, FF, D)
		default:
			add(b+"ffn_gate.weight", f16, D, FF)
			add(b+"ffn_up.weight", f16, D, FF)
			add(b+"ffn_down.weight", f16, FF, D)
		}
		if s.Arch == "gemma2" || s.Arch == "gemma3" {
			add(b+"post_ffw_norm.weight", f32, D)
		}
	}
	return out
}
