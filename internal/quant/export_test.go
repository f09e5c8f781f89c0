package quant

import "math"

// Test-only code: nothing outside the tests calls it (deadcode). SiLU and
// Rope are ggml's kernels that no op of the dispatcher runs yet; their
// benchmarks (BenchmarkElementwise) are docs/kernels.md's rows against
// ggml-op-perf.

// SiLU sets y[i] = x[i]·σ(x[i]) (ggml_vec_silu_f32; x holds at least
// len(y)).
func SiLU(y, x []float32) {
	x = x[:len(y)]
	k := activeFloat()
	n := k.body(len(y))
	if n > 0 {
		k.silu(&y[0], &x[0], n)
	}
	if n < len(y) {
		genericFloat.silu(&y[n], &x[n], len(y)-n)
	}
}

// Rope rotates the first dims elements of each of the heads rows of x
// (headDim apart) by position pos, as ggml's rope for a token in the
// normal (not NeoX) layout: a table of cos and sin of pos·base^(-2i/dims)
// for the pairs, computed once per token (ggml_rope_cache_init, one
// cosf and sinf a pair: sincosf), then each head's pairs rotated by it. cache
// holds at least dims floats.
func Rope(x []float32, heads, headDim, dims, pos int, base float32, cache []float32) {
	cache = cache[:dims]
	theta := float64(pos)
	step := math.Pow(float64(base), -2/float64(dims))
	for i := 0; i+1 < len(cache); i += 2 {
		cache[i+1], cache[i] = sincosf(theta)
		theta *= step
	}
	for h := range heads {
		row := x[h*headDim : h*headDim+dims]
		for i := 0; i+1 < len(row) && i+1 < len(cache); i += 2 {
			c, s := cache[i], cache[i+1]
			a, b := row[i], row[i+1]
			row[i], row[i+1] = a*c-b*s, a*s+b*c
		}
	}
}

// sincosf is the sine and cosine of x to float32's precision, as the C
// library's sinf and cosf (which ggml_rope_cache_init calls a pair)
// compute them: x reduced by multiples of π/2 in float64, then the Taylor
// polynomials of sine (to x^11) and cosine (to x^12) on [-π/4, π/4].
func sincosf(x float64) (sin, cos float32) {
	k := math.RoundToEven(x * (2 / math.Pi))
	r := x - k*(math.Pi/2)
	r -= k * 6.123233995736766e-17 // π/2's float64 remainder
	r2 := r * r
	s := r + r*r2*(-1.0/6+r2*(1.0/120+r2*(-1.0/5040+r2*(1.0/362880+r2*(-1.0/39916800)))))
	c := 1 + r2*(-0.5+r2*(1.0/24+r2*(-1.0/720+r2*(1.0/40320+r2*(-1.0/3628800+r2*(1.0/479001600))))))
	switch int64(k) & 3 {
	case 1:
		s, c = c, -s
	case 2:
		s, c = -s, -c
	case 3:
		s, c = -c, s
	}
	return float32(s), float32(c)
}

// SetGeneric makes DotQ4Q8 and DotQ8Q8 run the portable Go kernels (on)
// or again the implementation chosen at init (off). It is safe to call at
// any time; a kernel call already running finishes with the implementation
// it started with.
func SetGeneric(on bool) {
	k := chosen
	if on {
		k = generic
	}
	active.Store(k)
}

// FloatImpl names the implementation the float kernels run: "avx512" or
// "avx2" (with FMA and F16C) on amd64, "neon-fp16" or "neon" on arm64,
// "generic" otherwise (or after SetGeneric(true)).
func FloatImpl() string { return activeFloat().name }
