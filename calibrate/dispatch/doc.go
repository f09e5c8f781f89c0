// Package dispatch runs a workload's ops for real on the CPUs, the way
// blsim's simulator (package sim) charges them: a MUL_MAT_ID-style
// big/little dispatcher in Go (its dot kernels in Go assembly, package
// internal/quant) with two persistent pinned worker pools
// (calibrate/probe), native, token-split and expert-split plans and a poll
// knob, over synthetic quantised weights (Q4_0-like and Q8_0-like blocks,
// float32 for the float classes) that can be sized to exceed the last-level
// cache. Run times the whole prompt end to end, repeat by repeat; the
// calibration fits the SoC profile to those times.
//
// What runs where follows the model (DESIGN.md section 5 item 3), and the
// hot loop follows ggml's CPU backend (kernel.go says how):
//
//   - Every matmul and expert op quantises its input rows to Q8 blocks
//     first (the op's threads share the work), then meets at a spinning
//     barrier, then computes; the op is one fork-join of its pool.
//   - Matmul ops run on the plan's first engine. The output (rows × tokens)
//     is cut into ggml's 16×16 chunks, which threads claim from a shared
//     counter, and each chunk is walked in tiles of 16 rows × 16 tokens.
//   - ExpertMatmul ops are routed by a seeded uniform top-k router; each
//     expert's rows × routed tokens are chunked and tiled the same way
//     (MUL_MAT_ID; on arm64, one static slice of rows per thread, as ggml
//     there). Native runs all tokens on the first engine; a token split
//     gives the second engine the last fraction of the tokens, an expert
//     split the last fraction of the experts (tokens gathered and
//     quantised into a contiguous buffer, results scattered back). Both
//     partitions run at once: the first engine's pool is driven by the
//     calling goroutine, the second's by a persistent driver goroutine
//     signalled per op, and the op ends when both are done. The cut is at
//     whole units, round(n × (1 − f)) tokens or experts to the first
//     engine, as the simulator cuts (sim's runner.cut): an engine given
//     no unit of an op (a share under half a unit, or the last layer's
//     one token) is not woken for it and does not meet at its barrier
//     (Result.Wakes counts the wakes), and an expert split that leaves
//     every expert on one engine runs the op in place, as native.
//   - AttentionScores and Scalar ops run on the first engine, in the
//     kernels the calibration's microbenchmarks time (internal/quant):
//     attention as llama.cpp runs it (its f16 products and softmax over
//     the op's KVOps and Elems, or flash attention's walk), and the norms
//     (float.go).
//
// Nothing allocates during the timed runs (Result.Allocs counts it).
//
// Splits never change the math: every output element is one dot product of
// the same operands in the same order whichever thread computes it, so all
// plans produce bit-identical outputs (Config.Checksum checks it).
//
// Knobs are a run's plan settings as the seed experiment's ORK_*
// variables set them (Knobs.ApplyEnv), and make its plan (Knobs.Plan);
// Model.Record is a run's llama-bench record, as blsim bench prints it.
package dispatch
