package quant

import (
	"fmt"
	"testing"
)

// The float kernels at test-backend-ops' perf shapes (llama.cpp c392e50,
// tests/test-backend-ops.cpp, make_test_cases_perf), so that the rates
// compare one for one with `test-backend-ops perf -o MUL_MAT` and
// `-o SOFT_MAX` on the same pinned core (docs/kernels.md), and at the
// attention shapes of a prompt.

// mulMatShape is test-backend-ops' MUL_MAT perf case: m=4096, k=14336,
// type_b f32, n in 1, 2, 3, 4, 5, 8, 512.
const mulMatM, mulMatK = 4096, 14336

var mulMatNs = []int{1, 2, 3, 4, 5, 8, 512}

// BenchmarkMulMatF16 is MUL_MAT(type_a=f16, type_b=f32) as ggml runs it:
// the f32 activations converted to f16 (from_float), then one f16 dot
// product a row for one column, tinyBLAS's tiles for more. It reports
// GFLOPS as test-backend-ops does (2·m·n·k per run).
func BenchmarkMulMatF16(b *testing.B) {
	a := toF16(randF32(newRNG(1), mulMatM*mulMatK))
	for _, n := range mulMatNs {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			x := randF32(newRNG(2), n*mulMatK)
			xh := make([]uint16, len(x))
			c := make([]float32, n*mulMatM)
			for b.Loop() {
				ToF16(xh, x)
				if n == 1 {
					for i := range mulMatM {
						c[i] = DotF16(a[i*mulMatK:(i+1)*mulMatK], xh)
					}
					continue
				}
				MatMulF16(mulMatM, n, mulMatK, a, mulMatK, xh, mulMatK, c, mulMatM)
			}
			b.ReportMetric(2*float64(mulMatM)*float64(n)*mulMatK*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
		})
	}
}

// BenchmarkMulMatF32 is MUL_MAT(type_a=f32, type_b=f32).
func BenchmarkMulMatF32(b *testing.B) {
	a := randF32(newRNG(1), mulMatM*mulMatK)
	for _, n := range mulMatNs {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			x := randF32(newRNG(2), n*mulMatK)
			c := make([]float32, n*mulMatM)
			for b.Loop() {
				if n == 1 {
					for i := range mulMatM {
						c[i] = DotF32(a[i*mulMatK:(i+1)*mulMatK], x)
					}
					continue
				}
				MatMulF32(mulMatM, n, mulMatK, a, mulMatK, x, mulMatK, c, mulMatM)
			}
			b.ReportMetric(2*float64(mulMatM)*float64(n)*mulMatK*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
		})
	}
}

// softMaxShapes are test-backend-ops' SOFT_MAX perf cases: rows of ne0,
// ne1·ne2 rows, no mask, scale 1.
var softMaxShapes = [][3]int{{4096, 4096, 5}, {77, 4096, 5}, {1024, 1024, 10}, {77, 1024, 10}, {256, 256, 20}, {64, 64, 20}, {77, 64, 20}}

// BenchmarkSoftMax reports GB/s as test-backend-ops does for an op
// without flops: the bytes of its output and its input (8 a float) per
// run, over the time.
func BenchmarkSoftMax(b *testing.B) {
	for _, s := range softMaxShapes {
		b.Run(fmt.Sprintf("ne=%dx%dx%d", s[0], s[1], s[2]), func(b *testing.B) {
			n := s[0] * s[1] * s[2]
			x, y := randF32(newRNG(3), n), make([]float32, n)
			copy(y, x) // touch y's pages before the timing, as test-backend-ops' warm-up run does
			for b.Loop() {
				for r := 0; r < n; r += s[0] {
					SoftMax(y[r:r+s[0]], x[r:r+s[0]], nil, 1)
				}
			}
			b.ReportMetric(8*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

// BenchmarkRMSNorm is RMS_NORM over rows of ne0 (not a test-backend-ops
// perf case at c392e50; scripts/llamacpp/ggml-op-perf.c times ggml's on
// the same shapes), GB/s as for SOFT_MAX.
func BenchmarkRMSNorm(b *testing.B) {
	for _, s := range [][2]int{{4096, 512}, {1024, 512}, {4096, 1}} {
		b.Run(fmt.Sprintf("ne=%dx%d", s[0], s[1]), func(b *testing.B) {
			n := s[0] * s[1]
			x, y := randF32(newRNG(4), n), make([]float32, n)
			for b.Loop() {
				for r := 0; r < n; r += s[0] {
					RMSNorm(y[r:r+s[0]], x[r:r+s[0]], 1e-6)
				}
			}
			b.ReportMetric(8*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

// BenchmarkElementwise is SILU, ADD and the f32-to-f16 copy (CPY_F16) over
// 4096x512 floats, and ROPE over 512 tokens of 16 heads of 64, as
// ggml-op-perf times ggml's: GB/s of the output and inputs (SILU and
// ROPE 8 bytes an element, ADD 12, CPY_F16 6).
func BenchmarkElementwise(b *testing.B) {
	const n = 4096 * 512
	x, y := randF32(newRNG(5), n), randF32(newRNG(6), n)
	h := make([]uint16, n)
	for _, c := range []struct {
		name  string
		bytes float64
		run   func()
	}{
		{"SILU", 8, func() { SiLU(y, x) }},
		{"ADD", 12, func() { Add(y, x) }},
		{"CPY_F16", 6, func() { ToF16(h, x) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.run()
			}
			b.ReportMetric(c.bytes*n*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
	b.Run("ROPE", func(b *testing.B) {
		const tokens, heads, d = 512, 16, 64
		r := randF32(newRNG(7), tokens*heads*d)
		cache := make([]float32, d)
		for b.Loop() {
			for t := range tokens {
				Rope(r[t*heads*d:(t+1)*heads*d], heads, d, d, 1000+t, 10000, cache)
			}
		}
		b.ReportMetric(8*float64(len(r))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	})
}
