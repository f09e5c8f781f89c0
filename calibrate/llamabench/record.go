package llamabench

import "time"

// Record is one llama-bench test: one model, one setting of the knobs, one
// prompt and generation length, and the repetitions measured for it.
//
// The typed fields hold what blsim needs. A field absent from the input
// leaves its zero value (markdown input fills some defaults; see the package
// documentation). Fields holds every field of the input verbatim, known or
// not, keyed by llama-bench's field name; JSON strings are unquoted, JSON
// numbers, booleans and arrays are kept as written, JSON nulls are dropped.
// Markdown columns that do not map to one field are kept under their column
// names: "size", "params", "test" and "t/s".
//
// When writing, the typed fields win over Fields; Fields supplies the other
// llama-bench fields and any unknown ones.
type Record struct {
	BuildCommit   string // build_commit: llama.cpp's git commit, e.g. "0104b151"
	BuildNumber   int    // build_number
	CPUInfo       string // cpu_info: CPU backend description(s)
	GPUInfo       string // gpu_info: GPU device description(s), "" if none
	Backends      string // backends: e.g. "CPU", "Vulkan", "BLAS"
	ModelFilename string // model_filename
	ModelType     string // model_type: e.g. "qwen35moe 35B.A3B Q4_K - Medium"

	ModelSizeBytes int64 // model_size
	ModelParams    int64 // model_n_params: number of parameters

	NBatch     int    // n_batch: logical batch size, tokens
	NUbatch    int    // n_ubatch: physical batch size, tokens
	NThreads   int    // n_threads
	CPUMask    string // cpu_mask: hexadecimal, e.g. "0xf0"
	CPUStrict  bool   // cpu_strict: one CPU per thread
	Poll       int    // poll: 0..100, spin level while waiting for work
	NGPULayers int    // n_gpu_layers
	NCPUMoE    int    // n_cpu_moe: layers whose experts stay on the CPU

	NPrompt int // n_prompt: prompt tokens processed (pp)
	NGen    int // n_gen: tokens generated (tg)
	NDepth  int // n_depth: tokens already in the context

	TestTime time.Time // test_time, UTC

	AvgNS    int64   // avg_ns: mean time of one repetition
	StddevNS int64   // stddev_ns
	AvgTS    float64 // avg_ts: mean tokens per second, always > 0 when read
	StddevTS float64 // stddev_ts

	SamplesNS []int64   // samples_ns: each repetition's time (json and jsonl only)
	SamplesTS []float64 // samples_ts: each repetition's tokens per second

	// Fields holds every field as read, by llama-bench field name.
	Fields map[string]string

	// Line is the line of the input where the record starts; 0 if the record
	// was not read.
	Line int
}
