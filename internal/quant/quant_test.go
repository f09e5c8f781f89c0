package quant

import (
	"math"
	"math/rand/v2"
	"testing"
)

// testRNG draws the test data.
type testRNG struct{ *rand.Rand }

func newRNG(seed uint64) testRNG { return testRNG{rand.New(rand.NewPCG(seed, 1))} }

func (g testRNG) next() uint64 { return g.Uint64() }

// float returns a value in [-1, 1).
func (g testRNG) float() float32 { return 2*g.Float32() - 1 }

func TestF16RoundTrip(t *testing.T) {
	for _, f := range []float32{1, 0.5, 1.0 / 512, 1.0 / 4096, 3.14159, -2.5, 65504, 1e-4} {
		h := F16(f)
		if got := F32(h); math.Abs(float64(got-f)) > math.Abs(float64(f))/1024 {
			t.Errorf("F16(%g) -> %g", f, got)
		}
	}
	if F32(F16(0)) != 0 {
		t.Error("zero")
	}
}

func randQ4Q8(n int, seed uint64) ([]BlockQ4, []BlockQ8, []BlockQ8) {
	g := newRNG(seed)
	x := make([]BlockQ4, n)
	x8 := make([]BlockQ8, n)
	y := make([]BlockQ8, n)
	for i := range x {
		x[i].D = F16(float32(1+g.next()%8) / 64)
		x8[i].D = x[i].D
		for j := range x[i].Qs {
			x[i].Qs[j] = byte(g.next())
		}
		for j := range x8[i].Qs {
			x8[i].Qs[j] = int8(g.next())
		}
		y[i].D = F16(float32(1+g.next()%8) / 128)
		for j := range y[i].Qs {
			y[i].Qs[j] = int8(g.next())
		}
	}
	return x, x8, y
}

func TestKernelsMatchReference(t *testing.T) {
	for _, n := range []int{1, 3, 32} {
		x, x8, y := randQ4Q8(n, uint64(n))
		var want4, want8 float64
		for i := range x {
			for j := range QK {
				var w int
				if j < 16 {
					w = int(x[i].Qs[j]&0xF) - 8
				} else {
					w = int(x[i].Qs[j-16]>>4) - 8
				}
				want4 += float64(w) * float64(F32(x[i].D)) * float64(y[i].Qs[j]) * float64(F32(y[i].D))
				want8 += float64(x8[i].Qs[j]) * float64(F32(x8[i].D)) * float64(y[i].Qs[j]) * float64(F32(y[i].D))
			}
		}
		if got := float64(DotQ4Q8(x, y)); math.Abs(got-want4) > 1e-4*(1+math.Abs(want4)) {
			t.Errorf("q4 n=%d: %g, want %g", n, got, want4)
		}
		if got := float64(DotQ8Q8(x8, y)); math.Abs(got-want8) > 1e-4*(1+math.Abs(want8)) {
			t.Errorf("q8 n=%d: %g, want %g", n, got, want8)
		}
	}
	g := newRNG(7)
	a, b := make([]float32, 37), make([]float32, 37)
	want := 0.0
	for i := range a {
		a[i], b[i] = g.float(), g.float()
		want += float64(a[i]) * float64(b[i])
	}
	if got := float64(DotF32(a, b)); math.Abs(got-want) > 1e-5 {
		t.Errorf("f32: %g, want %g", got, want)
	}
	// Quantising rounds to nearest, ties to even, as ggml's SIMD paths.
	for _, tc := range []struct {
		x    float32
		want int8
	}{{0.5, 0}, {1.5, 2}, {2.5, 2}, {-0.5, 0}, {-1.5, -2}, {126.5, 126}, {-127, -127}, {3.49, 3}} {
		blk := make([]float32, QK)
		blk[0], blk[1] = tc.x, 127 // the scale is exactly 1
		q := make([]BlockQ8, 1)
		QuantizeQ8(q, blk)
		if F32(q[0].D) != 1 || q[0].Qs[0] != tc.want || q[0].Qs[1] != 127 || q[0].Qs[2] != 0 {
			t.Errorf("quantised %g (scale %g) as %d, want %d", tc.x, F32(q[0].D), q[0].Qs[0], tc.want)
		}
	}
	zero := make([]BlockQ8, 1)
	QuantizeQ8(zero, make([]float32, QK))
	if zero[0].D != 0 || zero[0].Qs != ([QK]int8{}) {
		t.Errorf("a zero block quantised as %+v", zero[0])
	}
	// Quantising activations keeps them within half a step.
	x := make([]float32, 64)
	for i := range x {
		x[i] = g.float() * 3
	}
	q := make([]BlockQ8, 2)
	QuantizeQ8(q, x)
	for i, v := range x {
		b := q[i/QK]
		if got := float32(b.Qs[i%QK]) * F32(b.D); math.Abs(float64(got-v)) > float64(F32(b.D))*0.51+1e-6 {
			t.Fatalf("quantised x[%d]=%g as %g", i, v, got)
		}
	}
}
