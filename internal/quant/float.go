package quant

import (
	"math"
	"unsafe"
)

// floatKernels is one implementation of the float kernels: the f16 and f32
// dot products and matrix tiles, and the element-wise loops, of ggml's CPU
// backend (ggml-cpu's vec.h-style loops, and llamafile's tinyBLAS for a
// prompt's f16 and f32 products). Every function takes counts that are
// multiples of lanes (at least one), except the tiles', whose k is.
type floatKernels struct {
	name string
	// lanes is how many elements a vector step takes; the Go wrappers run
	// the rest of a row with the generic loops, as ggml does its leftovers.
	lanes int
	// tileCols is the tile's columns (tinyBLAS's RN: 6 with 32 vector
	// registers, 3 with 16); its rows are always 4.
	tileCols int
	dotF16   func(x, y *uint16, n int) float32
	dotF32   func(x, y *float32, n int) float32
	// tileF16 and tileF32 dot rows a, a+lda, a+2·lda, a+3·lda (strides in
	// elements) with columns b, b+ldb, ... (tileCols of them) over k
	// elements: c[4j+i] is row i with column j.
	tileF16 func(a *uint16, lda int, b *uint16, ldb int, k int, c *[24]float32)
	tileF32 func(a *float32, lda int, b *float32, ldb int, k int, c *[24]float32)
	scale   func(y *float32, n int, s float32)
	add     func(y, x *float32, n int)
	// expSum sets y[i] = e^(x[i]-max) and returns their sum.
	expSum func(y, x *float32, n int, max float32) float32
	silu   func(y, x *float32, n int)
	cvtF16 func(y *uint16, x *float32, n int)
}

// genericFloat is the portable implementation: plain loops, one element a
// step, which is what ggml runs on a CPU without its SIMD macros (its
// tinyBLAS then declines, and the products are dot products).
var genericFloat = &floatKernels{
	name: "generic", lanes: 1, tileCols: 3,
	dotF16: dotF16GenericP,
	dotF32: func(x, y *float32, n int) float32 {
		return dotF32Generic(unsafe.Slice(x, n), unsafe.Slice(y, n))
	},
	tileF16: func(a *uint16, lda int, b *uint16, ldb int, k int, c *[24]float32) {
		for j := range 3 {
			for i := range 4 {
				c[4*j+i] = dotF16GenericP((*uint16)(unsafe.Add(unsafe.Pointer(a), 2*i*lda)), (*uint16)(unsafe.Add(unsafe.Pointer(b), 2*j*ldb)), k)
			}
		}
	},
	tileF32: func(a *float32, lda int, b *float32, ldb int, k int, c *[24]float32) {
		for j := range 3 {
			for i := range 4 {
				c[4*j+i] = dotF32Generic(unsafe.Slice((*float32)(unsafe.Add(unsafe.Pointer(a), 4*i*lda)), k),
					unsafe.Slice((*float32)(unsafe.Add(unsafe.Pointer(b), 4*j*ldb)), k))
			}
		}
	},
	scale: func(y *float32, n int, s float32) {
		ys := unsafe.Slice(y, n)
		for i := range ys {
			ys[i] *= s
		}
	},
	add: func(y, x *float32, n int) {
		ys, xs := unsafe.Slice(y, n), unsafe.Slice(x, n)
		for i := range ys {
			ys[i] += xs[i]
		}
	},
	expSum: func(y, x *float32, n int, max float32) float32 {
		ys, xs := unsafe.Slice(y, n), unsafe.Slice(x, n)
		var s float32
		for i := range ys {
			ys[i] = float32(math.Exp(float64(xs[i] - max)))
			s += ys[i]
		}
		return s
	},
	silu: func(y, x *float32, n int) {
		ys, xs := unsafe.Slice(y, n), unsafe.Slice(x, n)
		for i, v := range xs {
			ys[i] = v / (1 + float32(math.Exp(float64(-v))))
		}
	},
	cvtF16: func(y *uint16, x *float32, n int) {
		ys, xs := unsafe.Slice(y, n), unsafe.Slice(x, n)
		for i, v := range xs {
			ys[i] = F32ToF16(v)
		}
	},
}

// dotF16GenericP is the f16 dot product of n elements at x and y, each
// product widened to float32 and added in order.
func dotF16GenericP(x, y *uint16, n int) float32 {
	var s float32
	ys := unsafe.Slice(y, n)
	for i, a := range unsafe.Slice(x, n) {
		s += F16ToF32(a) * F16ToF32(ys[i])
	}
	return s
}

// dotF32Generic is a float32 dot product with four accumulators.
func dotF32Generic(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	for len(x) >= 4 {
		a, b := x[:4:4], y[:4:4]
		s0 += a[0] * b[0]
		s1 += a[1] * b[1]
		s2 += a[2] * b[2]
		s3 += a[3] * b[3]
		x, y = x[4:], y[4:]
	}
	for i := range x {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// availableFloat lists the float implementations this CPU runs, best
// first; genericFloat is last.
var availableFloat = append(archFloatKernels(), genericFloat)

// chosenFloat is the implementation chosen at init (BLSIM_KERNELS may
// name it, as for the quantised kernels; "generic" chooses both generic).
var chosenFloat = chooseFloat(chosen.name)

func chooseFloat(name string) *floatKernels {
	for _, k := range availableFloat {
		if k.name == name {
			return k
		}
	}
	if name == "generic" {
		return genericFloat
	}
	return availableFloat[0]
}

// activeFloat is the implementation the float functions run.
func activeFloat() *floatKernels {
	if active.Load() == generic {
		return genericFloat
	}
	return chosenFloat
}

// FloatImpl names the implementation the float kernels run: "avx512" or
// "avx2" (with FMA and F16C) on amd64, "neon-fp16" or "neon" on arm64,
// "generic" otherwise (or after SetGeneric(true)).
func FloatImpl() string { return activeFloat().name }

// F32ToF16 converts a float32 to float16 bits, rounding to nearest even,
// with float16's subnormals, infinities and NaN (as VCVTPS2PH and ggml's
// GGML_FP32_TO_FP16 do).
func F32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127
	man := b & 0x7fffff
	switch {
	case exp == 128: // inf or NaN
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp > 15:
		return sign | 0x7c00
	case exp >= -14:
		h := uint32(exp+15)<<10 | man>>13
		rest := man & 0x1fff
		if rest > 0x1000 || rest == 0x1000 && h&1 == 1 {
			h++ // may carry into the exponent, up to infinity: right
		}
		return sign | uint16(h)
	case exp >= -25:
		man |= 0x800000
		shift := uint(-exp - 1) // 14..24: the subnormal's mantissa
		h := man >> shift
		rest := man & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rest > half || rest == half && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	return sign
}

// F16ToF32 converts float16 bits to float32 exactly, subnormals,
// infinities and NaN included.
func F16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h >> 10 & 0x1f)
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
	case man == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal: normalise.
	e := uint32(113)
	for man&0x400 == 0 {
		man <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (man&0x3ff)<<13)
}
