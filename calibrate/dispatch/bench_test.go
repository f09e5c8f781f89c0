package dispatch

import (
	"fmt"
	"testing"

	"github.com/blsim/blsim/internal/quant"
)

// BenchmarkMulMat runs test-backend-ops' MUL_MAT perf shapes (m=4096,
// k=14336, n tokens; q4_0 and q8_0 weights, f32 activations) through the
// dispatcher's hot loop on the calling thread: the activations quantised
// per op, then ggml's chunks and tiles over the weights. It reports GFLOPS
// as test-backend-ops does (2·m·k·n per op), to set beside
//
//	test-backend-ops perf -o MUL_MAT -b CPU
//
// run on one pinned thread. The weights (33 and 62 MB) fit a large
// last-level cache, as in test-backend-ops.
func BenchmarkMulMat(b *testing.B) {
	const m, k = 4096, 14336
	for _, kind := range []tensorKind{kindQ4, kindQ8} {
		name := map[tensorKind]string{kindQ4: "q4_0", kindQ8: "q8_0"}[kind]
		t := &tensor{kind: kind, count: 1, rows: m, in: k, nb: k / quant.QK}
		if kind == kindQ4 {
			t.q4 = make([]quant.BlockQ4, m*t.nb)
		} else {
			t.q8 = make([]quant.BlockQ8, m*t.nb)
		}
		t.fillRows(1, 0, 0, m)
		for _, n := range []int{1, 2, 3, 4, 5, 8, 512} {
			x := acts{qs: t.nb, fs: k, f: make([]float32, n*k), q: make([]quant.BlockQ8, n*t.nb)}
			g := newRNG(2)
			for i := range x.f {
				x.f[i] = g.float()
			}
			out := make([]float32, n*m)
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				var ctr counter
				for b.Loop() {
					quantRows(t, &x, &x, 0, n, 0, 1)
					ctr.v.Store(1)
					mulmat(t, &x, out, n, 0, 1, &ctr)
				}
				b.ReportMetric(2*float64(m)*float64(k)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
			})
		}
	}
}
