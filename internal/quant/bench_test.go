package quant

import (
	"fmt"
	"testing"
)

var sink float32

type benchKernel struct {
	name string
	k    *kernels
}

// benchKernels are the implementations benchmarked: generic, simd (the
// best this CPU runs, if not generic) and any other SIMD implementation by
// its name.
func benchKernels() []benchKernel {
	bs := []benchKernel{{"generic", generic}}
	for i, k := range available {
		switch {
		case k == generic:
		case i == 0:
			bs = append(bs, benchKernel{"simd", k})
		default:
			bs = append(bs, benchKernel{k.name, k})
		}
	}
	return bs
}

// reportOps reports G int-ops/s: a multiply and an add per weight.
func reportOps(b *testing.B, weights int) {
	b.ReportMetric(2*float64(weights)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gop/s")
}

func BenchmarkDotQ4Q8(b *testing.B) {
	for _, bk := range benchKernels() {
		for _, w := range []int{1024, 4096} {
			b.Run(fmt.Sprintf("%s/%d", bk.name, w), func(b *testing.B) {
				x, _, y := randQ4Q8(w/QK, 1)
				var s float32
				for b.Loop() {
					s += bk.k.q4q8(&x[0], &y[0], len(x))
				}
				sink = s
				reportOps(b, w)
			})
		}
	}
}

func BenchmarkDotQ8Q8(b *testing.B) {
	for _, bk := range benchKernels() {
		for _, w := range []int{1024, 4096} {
			b.Run(fmt.Sprintf("%s/%d", bk.name, w), func(b *testing.B) {
				_, x, y := randQ4Q8(w/QK, 1)
				var s float32
				for b.Loop() {
					s += bk.k.q8q8(&x[0], &y[0], len(x))
				}
				sink = s
				reportOps(b, w)
			})
		}
	}
}
