package parts

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/blsim/blsim/model/enum"
	"go.yaml.in/yaml/v3"
)

// classType is the GGML type whose path a kernel class's rate follows on
// a derived core: q4 the Q4_K of today's quant mixes, q6 Q6_K, q8 Q8_0.
var classType = map[enum.KernelClass]string{enum.ClassQ4: "q4_k", enum.ClassQ6: "q6_k", enum.ClassQ8: "q8_0"}

// dotTypes are the GGML types whose generic kernels multiply with the
// int8 dot product (ggml's mul_sum_i8_pairs, VPDPBUSD with VNNI, and
// llamafile's tinyBLAS); the other types' dot kernels run at
// KQuantOpsPerCycle.
var dotTypes = map[string]bool{"q4_0": true, "q5_0": true, "q8_0": true, "iq4_nl": true}

// kquantPeak is the core's k-quant kernels' int8 throughput.
func (c *Core) kquantPeak() float64 {
	if c.KQuantOpsPerCycle > 0 {
		return c.KQuantOpsPerCycle
	}
	return c.Int8OpsPerCycle
}

// repackedPeak is the int8 throughput of the instructions ggml's repacked
// kernels use on the core: SMMLA where it has i8mm, else the dot product.
func (c *Core) repackedPeak() float64 {
	if c.I8MMOpsPerCycle > c.Int8OpsPerCycle {
		return c.I8MMOpsPerCycle
	}
	return c.Int8OpsPerCycle
}

// fp16Peak is the core's fp16 FMA throughput, or its fp32 one when it has
// no fp16 arithmetic (ggml then converts f16 to f32).
func (c *Core) fp16Peak() float64 {
	if c.FP16FlopsPerCycle > 0 {
		return c.FP16FlopsPerCycle
	}
	return c.FP32FlopsPerCycle
}

