package quant

import (
	"fmt"
	"math"
	"testing"
)

// TestAttention checks both paths against a float64 attention over the
// same (f16-rounded) operands.
func TestAttention(t *testing.T) {
	withFloat(t, func(t *testing.T, _ *floatKernels) {
		for _, s := range [][5]int{{1, 7, 4, 2, 16}, {1, 64, 16, 4, 64}, {5, 40, 4, 4, 32}, {16, 16, 8, 2, 64}, {33, 80, 4, 1, 64}} {
			for _, flash := range []bool{false, true} {
				a := NewAttention(s[0], s[1], s[2], s[3], s[4], flash)
				if !flash {
					// the same operands, V stored transposed
					b := NewAttention(s[0], s[1], s[2], s[3], s[4], true)
					a.Q, a.K = b.Q, b.K
					for g := range a.KVHeads {
						for c := range a.NKV {
							for i := range a.D {
								a.V[(g*a.D+i)*a.NKV+c] = b.V[(g*a.NKV+c)*a.D+i]
							}
						}
					}
				}
				a.Run()
				ref := NewAttention(s[0], s[1], s[2], s[3], s[4], true)
				n, nkv, d, g := a.N, a.NKV, a.D, a.Heads/a.KVHeads
				for j := range n {
					for h := range a.Heads {
						w := make([]float64, nkv)
						mx := math.Inf(-1)
						for c := range nkv {
							var dot float64
							for i := range d {
								dot += float64(F16ToF32(F32ToF16(ref.Q[(j*a.Heads+h)*d+i]))) * float64(F16ToF32(ref.K[((h/g)*nkv+c)*d+i]))
							}
							w[c] = dot/math.Sqrt(float64(d)) + float64(ref.Mask[j*nkv+c])
							mx = math.Max(mx, w[c])
						}
						var z float64
						for c := range w {
							w[c] = math.Exp(w[c] - mx)
							z += w[c]
						}
						for i := range d {
							var o float64
							for c := range nkv {
								o += w[c] / z * float64(F16ToF32(ref.V[((h/g)*nkv+c)*d+i]))
							}
							got := float64(a.Out[(j*a.Heads+h)*d+i])
							if math.Abs(got-o) > 4e-3 {
								t.Fatalf("%v flash=%v token %d head %d [%d]: %g, want %g", s, flash, j, h, i, got, o)
							}
						}
					}
				}
			}
		}
	})
}

// attentionShapes are ggml-op-perf's: the random MoE's 16 heads and 4 KV
// heads of 64, a prompt ubatch of 64 and of 512 from an empty cache and
// after 1536 positions, a generated token at 512 and 2048.
var attentionShapes = [][2]int{{64, 64}, {512, 512}, {512, 2048}, {1, 512}, {1, 2048}}

// BenchmarkAttention reports GFLOPS as ggml-op-perf does: 4·n·n_kv·heads·d
// a run, with flash attention too.
func BenchmarkAttention(b *testing.B) {
	for _, fa := range []bool{false, true} {
		for _, s := range attentionShapes {
			b.Run(fmt.Sprintf("fa=%v/n=%d/n_kv=%d", fa, s[0], s[1]), func(b *testing.B) {
				a := NewAttention(s[0], s[1], 16, 4, 64, fa)
				for b.Loop() {
					a.Run()
				}
				b.ReportMetric(a.Ops()*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
			})
		}
	}
}

func TestExpf(t *testing.T) {
	for x := float32(-87.3); x < 88.7; x += 0.00731 {
		got, want := float64(expf(x)), math.Exp(float64(x))
		if math.Abs(got-want) > 3e-7*want {
			t.Fatalf("expf(%g) = %g, want %g", x, got, want)
		}
	}
	if expf(float32(math.Inf(-1))) != 0 || expf(-100) != 0 || !math.IsInf(float64(expf(89)), 1) || expf(0) != 1 {
		t.Error("expf at its edges")
	}
}
