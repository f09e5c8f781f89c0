package gguf_test

import (
	"fmt"
	"os"

	"github.com/blsim/blsim/gguf"
)

func ExampleRead() {
	m, err := gguf.Read("testdata/qwen3moe.gguf")
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := m.Workload()
	if err != nil {
		fmt.Println(err)
		return
	}
	a := w.Model
	fmt.Printf("%s: %d layers %s, %d experts top-%d of FFN %d\n", m.Arch, a.Layers, a.Pattern, a.MoE.Experts, a.MoE.TopK, a.MoE.ExpertFFN)
	fmt.Printf("experts_gate_up %s at %g bits, experts_down %s at %g bits\n",
		a.Types["experts_gate_up"], a.BitsPerWeight.ExpertsUp, a.Types["experts_down"], a.BitsPerWeight.ExpertsDown)
	fmt.Println(w.Description)
	// Output:
	// qwen3moe: 2 layers F, 4 experts top-2 of FFN 32
	// experts_gate_up q4_0 at 4.5 bits, experts_down q8_0 at 6.75 bits
	// from qwen3moe.gguf: qwen3moe, GGUF v3, 27 tensors, 38.9 KiB; mixed types: experts_down q8_0 63%, q4_1 37%
}

func ExampleModel_Workload_latent() {
	m, err := gguf.Read("testdata/deepseek2.gguf")
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := m.Workload()
	if err != nil {
		fmt.Println(err)
		return
	}
	a := w.Model.Attention
	fmt.Printf("MLA %v: %d heads, key %d (rotary %d), value %d, latent %d, q LoRA %d\n",
		a.MLA(), a.Heads, a.HeadDim, a.RopeDim, a.VDim(), a.KVLoraRank, a.QLoraRank)
	// Output:
	// MLA true: 4 heads, key 24 (rotary 8), value 16, latent 32, q LoRA 0
}

func ExampleModel_Summary() {
	m, err := gguf.Read("testdata/llama-dense.gguf")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := m.Summary(os.Stdout, 512); err != nil {
		fmt.Println(err)
	}
	// Output:
	// llama "tiny llama dense": testdata/llama-dense.gguf, GGUF v3, 21 tensors, 35.8 KiB of tensor data
	// shape: 2 layers, pattern F, hidden 32, vocab 128
	// attention: 4 heads, 2 KV heads of 8
	// FFN: dense, 96 wide in every layer
	//
	// ops per layer (weights per layer):
	//   layers 0-1 (full attention, dense FFN):
	//     attn_norm    scalar
	//     attn_qkv     matmul     32 -> 64   attention f16           4.0 KiB
	//     attn_scores  attention
	//     attn_output  matmul     32 -> 32   attention f16           2.0 KiB
	//     ffn_norm     scalar
	//     ffn_dense    matmul     32 -> 288  dense_ffn q5_0 (mixed)  7.3 KiB
	//   output head:
	//     output  matmul  32 -> 128  output q8_0  4.2 KiB
	//
	// types and bytes by tensor class:
	//          class  tensors  weights     bytes  bits/weight    types (share of bytes)
	//      attention        8     6144  12.0 KiB           16                  f16 100%
	//      dense_ffn        6    18432  14.6 KiB          6.5        q5_0 56%, q8_0 44%
	//         output        1     4096   4.2 KiB          8.5                 q8_0 100%
	//     token_embd        1     4096   4.2 KiB          8.5                 q8_0 100%
	//          other        5      160     640 B           32                  f32 100%
	//          total             32928  35.8 KiB        8.894
	//
	// decode (tg), weights read per token: 31.5 KiB (the KV cache comes on top)
	//   not routed experts: 31.5 KiB (attention, router, dense FFN, output head, norms, one embedding row)
	//
	// no routed experts (a dense model)
	//
	// notes:
	//   - dense model: dense_layers = layers (2) with FFN 96, no experts
	//   - router_skew 0: routing is taken as uniform (a GGUF does not say how skewed its router is)
}