// Rates are the kernel rates (ops per thread per cycle) a cluster of the
// core gets in a build that repacks the GGML types in repacked, by kernel
// class and by GGML type, each with the note that says where it comes
// from.
//
// A core with kernels of its own gives them: a type's repacked rate when
// the build repacks it, else its generic rate; a type with neither is left
// out (it runs at its class's rate, with a warning). Any other core's
// rates are derived from its reference core's: the reference's rate on
// the same path over the reference's peak (its path efficiency), times
// this core's peak. The peaks are the int8 dot product's
// (int8_ops_per_cycle) for the generic path of the dot-product types
// (q4_0, q5_0, q8_0, iq4_nl), the k-quant kernels' (kquant_ops_per_cycle)
// for the other types, the repacked kernels' (SMMLA
// with i8mm, else the dot product) for the repacked path, the fp16 and
// fp32 FMA throughputs for f16 and f32. A class follows its type's path
// (q4 as q4_k, q6 as q6_k, q8 as q8_0).
func (c *Core) Rates(repacked []string) (map[string]float64, map[string]string) {
	rep := map[string]bool{}
	for _, t := range repacked {
		rep[t] = true
	}
	ref, own := c, c.Kernels != nil
	if !own {
		ref = lib().cores[c.Reference]
	}
	k, refNote := ref.table()
	sGen, sRep := c.Int8OpsPerCycle/ref.Int8OpsPerCycle, c.repackedPeak()/ref.repackedPeak()
	sF32, sF16 := c.FP32FlopsPerCycle/ref.FP32FlopsPerCycle, c.fp16Peak()/ref.fp16Peak()
	rates, notes := map[string]float64{}, map[string]string{}
	put := func(key string, v, scale float64, from, how string) {
		if own {
			rates[key], notes[key] = v, c.Note("kernels."+from)
			return
		}
		rates[key] = round3(v * scale)
		notes[key] = fmt.Sprintf("derived: %s's %s rate %g x %s: %s", ref.Name, from, v, how, refNote(from))
	}
	sKQ := c.kquantPeak() / ref.kquantPeak()
	const peak = " (this core's peak over %s's)"
	genHow := fmt.Sprintf("%g/%g int8 ops/cycle"+peak, c.Int8OpsPerCycle, ref.Int8OpsPerCycle, ref.Name)
	kqHow := fmt.Sprintf("%g/%g int8 ops/cycle of the k-quant kernels"+peak, c.kquantPeak(), ref.kquantPeak(), ref.Name)
	repHow := fmt.Sprintf("%g/%g int8 ops/cycle of the repacked kernels"+peak, c.repackedPeak(), ref.repackedPeak(), ref.Name)
	var mRep, mGen map[string]float64
	if !own && c.Measured != nil {
		mRep, mGen = c.Measured.Repacked, c.Measured.Generic
		isDot := func(t string) bool { return dotTypes[t] }
		notDot := func(t string) bool { return !dotTypes[t] }
		sRep, repHow = measuredScale(sRep, repHow, "repacked", mRep, k.Repacked, ref.Name, unpacking(mRep))
		sGen, genHow = measuredScale(sGen, genHow, "generic", mGen, k.Generic, ref.Name, isDot)
		sKQ, kqHow = measuredScale(sKQ, kqHow, "generic", mGen, k.Generic, ref.Name, notDot)
	}
	gen := func(t string) (float64, string) {
		if dotTypes[t] {
			return sGen, genHow
		}
		return sKQ, kqHow
	}
	// measured puts a type's measured rate, on the path it runs.
	measured := func(t string, m map[string]float64, path string) bool {
		if v := m[t]; v > 0 {
			rates[t], notes[t] = v, "measured: "+c.Note("measured_kernels."+path+"."+t)
			return true
		}
		return false
	}
	for _, cl := range sortedKeys(k.Classes) {
		v := k.Classes[cl]
		switch t, ok := classType[enum.KernelClass(cl)]; {
		case cl == enum.ClassF32.String():
			put(cl, v, sF32, "classes.f32", fmt.Sprintf("%g/%g fp32 flops/cycle"+peak, c.FP32FlopsPerCycle, ref.FP32FlopsPerCycle, ref.Name))
		case cl == enum.ClassF16.String():
			put(cl, v, sF16, "classes.f16", fmt.Sprintf("%g/%g fp16 flops/cycle"+peak, c.fp16Peak(), ref.fp16Peak(), ref.Name))
		case own || !ok:
			put(cl, v, sRep, "classes."+cl, repHow)
		case rep[t] && k.Repacked[t] > 0:
			put(cl, v, sRep, "classes."+cl, repHow)
		case k.Generic[t] > 0:
			sc, how := gen(t)
			put(cl, k.Generic[t], sc, "generic."+t, how)
		default:
			sc, how := gen(t)
			put(cl, v, sc, "classes."+cl, how)
		}
	}
	types := map[string]bool{}
	for t := range k.Repacked {
		types[t] = true
	}
	for t := range k.Generic {
		types[t] = true
	}
	for t := range mRep {
		types[t] = true
	}
	for t := range mGen {
		types[t] = true
	}
	names := make([]string, 0, len(types))
	for t := range types {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		// A type the build repacks but with no repacked rate known is
		// left out: its class's rate is the repacked one.
		switch {
		case rep[t] && measured(t, mRep, "repacked"), !rep[t] && measured(t, mGen, "generic"):
		case rep[t] && k.Repacked[t] > 0:
			put(t, k.Repacked[t], sRep, "repacked."+t, repHow)
		case !rep[t] && k.Generic[t] > 0:
			sc, how := gen(t)
			put(t, k.Generic[t], sc, "generic."+t, how)
		}
	}
	return rates, notes
}

// table is the core's kernel rates as another core's reference, with the
// note of each (by key: classes.q4, repacked.q4_0, generic.q8_0): its own
// kernels, or a derived core's rates on every path, which carry its
// measured rates and the path efficiencies they set (Rates).
func (c *Core) table() (*Kernels, func(key string) string) {
	if c.Kernels != nil {
		return c.Kernels, func(key string) string { return c.Note("kernels." + key) }
	}
	refK, _ := lib().cores[c.Reference].table()
	var m Kernels
	if c.Measured != nil {
		m = *c.Measured
	}
	repTypes := append(sortedKeys(refK.Repacked), sortedKeys(m.Repacked)...)
	rep, repNotes := c.Rates(repTypes)
	gen, genNotes := c.Rates(nil)
	k := &Kernels{Classes: map[string]float64{}, Repacked: map[string]float64{}, Generic: map[string]float64{}}
	notes := map[string]string{}
	for cl := range refK.Classes {
		k.Classes[cl], notes["classes."+cl] = rep[cl], repNotes[cl]
	}
	for _, t := range repTypes {
		if v, ok := rep[t]; ok {
			k.Repacked[t], notes["repacked."+t] = v, repNotes[t]
		}
	}
	for _, t := range append(sortedKeys(refK.Generic), sortedKeys(m.Generic)...) {
		if v, ok := gen[t]; ok {
			k.Generic[t], notes["generic."+t] = v, genNotes[t]
		}
	}
	return k, func(key string) string { return notes[key] }
}

