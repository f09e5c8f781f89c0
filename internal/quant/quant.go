// Package quant holds the quantised weight blocks and dot-product kernels
// that blsim's built-in dispatcher runs (package calibrate/dispatch) and
// that its kernel microbenchmark times (package calibrate/probe): one
// kernel, so the rate the microbenchmark measures is the rate the
// dispatcher's runs are fitted with. The layouts follow ggml's Q4_0 and
// Q8_0: 32 weights per block with a float16 scale.
//
// DotQ4Q8 and DotQ8Q8 run one of several implementations, chosen once at
// init from the CPU's features (golang.org/x/sys/cpu), best first:
//
//   - amd64: "avx-vnni" (AVX-VNNI's VPDPBUSD), "avx512-vnni" (the same on
//     ymm registers with AVX512-VNNI and AVX512VL), "avx2" (VPMADDUBSW and
//     VPMADDWD; all three also need FMA and F16C);
//   - arm64: "neon-dotprod" (SDOT), "neon" (SMULL, SADALP);
//   - anywhere, and with the purego build tag: "generic", portable Go.
//
// The SIMD ones are Go assembly (no cgo) after ggml's kernels: per block,
// the 32 integer products are summed into int32 lanes, converted to float32
// and multiply-added, times the product of the two scales, into float32
// lanes, which are added at the end. The integer part is exact for every
// int8 value, -128 included, and equal across implementations; the float
// sums differ only by rounding (the order of the additions), and any one
// implementation is deterministic.
//
// The environment variable BLSIM_KERNELS, read at init, names the
// implementation to use instead of the best (ignored if the CPU does not
// run it); SetGeneric switches to the generic kernels and back at run
// time; Impl names the implementation in use.
package quant

import "math"

// QK is the number of weights per quantised block (ggml's QK4_0, QK8_0).
const QK = 32

// BlockQ4 is a Q4_0-like block: 32 weights in 18 bytes, a float16 scale and
// 16 bytes of nibbles offset by 8 (weight j in the low nibble of qs[j],
// weight j+16 in the high nibble).
type BlockQ4 struct {
	D  uint16 // float16 bits of the scale
	Qs [QK / 2]byte
}

// BlockQ8 is a Q8_0-like block: 32 int8 values in 34 bytes with a float16
// scale. Activations use it for every quantised class; weights of the q8
// class use it too.
type BlockQ8 struct {
	D  uint16 // float16 bits of the scale
	Qs [QK]int8
}

// F16 converts a float32 to float16 bits, rounding to nearest. Values are
// expected in float16's normal range (scales here are); others saturate to
// the smallest or largest normal.
func F16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	a := b & 0x7fffffff
	if a == 0 {
		return sign
	}
	a += 1 << 12 // round the 13 dropped mantissa bits to nearest
	e := int(a>>23) - 127 + 15
	switch {
	case e < 1:
		return sign | 1<<10
	case e > 30:
		return sign | 30<<10 | 0x3ff
	}
	return sign | uint16(e)<<10 | uint16(a>>13)&0x3ff
}

// F32 converts float16 bits made by F16 (zero or normal) to float32 without
// a table: rebias the exponent and widen the mantissa.
func F32(h uint16) float32 {
	if h&0x7fff == 0 {
		return math.Float32frombits(uint32(h) << 16)
	}
	return math.Float32frombits(uint32(h&0x8000)<<16 | (uint32(h>>10&0x1f)+112)<<23 | uint32(h&0x3ff)<<13)
}

// QuantizeQ8 quantises x (len a multiple of 32) into Q8_0-like blocks, as
// ggml quantises activations: scale max|x|/127, round to nearest (ties to
// even, as ggml's x86 and NEON paths round).
func QuantizeQ8(dst []BlockQ8, x []float32) {
	const magic = 12582912 // 1.5·2²³: adding it rounds |v| < 2²² to an integer
	for i := range dst {
		v := (*[QK]float32)(x[i*QK : (i+1)*QK])
		var amax uint32
		for _, f := range v {
			amax = max(amax, math.Float32bits(f)&^(1<<31))
		}
		d := math.Float32frombits(amax) / 127
		dst[i].D = F16(d)
		inv := float32(0)
		if d != 0 {
			inv = 1 / F32(dst[i].D)
		}
		q := &dst[i].Qs
		for j, f := range v {
			p := float32(f * inv) // rounded here: no fused multiply-add on any GOARCH
			r := int32(math.Float32bits(p+magic)) - 0x4b400000
			q[j] = int8(max(-127, min(127, r)))
		}
	}
}
