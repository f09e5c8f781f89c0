// Package model describes what blsim simulates: a SoC (engines sharing one
// DRAM system, and what it costs to hand work between them), a workload (an
// MoE transformer and the run to time), and a plan (which engine runs which
// share of the routed-expert ops, or, for a pool plan, which clusters one
// thread pool's threads sit on).
//
// Every quantity carries its unit in its name (GBs, GOPS, US, GHz, KiB), and
// every profile and workload is versioned YAML (schema blsim/soc/v1 and
// blsim/workload/v1) parsed strictly: unknown keys, missing keys and absurd
// values are errors naming the file, line and field.
//
// The package knows nothing of how plans are simulated (package sim) or how
// profiles are measured (package calibrate). It does turn a workload into the
// list of operations of one ubatch (Ops) or of one generated token at a KV
// depth (TokenOps), with their flops, weight bytes and
// the expected number of routed experts each engine touches, because those are
// facts of the model, not of any simulator.
package model
