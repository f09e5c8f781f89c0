package quant

import (
	"fmt"
	"math"
	"os"
	"testing"
)

// withFloat runs f with each float implementation this CPU runs made the
// active one.
func withFloat(t *testing.T, f func(t *testing.T, k *floatKernels)) {
	t.Helper()
	for _, k := range availableFloat {
		t.Run(k.name, func(t *testing.T) {
			old := chosenFloat
			chosenFloat = k
			defer func() { chosenFloat = old }()
			f(t, k)
		})
	}
}

func randF32(g testRNG, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(int64(g.next()%20001)-10000) / 10000
	}
	return x
}

func toF16(x []float32) []uint16 {
	h := make([]uint16, len(x))
	for i, v := range x {
		h[i] = F32ToF16(v)
	}
	return h
}

// floatLengths are the row lengths the float kernels are tested with:
// shorter than a vector, around one and several, with tails.
var floatLengths = []int{1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 128, 1000, 4096}

// near says whether got is within rel of want, relative to scale.
func near(got, want, scale, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Max(scale, 1e-30)
}

func TestFloatImpl(t *testing.T) {
	t.Logf("float kernels: %s (of %d available)", FloatImpl(), len(availableFloat))
	if want := os.Getenv("QUANT_TEST_FLOAT_IMPL"); want != "" && FloatImpl() != want {
		t.Fatalf("FloatImpl() = %q, want %q (QUANT_TEST_FLOAT_IMPL)", FloatImpl(), want)
	}
	if availableFloat[len(availableFloat)-1] != genericFloat {
		t.Fatal("generic is not the last resort")
	}
	defer active.Store(active.Load())
	SetGeneric(true)
	if FloatImpl() != "generic" {
		t.Fatalf("SetGeneric(true): FloatImpl() = %q", FloatImpl())
	}
	SetGeneric(false)
	if FloatImpl() != chosenFloat.name {
		t.Fatalf("SetGeneric(false): FloatImpl() = %q", FloatImpl())
	}
}

// TestF16Conversions: every float16 widens exactly and narrows back to
// itself; float32 values narrow to the nearest float16 (ties to even), as
// the hardware's VCVTPS2PH does where the CPU has it.
func TestF16Conversions(t *testing.T) {
	for h := range 1 << 16 {
		f := F16ToF32(uint16(h))
		if math.IsNaN(float64(f)) {
			if F32ToF16(f)&0x7c00 != 0x7c00 || F32ToF16(f)&0x3ff == 0 {
				t.Fatalf("NaN %#04x narrows to %#04x", h, F32ToF16(f))
			}
			continue
		}
		if back := F32ToF16(f); back != uint16(h) {
			t.Fatalf("%#04x -> %g -> %#04x", h, f, back)
		}
		if h&0x7c00 != 0 && h&0x7c00 != 0x7c00 && F32(uint16(h)) != f {
			t.Fatalf("F32(%#04x) = %g, F16ToF32 %g", h, F32(uint16(h)), f)
		}
	}
	g := newRNG(3)
	xs := []float32{0, -0, 1, 65504, 65519, 65520, 1e6, -1e6, 6.1e-5, 6.0e-5, 5.96e-8, 2.98e-8, 2.99e-8, 1e-9, 0.1, 1.0009766, 1.0014648, float32(math.Inf(1))}
	for range 100000 {
		xs = append(xs, math.Float32frombits(uint32(g.next())))
	}
	for _, x := range xs {
		h := F32ToF16(x)
		if math.IsNaN(float64(x)) {
			continue
		}
		got := float64(F16ToF32(h))
		// No other float16 is nearer (ties: h is even).
		for _, d := range []int{-1, 1} {
			o := int(h) + d
			if o < 0 || o > 0xffff || (o&0x7c00) == 0x7c00 && o&0x3ff != 0 || (o^int(h))&0x8000 != 0 {
				continue
			}
			other := float64(F16ToF32(uint16(o)))
			if math.IsInf(got, 0) || math.IsInf(other, 0) {
				continue // overflow rounds to infinity from 65520 on
			}
			a, b := math.Abs(got-float64(x)), math.Abs(other-float64(x))
			if b < a || b == a && h&1 == 1 && !math.IsInf(got, 0) {
				t.Fatalf("F32ToF16(%g) = %#04x (%g), but %#04x (%g) is nearer", x, h, got, o, other)
			}
		}
	}
	withFloat(t, func(t *testing.T, _ *floatKernels) {
		finite := make([]float32, 0, len(xs))
		for _, x := range xs {
			if !math.IsNaN(float64(x)) {
				finite = append(finite, x)
			}
		}
		got := make([]uint16, len(finite))
		ToF16(got, finite)
		for i, x := range finite {
			if got[i] != F32ToF16(x) {
				t.Fatalf("ToF16(%g) = %#04x, F32ToF16 %#04x", x, got[i], F32ToF16(x))
			}
		}
	})
}

