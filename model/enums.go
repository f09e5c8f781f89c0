package model

import "github.com/blsim/blsim/model/enum"

// The model's enums are typed: a value read from YAML is checked once,
// where it is parsed (each type's UnmarshalYAML), and the code compares
// the constants. A value outside its list is an error that names the
// file, line and key (ParseSoC) and the known names. The enums the part
// library fills in too (engine kinds, sharing policies, kernel classes)
// are defined in package enum, below both model and parts, and named
// here by aliases.

// EngineKind says what an engine is: a CPU cluster or an accelerator
// (enum.EngineKind).
type EngineKind = enum.EngineKind

// Engine kinds.
const (
	// KindCPU is a CPU cluster run by a ggml-style thread pool.
	KindCPU = enum.KindCPU
	// KindNPU is an accelerator the dispatcher submits jobs to: it runs
	// only the ops it lists, pays a per-submit latency and a per-op setup
	// instead of a pool wake, and may need its weights in its own format.
	KindNPU = enum.KindNPU
)

// EngineKinds are the known engine kinds.
var EngineKinds = enum.EngineKinds

// Sharing is how the DRAM system divides its sustained bandwidth among
// engines whose demand together exceeds it (enum.Sharing).
type Sharing = enum.Sharing

// Sharing policies.
const (
	// ShareMaxMin is max-min fairness: the smallest demands are met first,
	// the rest share what is left equally (water-filling).
	ShareMaxMin = enum.ShareMaxMin
	// ShareProportional scales every demand down by the same factor.
	ShareProportional = enum.ShareProportional
)

// Sharings are the known sharing policies.
var Sharings = enum.Sharings