// unpacking keeps, among a core's measured repacked rates, those of the
// types whose kernels unpack their weights (all but q8_0) when there are
// any: an int8 x int8 kernel (Q8_0's) runs nearer the multiply's peak
// than the 4-bit and k-quant kernels, so its rate is its own and sets the
// path's efficiency for the other types only when nothing else was
// measured.
func unpacking(measured map[string]float64) func(string) bool {
	for t, v := range measured {
		if t != "q8_0" && v > 0 {
			return func(t string) bool { return t != "q8_0" }
		}
	}
	return nil
}

// measuredScale is the factor that carries the reference's rates on one
// path to a core with measured rates on it: the geometric mean, over the
// types both give (those keep selects; nil: all), of the core's measured
// rate over the reference's. Without such a type, scale and how as they
// were (the ratio of the peaks).
func measuredScale(scale float64, how, path string, measured, refRates map[string]float64, ref string, keep func(string) bool) (float64, string) {
	logSum, n := 0.0, 0
	var parts []string
	for _, t := range sortedKeys(measured) {
		m, r := measured[t], refRates[t]
		if m <= 0 || r <= 0 || (keep != nil && !keep(t)) {
			continue
		}
		logSum += math.Log(m / r)
		n++
		parts = append(parts, fmt.Sprintf("%s %g/%g", t, m, r))
	}
	if n == 0 {
		return scale, how
	}
	s := math.Exp(logSum / float64(n))
	return s, fmt.Sprintf("%.3g: this core's measured %s rates over %s's (%s)", s, path, ref, strings.Join(parts, ", "))
}

func round3(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := 1.0
	for a := v; a < 100; a *= 10 {
		p *= 10
	}
	return float64(int64(v*p+0.5)) / p
}

// An EngineValue is one engine key a core part gives a cluster of it, with
// the note that sources it.
type EngineValue struct {
	Key   string
	Value *yaml.Node
	Note  string
}

// EngineValues are the engine keys the core gives as they are: its own
// (the part's engine block), then each key of its reference core's that
// it does not give, the reference's value with the reference's note. A
// derived core's scalar_ops_per_cycle, when it gives none, is its
// reference's scaled by their fp32 FMA throughputs (the norms, softmax
// and the other non-matmul work are vector float code).
func (c *Core) EngineValues() []EngineValue {
	var out []EngineValue
	own := map[string]bool{}
	for j := 0; j+1 < len(c.Engine.Content); j += 2 {
		k, v := c.Engine.Content[j], c.Engine.Content[j+1]
		own[k.Value] = true
		out = append(out, EngineValue{k.Value, v, c.Note("engine." + k.Value)})
	}
	if c.Reference == "" {
		return out
	}
	ref := lib().cores[c.Reference]
	for _, rv := range ref.EngineValues() {
		k, v := rv.Key, rv.Value
		if own[k] {
			continue
		}
		note := fmt.Sprintf("as %s (this core's reference): %s", ref.Name, rv.Note)
		if x, ok := number(v); ok && k == "scalar_ops_per_cycle" {
			x = round3(x * c.FP32FlopsPerCycle / ref.FP32FlopsPerCycle)
			v = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: fmt.Sprint(x)}
			note = fmt.Sprintf("derived: %s's %s x %g/%g fp32 flops/cycle (this core's over %s's): %s",
				ref.Name, rv.Value.Value, c.FP32FlopsPerCycle, ref.FP32FlopsPerCycle, ref.Name, rv.Note)
		}
		out = append(out, EngineValue{k, v, note})
	}
	return out
}
