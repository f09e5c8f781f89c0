package model

import "sort"

// ggmlTypeBits are the bits per weight of the GGML weight types an
// engine's kernel table may name (ggml's block size and bytes:
// ggml/src/ggml.c type_traits; package gguf reads the same layouts and
// checks that the two agree).
var ggmlTypeBits = map[string]float64{
	"f32": 32, "f16": 16, "bf16": 16,
	"q4_0": 4.5, "q4_1": 5, "q5_0": 5.5, "q5_1": 6, "q8_0": 8.5,
	"q2_k": 2.625, "q3_k": 3.4375, "q4_k": 4.5, "q5_k": 5.5, "q6_k": 6.5625,
	"iq2_xxs": 2.0625, "iq2_xs": 2.3125, "iq2_s": 2.5625, "iq3_xxs": 3.0625, "iq3_s": 3.4375,
	"iq1_s": 1.5625, "iq1_m": 1.75, "iq4_nl": 4.5, "iq4_xs": 4.25,
	"tq1_0": 1.6875, "tq2_0": 2.0625, "mxfp4": 4.25,
}

// GGMLTypeBits is the bits per weight of GGML type typ (lower case:
// q4_k), and whether blsim knows it as a weight type.
func GGMLTypeBits(typ string) (float64, bool) {
	b, ok := ggmlTypeBits[typ]
	return b, ok
}

// GGMLTypes lists the weight types GGMLTypeBits knows, sorted.
func GGMLTypes() []string {
	out := make([]string, 0, len(ggmlTypeBits))
	for t := range ggmlTypeBits {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// RateSource says where an op's kernel rate came from.
type RateSource int

const (
	// RateOfClass: the workload names no GGML type for the op's weights,
	// so its kernel class's rate (by bits per weight) is the rate.
	RateOfClass RateSource = iota
	// RateOfType: the engine's table has a rate for the op's GGML type.
	RateOfType
	// RateFallback: the op's GGML type is known but the engine's table
	// has no rate for it: the rate of the class its bits fall in
	// (KernelClass), its nearest class, is used, with a warning
	// (KernelFallbacks).
	RateFallback
)

// KernelRate is one thread's matmul rate, in ops per cycle, for weights of
// kernel class class and GGML type typ ("" when the workload does not
// say): the table's entry for typ, else the class's; and where it came
// from. A fallback keeps the class's ops per cycle: the type's own bits
// still set the bytes it moves, but no table says how its dot kernel
// compares, so none is guessed.
func (e *Engine) KernelRate(class KernelClass, typ string) (float64, RateSource) {
	k := e.RateKey(class, typ)
	switch {
	case typ == "":
		return e.KernelOpsPerCycle[k], RateOfClass
	case k == typ:
		return e.KernelOpsPerCycle[k], RateOfType
	}
	return e.KernelOpsPerCycle[k], RateFallback
}

// RateKey is the kernel table's key whose rate KernelRate takes: typ when
// the table has it, else the class (the fallback's nearest one for a known
// type).
func (e *Engine) RateKey(class KernelClass, typ string) string {
	if typ == "" {
		return string(class)
	}
	if _, ok := e.KernelOpsPerCycle[typ]; ok {
		return typ
	}
	if b, ok := ggmlTypeBits[typ]; ok {
		return string(KernelClassOf(b))
	}
	return string(class)
}

// OpRate is KernelRate for op o of workload w (its class and its weights'
// GGML type).
func (e *Engine) OpRate(w *Workload, o *Op) (float64, RateSource) {
	return e.KernelRate(o.Class, w.TensorType(o))
}

// KernelFallback is a GGML type of a workload's weights that an engine's
// kernel table has no rate for: the rate of Class, its nearest class, is
// used instead (KernelRate).
type KernelFallback struct {
	Engine, Type string
	Class        KernelClass
	OpsPerCycle  float64 // the class's rate, used for the type
}

// KernelFallbacks lists the GGML types of w's weights that an engine among
// names (all of s's when names is empty) has no kernel rate for, by
// engine then type: what a prediction warns of.
func KernelFallbacks(s *SoC, w *Workload, names ...string) []KernelFallback {
	types := map[string]bool{}
	for _, t := range w.Model.Types {
		if _, ok := ggmlTypeBits[t]; ok && !isClass(t) { // f32 and f16: those classes are the types
			types[t] = true
		}
	}
	sorted := make([]string, 0, len(types))
	for t := range types {
		sorted = append(sorted, t)
	}
	sort.Strings(sorted)
	var out []KernelFallback
	for i := range s.Engines {
		e := &s.Engines[i]
		if len(names) > 0 && !contains(names, e.Name) {
			continue
		}
		for _, t := range sorted {
			if _, ok := e.KernelOpsPerCycle[t]; !ok {
				c := KernelClassOf(ggmlTypeBits[t])
				out = append(out, KernelFallback{Engine: e.Name, Type: t, Class: c, OpsPerCycle: e.KernelOpsPerCycle[string(c)]})
			}
		}
	}
	return out
}
