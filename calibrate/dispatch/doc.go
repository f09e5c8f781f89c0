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
// What runs where follows the model (DESIGN.md section 5 item 3):
//
//   - Matmul ops run on the plan's first engine: each thread owns a static
//     slice of output rows and walks the tokens in tiles of 16, so a slice
//     larger than its cache is re-streamed once per tile.
//   - ExpertMatmul ops are routed by a seeded uniform top-k router; for each
//     expert, each thread of a partition owns a static slice of the expert's
//     rows and runs one gemv per routed token (token tile 1, as ggml's
//     repacked path). Native runs all tokens on the first engine; a token
//     split gives the second engine the last fraction of the tokens, an
//     expert split the last fraction of the experts (tokens gathered into a
//     contiguous buffer, results scattered back). Both partitions run at
//     once: the first engine's pool is driven by the calling goroutine, the
//     second's by a persistent driver goroutine signalled per op, and the op
//     ends when both are done.
//   - AttentionScores and Scalar ops are float32 loops of about op.Ops
//     operations on the first engine.
//
// Splits never change the math: every output element is one dot product of
// the same operands in the same order whichever thread computes it, so all
// plans produce bit-identical outputs (Config.Checksum checks it).
package dispatch