func TestDotFloat(t *testing.T) {
	withFloat(t, func(t *testing.T, _ *floatKernels) {
		g := newRNG(3)
		for _, n := range floatLengths {
			x, y := randF32(g, n), randF32(g, n)
			hx, hy := toF16(x), toF16(y)
			var want32, want16, scale float64
			for i := range x {
				want32 += float64(x[i]) * float64(y[i])
				want16 += float64(F16ToF32(hx[i])) * float64(F16ToF32(hy[i]))
				scale += math.Abs(float64(x[i]) * float64(y[i]))
			}
			if got := DotF32(x, y); !near(float64(got), want32, scale, 1e-6) {
				t.Errorf("DotF32 n=%d: %g, want %g", n, got, want32)
			}
			if got := DotF16(hx, hy); !near(float64(got), want16, scale, 1e-6) {
				t.Errorf("DotF16 n=%d: %g, want %g", n, got, want16)
			}
		}
		if DotF32(nil, nil) != 0 || DotF16(nil, nil) != 0 {
			t.Error("empty rows")
		}
	})
}

// TestMatMulFloat checks the tiled products against dot products over
// shapes with every kind of tail: rows not a multiple of 16 or 8, columns
// not of the tile's width, fewer columns than a tile, k not of the vector
// width (the fallback).
func TestMatMulFloat(t *testing.T) {
	withFloat(t, func(t *testing.T, _ *floatKernels) {
		g := newRNG(3)
		for _, s := range [][3]int{{4, 2, 16}, {4, 6, 16}, {8, 7, 32}, {16, 13, 64}, {12, 5, 48}, {64, 77, 64}, {32, 512, 128},
			{64, 3, 80}, {20, 25, 17}, {4, 1, 64}, {36, 100, 256}} {
			m, n, k := s[0], s[1], s[2]
			lda, ldb, ldc := k+3, k+5, m+2
			a, b := randF32(g, m*lda), randF32(g, n*ldb)
			ha, hb := toF16(a), toF16(b)
			c32, c16 := make([]float32, n*ldc), make([]float32, n*ldc)
			for i := range c32 {
				c32[i], c16[i] = -7, -7
			}
			MatMulF32(m, n, k, a, lda, b, ldb, c32, ldc)
			MatMulF16(m, n, k, ha, lda, hb, ldb, c16, ldc)
			for j := range ldc * n {
				jj, ii := j/ldc, j%ldc
				if ii >= m {
					if c32[j] != -7 || c16[j] != -7 {
						t.Fatalf("%v: wrote past the rows at (%d, %d)", s, ii, jj)
					}
					continue
				}
				var w32, w16, scale float64
				for l := range k {
					w32 += float64(a[ii*lda+l]) * float64(b[jj*ldb+l])
					w16 += float64(F16ToF32(ha[ii*lda+l])) * float64(F16ToF32(hb[jj*ldb+l]))
					scale += math.Abs(float64(a[ii*lda+l]) * float64(b[jj*ldb+l]))
				}
				if !near(float64(c32[j]), w32, scale, 1e-5) || !near(float64(c16[j]), w16, scale, 1e-5) {
					t.Fatalf("%v at (%d, %d): f32 %g want %g, f16 %g want %g", s, ii, jj, c32[j], w32, c16[j], w16)
				}
			}
		}
	})
}

// TestExpAccuracy: the vector exponential over softmax's range, against
// float64.
func TestExpAccuracy(t *testing.T) {
	withFloat(t, func(t *testing.T, _ *floatKernels) {
		var xs []float32
		for v := float32(-85); v <= 40; v += 0.0137 {
			xs = append(xs, v)
		}
		xs = append(xs, 0, -0.5, 0.5, float32(-math.Ln2/2), float32(math.Ln2/2))
		for len(xs)%16 != 0 {
			xs = append(xs, 1)
		}
		y := make([]float32, len(xs))
		k := activeFloat()
		var want float64
		for _, v := range xs {
			want += math.Exp(float64(v - 1))
		}
		sum := k.expSum(&y[0], &xs[0], len(xs), 1)
		worst := 0.0
		for i, v := range xs {
			e := math.Exp(float64(v - 1)) // the argument as the kernels form it, in float32
			worst = math.Max(worst, math.Abs(float64(y[i])-e)/e)
		}
		if worst > 5e-7 {
			t.Errorf("exp: relative error up to %.3g", worst)
		}
		if !near(float64(sum), want, want, 1e-5) {
			t.Errorf("sum %g, want %g", sum, want)
		}
	})
}

