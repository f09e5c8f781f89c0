// Package parts is blsim's library of parts: CPU core types (cortex-a76,
// zen4, apple-m1-p, ...), memory types (lpddr4x, ddr5, ...) and the
// thread-pool runtime's handoff costs, each value with its source or
// marked derived (and how), embedded in the binary and versioned like the
// presets (schema blsim/core/v1, blsim/memory/v1, blsim/runtime/v1).
//
// A SoC file names parts instead of writing every value:
//
//	schema: blsim/soc/v1
//	name: my-board
//	shared_cache_kib: 3072
//	dram: {type: lpddr4x, bus_bits: 64, mt_s: 4224}
//	engines:
//	  - {name: big, core: cortex-a76, cores: 4, clock_ghz: 2.4}
//	  - {name: little, core: cortex-a55, cores: 4, clock_ghz: 1.8}
//
// Fill fills in what the file leaves out, from its parts, and records
// where every value came from (Resolution): a part (with the part's own
// source), the file (its line and comment), or a calibration (a fitted
// profile's provenance.measured). Every value a part gives can be
// overridden in the file; a calibrated profile overrides what it measured.
// Package model reads such files with it (model.ParseSoC, and
// model.ResolveSoC with the sources).
//
// Kernel rates are per thread per cycle, by kernel class and GGML type,
// on the path the build takes for each type (repacked at load, or the
// generic dot kernels). A core measured on real llama.cpp carries its own
// (cortex-a76 and cortex-a55 from the rk3588 tables); every other core's
// are derived from its ISA's per-cycle throughput and a reference core's
// path efficiency (its rate over its peak): Core.Rates says how, value by
// value.
package parts
