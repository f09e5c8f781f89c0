// Package quantize expands a llama.cpp quantization scheme (the file type
// llama-quantize is given: Q4_0, Q4_K_M, IQ4_XS, Q8_0...) into the GGML
// type of each tensor of a model, as llama.cpp's quantizer chooses it.
//
// A scheme is not one type for everything. Q4_K_M, for one, keeps the
// output head at Q6_K and gives Q6_K to the value projection and the FFN
// down projection of the first eighth, the last eighth and every third
// layer between; a tied embedding takes the output head's type; a row
// width that is not a multiple of the type's block falls back to a type
// whose block divides it (Q4_K to Q5_0, Q6_K to Q8_0); norms, biases and
// MoE routers stay as converted (F32). Expand applies those rules to a
// model's tensors, in llama.cpp's order (by layer, then by name), with its
// counters.
//
// # Which llama.cpp
//
// The rules are those of llama.cpp c392e50 (build b4748, 2025-02-20):
// llama_tensor_get_type and llama_model_quantize_impl in
// src/llama-quant.cpp, with the model type llama.cpp gives a 70B
// (src/llama-model.cpp: llama with 80 layers and grouped-query attention,
// qwen2 with 80 layers) and its has_imatrix conditions (Options.Imatrix).
// They are checked tensor by tensor against llama-quantize of that build
// on small models of each architecture (testdata/llamacpp-quantize).
//
// Rules of other builds:
//   - From 2024-07-10 (PR #5780) to 2024-12-07 (PR #10446) llama.cpp had
//     the file types Q4_0_4_4, Q4_0_4_8 and Q4_0_8_8: Q4_0 blocks
//     interleaved for arm64's dot-product and i8mm kernels, with the token
//     embedding at Q4_0, the output head at Q6_K, and any weight whose
//     rows do not come in fours (eights for Q4_0_8_8) plain Q4_0. Expand
//     takes them (Legacy) and types those tensors q4_0, since blsim's
//     types are today's and ggml now repacks Q4_0 at load; Result.Notes
//     says so.
//   - Later builds (a 2026 snapshot read for this package) categorise the
//     tensors first and give attn_qkv (fused, phi3) and attn_kv_b (MLA) the
//     value projection's rules: Q4_K_M then makes a fused QKV Q6_K on the
//     use-more-bits layers and Q4_K elsewhere, where c392e50 makes it Q5_K
//     everywhere. Q2_K and Q3_K fall back to Q4_0 there, not IQ4_NL;
//     MXFP4_MOE (experts MXFP4, the rest Q8_0) and --tensor-type overrides
//     are new. A GGUF made by such a build is read as it is by package
//     gguf; this package follows c392e50.
//
// Schemes that llama-quantize refuses without an importance matrix (the
// IQ1 and IQ2 families, Q2_K_S) are refused here too unless
// Options.Imatrix says the file was made with one, which also changes a
// few rules (IQ4_XS's and Q4_0's first FFN down projections, IQ3_XXS's
// value projections).
package quantize