func TestElementwise(t *testing.T) {
	withFloat(t, func(t *testing.T, _ *floatKernels) {
		g := newRNG(3)
		for _, n := range floatLengths {
			x, mask := randF32(g, n), randF32(g, n)
			for i := range x {
				x[i] *= 8
			}
			if n > 1 {
				mask[n/2] = float32(math.Inf(-1))
			}
			y := make([]float32, n)
			SoftMax(y, x, mask, 0.125)
			var mx float64 = math.Inf(-1)
			for i := range x {
				mx = math.Max(mx, float64(x[i])*0.125+float64(mask[i]))
			}
			var z float64
			for i := range x {
				z += math.Exp(float64(x[i])*0.125 + float64(mask[i]) - mx)
			}
			var s float64
			for i := range x {
				w := math.Exp(float64(x[i])*0.125+float64(mask[i])-mx) / z
				if !near(float64(y[i]), w, 1, 2e-6) {
					t.Fatalf("SoftMax n=%d [%d]: %g, want %g", n, i, y[i], w)
				}
				s += float64(y[i])
			}
			if math.Abs(s-1) > 1e-5 {
				t.Fatalf("SoftMax n=%d sums to %g", n, s)
			}
			RMSNorm(y, x, 1e-6)
			var ss float64
			for _, v := range x {
				ss += float64(v) * float64(v)
			}
			r := 1 / math.Sqrt(ss/float64(n)+1e-6)
			for i := range x {
				if !near(float64(y[i]), float64(x[i])*r, math.Abs(float64(x[i])*r), 1e-5) {
					t.Fatalf("RMSNorm n=%d [%d]: %g, want %g", n, i, y[i], float64(x[i])*r)
				}
			}
			SiLU(y, x)
			for i, v := range x {
				w := float64(v) / (1 + math.Exp(-float64(v)))
				if !near(float64(y[i]), w, math.Max(math.Abs(w), 1e-3), 1e-5) {
					t.Fatalf("SiLU n=%d (%g): %g, want %g", n, v, y[i], w)
				}
			}
			copy(y, x)
			Add(y, mask)
			Scale(y, 3)
			for i := range x {
				if w := (x[i] + mask[i]) * 3; y[i] != w && !(math.IsInf(float64(w), -1) && math.IsInf(float64(y[i]), -1)) {
					t.Fatalf("Add, Scale n=%d [%d]: %g, want %g", n, i, y[i], w)
				}
			}
		}
	})
}

// TestRope: a rotation keeps each pair's length, and position 0 is the
// identity.
func TestRope(t *testing.T) {
	g := newRNG(3)
	x := randF32(g, 4*64)
	y := append([]float32(nil), x...)
	cache := make([]float32, 64)
	Rope(y, 4, 64, 64, 0, 10000, cache)
	for i := range x {
		if math.Abs(float64(x[i]-y[i])) > 1e-7 {
			t.Fatalf("position 0 moved [%d]: %g -> %g", i, x[i], y[i])
		}
	}
	Rope(y, 4, 64, 64, 1234, 10000, cache)
	for i := 0; i < len(x); i += 2 {
		a := math.Hypot(float64(x[i]), float64(x[i+1]))
		b := math.Hypot(float64(y[i]), float64(y[i+1]))
		if math.Abs(a-b) > 1e-5 {
			t.Fatalf("pair %d: length %g -> %g", i/2, a, b)
		}
	}
	if y[0] == x[0] {
		t.Fatal("position 1234 did not rotate the first pair")
	}
}

func ExampleSoftMax() {
	y := make([]float32, 3)
	SoftMax(y, []float32{1, 2, 3}, nil, 1)
	fmt.Printf("%.4f %.4f %.4f\n", y[0], y[1], y[2])
	// Output: 0.0900 0.2447 0.6652
}

// Each implementation's max kernel finds the largest element wherever it
// lies in the vector body, and so does SoftMax's maximum with the
// leftovers: softmax is e^(x-max) scaled, and a maximum found too small
// clamps the exponentials of large scores to one value.
func TestMaxKernel(t *testing.T) {
	withFloat(t, func(t *testing.T, k *floatKernels) {
		for _, n := range floatLengths {
			body := k.body(n)
			for _, at := range []int{0, n / 2, n - 1} {
				x := randF32(newRNG(uint64(n+at)), n)
				x[at] = 3
				if body > 0 && at < body {
					if got := k.max(&x[0], body); got != 3 {
						t.Fatalf("%s max n=%d largest at %d: %g", k.name, body, at, got)
					}
				}
				for i := range x {
					x[i] *= 100 // the largest 300, the rest within ±100
				}
				if n > 1 {
					x[(at+1)%n] = 250 // e^(250-max) clamps to e^88 unless max is 300
				}
				y := make([]float32, n)
				SoftMax(y, x, nil, 1)
				if y[at] < 0.99 || math.IsNaN(float64(y[at])) {
					t.Fatalf("SoftMax n=%d largest at %d: %g", n, at, y[at])
				}
			}
		}
	})
}

// sincosf is within float32's rounding of math.Sincos over the angles RoPE
// takes (positions to 10^6 radians) and in each quadrant.
func TestSincosf(t *testing.T) {
	g := newRNG(9)
	for i := range 100000 {
		x := float64(g.next()%2000001)/1000 - 1000
		if i%10 == 0 {
			x *= 1000
		}
		s, c := sincosf(x)
		ws, wc := math.Sincos(x)
		if math.Abs(float64(s)-ws) > 2e-7 || math.Abs(float64(c)-wc) > 2e-7 {
			t.Fatalf("sincosf(%g) = %g, %g; want %g, %g", x, s, c, ws, wc)
		}
	}
}
