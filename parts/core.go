package parts

import (
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// CoreSchema is the schema tag of a core part.
const CoreSchema = "blsim/core/v1"

// A Core is a CPU core type: the ISA facts that pick llama.cpp's kernels,
// its SIMD throughput, caches, SMT ways and DRAM streaming, and the
// engine values (package model's Engine keys) it gives a cluster of it.
type Core struct {
	Schema string `yaml:"schema"`
	// Name is the part's name, lower case (cortex-a76, zen4, apple-m1-p).
	Name string `yaml:"name"`
	// Title is the vendor's name for it, the engine's core_type.
	Title   string   `yaml:"title"`
	Aliases []string `yaml:"aliases,omitempty"`
	Vendor  string   `yaml:"vendor"`
	// Arch is the instruction set family: arm64 or x86-64.
	Arch string `yaml:"arch"`
	// ISA is the architecture version (armv8.2-a, x86-64-v3, ...).
	ISA string `yaml:"isa"`
	// Features are the ISA extensions that pick llama.cpp's kernel path:
	// neon, fp16, dotprod, i8mm, sve, sve2, sme; avx2, fma, f16c,
	// avx512, avx512-vnni, avx512-bf16, avx-vnni, amx.
	Features []string `yaml:"features"`
	// SVEBits is the SVE vector length, 0 without SVE.
	SVEBits    int  `yaml:"sve_bits,omitempty"`
	OutOfOrder bool `yaml:"out_of_order"`
	// SMTWays is the hardware threads per core (1 without SMT).
	SMTWays int `yaml:"smt_ways"`
	// SMTYield is what a core's second hardware thread adds, as a share
	// of one thread's rate on the core, by op kind (matmul, attention,
	// scalar, dram: package model's SMTYield), each value with its source
	// or derivation: required with smt_ways above 1, absent without.
	SMTYield map[string]float64 `yaml:"smt_yield,omitempty"`
	// SIMDPipes and SIMDBits: the vector pipes that execute integer dot
	// products and FMAs, and their width in bits.
	SIMDPipes int `yaml:"simd_pipes"`
	SIMDBits  int `yaml:"simd_bits"`
	L1DKiB    int `yaml:"l1d_kib"`
	// L2KiB is the private L2 per core (for cores that share an L2 by
	// cluster, the cluster's L2 over its cores).
	L2KiB float64 `yaml:"l2_kib"`
	// Int8OpsPerCycle is the int8 dot-product throughput per cycle, in
	// ops (a multiply-accumulate is two), of the instructions ggml's
	// generic dot kernels use on this core: SDOT on Armv8.2+ with the
	// dot product, SMULL/SADALP without it; VPDPBUSD (256-bit) with
	// AVX-VNNI or AVX512-VNNI, VPMADDUBSW+VPMADDWD with AVX2 alone.
	Int8OpsPerCycle float64 `yaml:"int8_ops_per_cycle"`
	// KQuantOpsPerCycle is the int8 throughput of the instructions ggml's
	// k-quant and i-quant dot kernels use, where they differ from the dot
	// product's: on x86 they multiply with VPMADDUBSW then VPMADDWD (the
	// block scales need 16-bit products) even where VNNI runs the Q8_0
	// and Q4_0 kernels. 0: Int8OpsPerCycle.
	KQuantOpsPerCycle float64 `yaml:"kquant_ops_per_cycle,omitempty"`
	// GenericQ4_0OpsPerCycle is the rate (int8 ops per thread per cycle)
	// of ggml's generic Q4_0 x Q8_0 dot loop (ggml_vec_dot_q4_0_q8_0, one
	// FMA accumulator), derived from what bounds a block of 32 weights on
	// the core: its micro-ops over the allocation width, the accumulator's
	// FMA latency, its multiplies on the multiply pipes. A build whose
	// Q4_0 runs that loop (public.Era) runs it at this rate. 0: the core's
	// k-quant (q3_k) rate.
	GenericQ4_0OpsPerCycle float64 `yaml:"generic_q4_0_ops_per_cycle,omitempty"`
	// I8MMOpsPerCycle is the same for the int8 matrix multiply (SMMLA)
	// that the repacked kernels use on cores with i8mm; 0 without.
	I8MMOpsPerCycle float64 `yaml:"i8mm_ops_per_cycle,omitempty"`
	// FP32FlopsPerCycle and FP16FlopsPerCycle: FMA throughput (two flops
	// each). FP16 0: no native fp16 arithmetic (f16 runs converted to f32).
	FP32FlopsPerCycle float64 `yaml:"fp32_flops_per_cycle"`
	FP16FlopsPerCycle float64 `yaml:"fp16_flops_per_cycle,omitempty"`
	// StreamGBs is what one core reads from DRAM alone, in GB/s (a
	// single-thread read benchmark on the memory the note names): the
	// engine's bandwidth_per_thread_gb_s, capped at the DRAM's sustained.
	StreamGBs float64 `yaml:"stream_gb_s"`
	// ClusterDRAMShare is the share of the DRAM's sustained bandwidth a
	// cluster of these cores pulls alone: bandwidth_max_gb_s is the least
	// of it, the cores' streams together and the peak.
	ClusterDRAMShare float64 `yaml:"cluster_dram_share"`
	// Reference names the core whose path efficiencies derive this
	// core's kernel rates, for a core without Kernels of its own.
	Reference string `yaml:"reference,omitempty"`
	// Kernels are the core's own kernel rates (a reference core's, or
	// where a public source gives them); absent: derived (Rates).
	Kernels *Kernels `yaml:"kernels,omitempty"`
	// Measured are a derived core's kernel rates that a public
	// microbenchmark of the same kind of kernel on this core gives (only
	// repacked and generic, by GGML type): each is the type's rate, and
	// together they set the path's efficiency for the other types (Rates).
	Measured *Kernels `yaml:"measured_kernels,omitempty"`
	// RepackedGemvEfficiency is the share of a repacked type's GEMM rate
	// its one-token kernel reaches (a 1-row GEMV tile against the 4-row
	// GEMM's, measured side by side): the engine's gemv_efficiency_by_type
	// for each of its repacked types. 0: none given (the engine's
	// gemv_efficiency holds for them).
	RepackedGemvEfficiency float64 `yaml:"repacked_gemv_efficiency,omitempty"`
	// Engine holds values of package model's Engine keys the part gives a
	// cluster of it as they are (moe_efficiency, gemv_overlap, ...).
	Engine yaml.Node `yaml:"engine"`
	// Uncertainty: standard deviations, relative to the value, of the
	// engine values the part gives (keys as a SoC's uncertainty takes
	// them after engines.NAME.), added to a SoC that takes the value from
	// the part and gives no uncertainty of its own for it.
	Uncertainty map[string]float64 `yaml:"uncertainty,omitempty"`

	notes map[string]string // by path: the comment that sources each value
}

// Kernels are a core's kernel rates per thread per cycle: by kernel class
// (for a workload that names no types), and by GGML type on each path.
type Kernels struct {
	Classes map[string]float64 `yaml:"classes"`
	// Repacked: types on ggml's repacked path (CPU_REPACK buffers).
	Repacked map[string]float64 `yaml:"repacked,omitempty"`
	// Generic: types on the generic dot kernels.
	Generic map[string]float64 `yaml:"generic,omitempty"`
}

// Has says whether the core has ISA feature f.
func (c *Core) Has(f string) bool {
	for _, g := range c.Features {
		if g == f {
			return true
		}
	}
	return false
}

// Note is the source of the value at path (a dotted key path in the part
// file: engine.gemv_overlap, kernels.generic.q3_k, stream_gb_s), "" when
// the file gives none.
func (c *Core) Note(path string) string { return noteOf(c.notes, path) }

// RepackedTypes are the GGML types ggml repacks at load on this core, by
// its ISA features: ggml-cpu's ggml_repack_get_optimal_repack_type. On
// arm64 with the dot product Q4_0 and IQ4_NL (4x4; Q4_0 4x8 with i8mm),
// Q8_0 (since 2025-12), Q4_K (2025-12), Q5_K and Q6_K (2026-02), MXFP4
// (2026-03): ggml d99724f2, 2026-08-21. On x86-64 with AVX2 Q4_0 and Q4_K
// (8x8), and Q2_K with AVX-512 (ollama's vendored ggml, repack.cpp at
// ollama 1124b6a6, 2025). Without them none: every type runs the generic
// kernels.
func (c *Core) RepackedTypes() []string {
	switch {
	case c.Arch == "arm64" && c.Has("dotprod"):
		return []string{"q4_0", "iq4_nl", "q8_0", "q4_k", "q5_k", "q6_k", "mxfp4"}
	case c.Arch == "x86-64" && c.Has("avx512"):
		return []string{"q4_0", "q4_k", "q2_k"}
	case c.Arch == "x86-64" && c.Has("avx2"):
		return []string{"q4_0", "q4_k"}
	}
	return nil
}

func (c *Core) validate(file string) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("parts: %s: %s", file, fmt.Sprintf(format, a...))
	}
	switch {
	case c.Schema != CoreSchema:
		return bad("schema %q is not %q", c.Schema, CoreSchema)
	case c.Name == "" || c.Name != strings.ToLower(c.Name) || c.Name+".yaml" != file[strings.LastIndexByte(file, '/')+1:]:
		return bad("name %q: want the file's name, lower case", c.Name)
	case c.Arch != "arm64" && c.Arch != "x86-64":
		return bad("arch %q is not arm64 or x86-64", c.Arch)
	case c.SMTWays < 1 || c.SMTWays > 8:
		return bad("smt_ways %d is outside [1, 8]", c.SMTWays)
	case c.SMTWays > 1 && len(c.SMTYield) == 0:
		return bad("smt_yield: a core with %d ways needs what its second thread adds (matmul, attention, scalar, dram)", c.SMTWays)
	case c.SMTWays == 1 && len(c.SMTYield) > 0:
		return bad("smt_yield given, but smt_ways is 1")
	case c.Int8OpsPerCycle <= 0 || c.FP32FlopsPerCycle <= 0 || c.StreamGBs <= 0:
		return bad("int8_ops_per_cycle, fp32_flops_per_cycle and stream_gb_s must be positive")
	case c.ClusterDRAMShare <= 0 || c.ClusterDRAMShare > 1:
		return bad("cluster_dram_share %g is outside (0, 1]", c.ClusterDRAMShare)
	case (c.Kernels == nil) == (c.Reference == ""):
		return bad("give kernels (a core's own rates) or reference (a core to derive them from), one of them")
	case c.Measured != nil && (c.Reference == "" || len(c.Measured.Classes) > 0):
		return bad("measured_kernels: only a derived core (with reference) gives them, by type (repacked, generic), no classes")
	case c.GenericQ4_0OpsPerCycle < 0 || c.GenericQ4_0OpsPerCycle > c.Int8OpsPerCycle:
		return bad("generic_q4_0_ops_per_cycle %g is outside (0, int8_ops_per_cycle %g]", c.GenericQ4_0OpsPerCycle, c.Int8OpsPerCycle)
	case c.RepackedGemvEfficiency < 0 || c.RepackedGemvEfficiency > 1:
		return bad("repacked_gemv_efficiency %g is outside (0, 1]", c.RepackedGemvEfficiency)
	case c.RepackedGemvEfficiency > 0 && len(c.RepackedTypes()) == 0:
		return bad("repacked_gemv_efficiency given, but the core repacks no type")
	case c.Engine.Kind != 0 && c.Engine.Kind != yaml.MappingNode:
		return bad("engine: want a mapping of engine keys")
	}
	if c.Measured != nil {
		for path, m := range map[string]map[string]float64{"repacked": c.Measured.Repacked, "generic": c.Measured.Generic} {
			for t, v := range m {
				if !(v > 0 && v <= 4096) {
					return bad("measured_kernels.%s.%s: %g is outside (0, 4096] ops/cycle", path, t, v)
				}
			}
		}
	}
	if len(c.SMTYield) > 0 {
		for _, k := range SMTYieldKeys {
			v, ok := c.SMTYield[k]
			switch {
			case !ok:
				return bad("smt_yield.%s: missing (give %s)", k, strings.Join(SMTYieldKeys, ", "))
			case !(v >= SMTYieldRange[0] && v <= SMTYieldRange[1]):
				return bad("smt_yield.%s: %g is outside [%g, %g]", k, v, SMTYieldRange[0], SMTYieldRange[1])
			}
		}
		if len(c.SMTYield) != len(SMTYieldKeys) {
			return bad("smt_yield: unknown key (want %s)", strings.Join(SMTYieldKeys, ", "))
		}
	}
	return nil
}

// SMTYieldKeys are the op kinds of a core's SMT yield, in order: the one
// list, which package model's SMTYield (its YAML keys) and its checks
// read too.
var SMTYieldKeys = []string{"matmul", "attention", "scalar", "dram"}

// SMTYieldRange bounds every SMT yield: from a second thread that halves
// the core to one that doubles it.
var SMTYieldRange = [2]float64{-0.5, 1}

// LookupCore returns the core part named name (or one of its aliases),
// case-insensitively; an unknown name's error names the nearest known.
func LookupCore(name string) (*Core, error) {
	l := lib()
	key := normalise(name)
	if c, ok := l.cores[key]; ok {
		return c, nil
	}
	if n, ok := l.coreAlias[key]; ok {
		return l.cores[n], nil
	}
	return nil, fmt.Errorf("unknown core %q (%s)", name, nearestText(key, l.coreNames(), l.coreAlias, "cores", len(l.cores)))
}

func (l *library) coreNames() []string {
	out := sortedKeys(l.cores)
	for a := range l.coreAlias {
		out = append(out, a)
	}
	return out
}

func normalise(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.ReplaceAll(s, "_", "-")
	s = strings.ReplaceAll(s, " ", "-")
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
