package dispatch

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blsim/blsim/calibrate/probe"
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

// BenchmarkDriverWake is the latency of a handoff to the second pool's
// driver when it has gone to sleep (poll 0) while the first engine keeps
// computing, as in a split op of a decode-like ubatch: from Start to the
// driver running the op, reported as wake-us. One futex wake; a wake
// through the Go scheduler (a channel, as the driver once used) waits for
// the busy poster's P to be handed over.
func BenchmarkDriverWake(b *testing.B) {
	cpus, err := probe.AllowedCPUs()
	if err != nil || len(cpus) < 2 {
		b.Skip("needs Linux and two CPUs")
	}
	pool, err := probe.NewCallerPool(cpus[:1], 0)
	if err != nil {
		b.Fatal(err)
	}
	d, err := newDriver(pool, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	if err := probe.Pin(cpus[1]); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = probe.Unpin() }()
	var ran atomic.Int64
	total := time.Duration(0)
	for b.Loop() {
		t0 := time.Now()
		d.Start(func(*probe.Pool) { ran.Store(int64(time.Since(t0))) })
		for ran.Load() == 0 { // the first engine's own work
		}
		total += time.Duration(ran.Swap(0))
		d.Wait()
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "wake-us")
}
