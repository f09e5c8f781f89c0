// Package gguf reads the model a user runs from its GGUF file's header and
// maps it to a blsim workload: layers and layer pattern, widths, heads,
// experts and top-k, shared and dense FFNs, vocabulary, sliding window,
// and the bits per weight and GGML type of each tensor class, taken from
// the tensors themselves. It reads only the header (metadata and tensor
// infos), never the weights: a 20 GB model is read in milliseconds and
// under a megabyte.
//
//	m, err := gguf.Read("Qwen3-30B-A3B-Q4_K_M.gguf")
//	w, err := m.Workload()       // a *model.Workload, validated
//	err = m.Summary(os.Stdout, 512) // ops, types, bytes, experts touched
//
// # The reader
//
// The header reader is this package's own (header.go and decode.go,
// about 500 lines), not a dependency. github.com/gpustack/gguf-parser-go
// v0.28.1, the maintained reader the Go module proxy serves here, was
// judged against it: it is MIT-licensed, maintained and reads headers
// without weights, but it brings 12 modules (38 in its module graph:
// net/http, an ollama registry client, golang.org/x/crypto, json-iterator
// with reflect2, gonum), 14,000 lines, and 8.9 MB into a binary that only
// calls ParseGGUFFile; its estimates of llama.cpp memory and speed are
// not what blsim needs. Smaller readers (github.com/abrander/gguf and the
// like) are not served by the proxy here. GGUF v2/v3 headers are a small,
// stable format (magic, version, counts, typed metadata with arrays,
// tensor infos) and blsim needs its reading bounded, with errors in its
// own form, so it reads them itself.
//
// Reading is bounded: the counts, key and string lengths, array lengths,
// dimensions and element counts are checked against the Max limits and
// against what is left of the file before anything is allocated; long
// arrays (a tokenizer's tokens, scores, merges) are read past, keeping
// only their length. Errors are one line naming the file and the offset
// (*FormatError), or the key or tensor (*KeyError).
//
// # The mapping
//
// Key names, defaults and layer rules are llama.cpp's (src/llama-arch.cpp,
// src/llama-model.cpp, src/models/ARCH.cpp): head_count_kv defaults to
// head_count, key_length to hidden/heads; gemma2, gemma3 and gpt-oss slide
// on the layers set_swa_pattern(2, 6 and 2) picks unless
// attention.sliding_window_pattern overrides it; qwen3next and qwen35moe
// run Gated DeltaNet on the layers attention.recurrent_layers or
// full_attention_interval picks; phi3's sliding_window is ignored, as
// llama.cpp ignores it. Every architecture it maps is in Architectures;
// another, or a required key missing or of the wrong type, is an error
// naming the key. After mapping, each timed class's weight count in the
// file must equal what the workload's ops multiply, so a layout blsim does
// not know is refused instead of guessed.
//
// A dense model is dense_layers = layers with its FFN width and no
// experts (experts 0, top_k 0). Classes a model lacks (shared experts,
// dense FFN) take the attention's bits per weight, which no op uses, and
// no type. deepseek2's multi-head latent attention maps to model.Arch's
// MLA fields (kv and q LoRA ranks, rotary width, value width), as
// llama.cpp runs it: the KV cache holds the latent.
//
// A model split by gguf-split (PREFIX-00001-of-00003.gguf, ...) is read
// from any shard: the metadata from the first, the tensor infos from
// every one, found by llama.cpp's names; a missing shard is an error
// naming it.
//
// The mapped workload keeps every class's GGML type in model.Arch.Types
// (the dominant one by bytes where a class mixes types; the description
// says how they mix), and BitsPerWeight is each class's exact bytes per
// weight, so the ops weigh what the file holds.
package gguf
