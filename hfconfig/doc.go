// Package hfconfig builds a blsim workload from a model's public config:
// the hyperparameters a Hugging Face config.json or a model card lists
// (architecture, layers, hidden width, heads, KV heads, head width, FFN
// width, experts and top-k, vocabulary, tied embeddings, sliding window)
// and a llama.cpp quantization scheme (Q4_K_M, Q4_0, IQ4_XS...), for a
// user who has not downloaded the GGUF yet.
//
//	c, err := hfconfig.Load("config.json")
//	m, err := hfconfig.Build(c, "llama-3.1-8b", quantize.Q4_K_M, quantize.Options{})
//	w := m.Workload() // what blsim would read from the GGUF
//
// Build writes, in memory, the GGUF header that llama.cpp's
// convert_hf_to_gguf.py would write for the config (its metadata keys, and
// each tensor's name and shape as llama.cpp's loader for the architecture
// reads them, 2-D weights F16 and norms, biases and routers F32), gives
// each tensor the type the scheme assigns it (package quantize, the rules
// of llama.cpp's quantizer), and maps that header with package gguf, as
// `--gguf` maps a real file. So a model built from its config and the
// same model's GGUF agree wherever the quantizer's rules are followed:
// tests compare them on files llama-quantize wrote (testdata/llamacpp).
//
// Keys follow Hugging Face's names (num_hidden_layers, hidden_size,
// num_attention_heads, num_key_value_heads, head_dim, intermediate_size,
// vocab_size, tie_word_embeddings, sliding_window, num_local_experts or
// num_experts, num_experts_per_tok, moe_intermediate_size,
// shared_expert_intermediate_size). A missing required key is an error
// naming it; a missing optional one takes the default of the
// architecture's Hugging Face config class, with a note; keys that cannot
// change the workload are listed in one note. A multimodal config's
// text_config is read as the model.
//
// The architectures are those llama.cpp runs as llama (Llama, Mistral,
// Mixtral, TinyLlama, SmolLM2), qwen2, qwen2moe, qwen3, qwen3moe, phi3,
// gemma, gemma2 and gemma3. Others (DeepSeek's latent attention,
// gpt-oss, the Qwen3-Next hybrids) are mapped from their GGUF only.
package hfconfig
