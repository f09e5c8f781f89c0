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
	// tileF16[w] and tileF32[w] dot rows a, a+lda, a+2·lda, a+3·lda
	// (strides in elements) with w columns b, b+ldb, ... over k elements
	// into c[j·ldc+i], row i with column j, as tinyBLAS stores its tile;
	// w from 1 to tileCols.
	tileF16 []func(a *uint16, lda int, b *uint16, ldb int, k int, c *float32, ldc int)
	tileF32 []func(a *float32, lda int, b *float32, ldb int, k int, c *float32, ldc int)
	scale   func(y *float32, n int, s float32)
	add     func(y, x *float32, n int)
	// expSum sets y[i] = e^(x[i]-max) and returns their sum.
	expSum func(y, x *float32, n int, max float32) float32
	// max is the largest of x's n elements (ggml_vec_max_f32: a scalar
	// loop, which compilers do not vectorise without fast-math).
	max    func(x *float32, n int) float32
	silu   func(y, x *float32, n int)
	cvtF16 func(y *uint16, x *float32, n int)
	// madF16 sets y[i] += x[i]·s and scaleF16 y[i] *= s, y and x float16
	// (ggml_vec_mad_f16, ggml_vec_scale_f16: flash attention's V sums).
	madF16   func(y, x *uint16, n int, s float32)
	scaleF16 func(y *uint16, n int, s float32)
	// flashRow, where set, is one query row and head of flash attention
	// in one call (Attention.flash's loop over the positions), for rows
	// of a multiple of lanes; nil means the loop in Go.
	flashRow func(k, v, q, mask *uint16, nkv, d int, scale float32, vkq *uint16) float32
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
	tileF16: []func(a *uint16, lda int, b *uint16, ldb int, k int, c *float32, ldc int){nil, tileF16Generic(1), tileF16Generic(2), tileF16Generic(3)},
	tileF32: []func(a *float32, lda int, b *float32, ldb int, k int, c *float32, ldc int){nil, tileF32Generic(1), tileF32Generic(2), tileF32Generic(3)},
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
			ys[i] = expf(xs[i] - max)
			s += ys[i]
		}
		return s
	},
	max: func(x *float32, n int) float32 {
		m := float32(math.Inf(-1))
		for _, v := range unsafe.Slice(x, n) {
			if v > m {
				m = v
			}
		}
		return m
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
	madF16: func(y, x *uint16, n int, s float32) {
		ys, xs := unsafe.Slice(y, n), unsafe.Slice(x, n)
		for i, v := range xs {
			ys[i] = F32ToF16(F16ToF32(ys[i]) + F16ToF32(v)*s)
		}
	},
	scaleF16: func(y *uint16, n int, s float32) {
		ys := unsafe.Slice(y, n)
		for i, v := range ys {
			ys[i] = F32ToF16(F16ToF32(v) * s)
		}
	},
}

// tileF16Generic and tileF32Generic are the generic tiles of cols
// columns: a dot product per output.
func tileF16Generic(cols int) func(a *uint16, lda int, b *uint16, ldb int, k int, c *float32, ldc int) {
	return func(a *uint16, lda int, b *uint16, ldb int, k int, c *float32, ldc int) {
		cs := unsafe.Slice(c, (cols-1)*ldc+4)
		for j := range cols {
			for i := range 4 {
				cs[j*ldc+i] = dotF16GenericP((*uint16)(unsafe.Add(unsafe.Pointer(a), 2*i*lda)), (*uint16)(unsafe.Add(unsafe.Pointer(b), 2*j*ldb)), k)
			}
		}
	}
}

func tileF32Generic(cols int) func(a *float32, lda int, b *float32, ldb int, k int, c *float32, ldc int) {
	return func(a *float32, lda int, b *float32, ldb int, k int, c *float32, ldc int) {
		cs := unsafe.Slice(c, (cols-1)*ldc+4)
		for j := range cols {
			for i := range 4 {
				cs[j*ldc+i] = dotF32Generic(unsafe.Slice((*float32)(unsafe.Add(unsafe.Pointer(a), 4*i*lda)), k),
					unsafe.Slice((*float32)(unsafe.Add(unsafe.Pointer(b), 4*j*ldb)), k))
			}
		}
	}
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

// F32ToF16 converts a float32 to float16 bits, rounding to nearest even,
// with float16's subnormals, infinities and NaN, as VCVTPS2PH does. It is
// the branch-free conversion of Marat Dukhan's FP16 library
// (github.com/Maratyszcza/FP16, fp16_ieee_from_fp32_value), which
// ggml-base runs for every f32-to-f16 row where it is built without F16C:
// the float32 multiplications round the mantissa to float16's, and adding
// a power of two aligned to the result's exponent shifts it into place.
func F32ToF16(f float32) uint16 {
	w := math.Float32bits(f)
	// Two float32 roundings: the first saturates what float16 cannot hold
	// to infinity, the second rounds at float16's precision below.
	base := math.Float32frombits(w&0x7fffffff) * 0x1.0p+112
	base *= 0x1.0p-110
	bias := max(w<<1&0xff000000, 0x71000000)
	bits := math.Float32bits(math.Float32frombits(bias>>1+0x07800000) + base)
	if w<<1 > 0xff000000 {
		bits = 0x7c00<<13 | 0x200 // NaN: 0x7e00
	}
	return uint16(w>>16&0x8000 | bits>>13&0x7c00 + bits&0x0fff)
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
