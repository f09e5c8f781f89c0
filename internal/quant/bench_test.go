package quant

import (
	"fmt"
	"strings"
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
	benchDot(b, func(k benchKernel, x []BlockQ4, _, y []BlockQ8) float32 { return k.k.q4q8(&x[0], &y[0], len(x)) })
}

func BenchmarkDotQ8Q8(b *testing.B) {
	benchDot(b, func(k benchKernel, _ []BlockQ4, x, y []BlockQ8) float32 { return k.k.q8q8(&x[0], &y[0], len(x)) })
}

// benchDot times dot over rows of 1024 and 4096 weights with every kernel
// the CPU runs.
func benchDot(b *testing.B, dot func(k benchKernel, x4 []BlockQ4, x8, y []BlockQ8) float32) {
	for _, bk := range benchKernels() {
		for _, w := range []int{1024, 4096} {
			b.Run(fmt.Sprintf("%s/%d", bk.name, w), func(b *testing.B) {
				x4, x8, y := randQ4Q8(w/QK, 1)
				var s float32
				for b.Loop() {
					s += dot(bk, x4, x8, y)
				}
				sink = s
				reportOps(b, w)
			})
		}
	}
}

// BenchmarkQuantizeQ8 quantises one 4096-wide activation row per op.
func BenchmarkQuantizeQ8(b *testing.B) {
	x := make([]float32, 4096)
	for i := range x {
		x[i] = float32(i%251)/125 - 1
	}
	dst := make([]BlockQ8, len(x)/QK)
	b.SetBytes(int64(4 * len(x)))
	for b.Loop() {
		QuantizeQ8(dst, x)
	}
}

// BenchmarkGemvDRAM is one thread's gemv (one activation row against
// every 1024-wide weight row in turn) over 1 GiB of weights, far more than
// a last-level cache holds: the MB/s it reports is what the kernel pulls
// from DRAM, to compare with a load-only stream (likwid-bench -t load_avx)
// and with the same kernel in cache (BenchmarkDotQ4Q8/…/1024).
func BenchmarkGemvDRAM(b *testing.B) {
	const nb, size = 32, 1 << 30
	x := make([]BlockQ8, nb)
	for i := range x {
		x[i].D = F16(1)
		x[i].Qs[i%QK] = 1
	}
	b.Run("q4", func(b *testing.B) {
		w := make([]BlockQ4, size/18)
		for i := range w {
			w[i].D, w[i].Qs[i%16] = F16(1), byte(i)
		}
		rows := len(w) / nb
		b.SetBytes(int64(rows * nb * 18))
		for b.Loop() {
			for r := range rows {
				sink += DotQ4Q8(w[r*nb:(r+1)*nb], x)
			}
		}
	})
	b.Run("q8", func(b *testing.B) {
		w := make([]BlockQ8, size/34)
		for i := range w {
			w[i].D, w[i].Qs[i%QK] = F16(1), int8(i)
		}
		rows := len(w) / nb
		b.SetBytes(int64(rows * nb * 34))
		for b.Loop() {
			for r := range rows {
				sink += DotQ8Q8(w[r*nb:(r+1)*nb], x)
			}
		}
	})
}

// BenchmarkDotx4 dots four 4096-weight rows with one activation row, by
// the four-row kernel ("x4") and by four one-row calls ("x1"), with the
// best kernels this CPU runs.
func BenchmarkDotx4(b *testing.B) {
	const nb = 4096 / QK
	x4, x8, y := randQ4Q8(4*nb, 1)
	var out [4]float32
	var out2 [8]float32
	for _, tc := range []struct {
		name string
		run  func()
	}{
		{"q4/x4", func() { DotQ4Q8x4(x4, nb, y, &out) }},
		{"q4/x1", func() {
			for r := range 4 {
				out[r] = DotQ4Q8(x4[r*nb:(r+1)*nb], y)
			}
		}},
		{"q4/x4x2", func() { DotQ4Q8x4x2(x4, nb, y, y[nb:], (*[4]float32)(out2[0:4]), (*[4]float32)(out2[4:8])) }},
		{"q8/x4", func() { DotQ8Q8x4(x8, nb, y, &out) }},
		{"q8/x4x2", func() { DotQ8Q8x4x2(x8, nb, y, y[nb:], (*[4]float32)(out2[0:4]), (*[4]float32)(out2[4:8])) }},
		{"q8/x1", func() {
			for r := range 4 {
				out[r] = DotQ8Q8(x8[r*nb:(r+1)*nb], y)
			}
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				tc.run()
			}
			sink = out[0] + out2[0]
			ops := 4 * 4096
			if strings.HasSuffix(tc.name, "x2") {
				ops *= 2
			}
			reportOps(b, ops)
		})
	}
}

// BenchmarkTileWalkDRAM is one thread walking 512 MiB of weights, far more
// than a last-level cache holds, four rows at a time with the four-row
// kernels ("x4": one activation row, as a decode-like gemv; "x4x2": two),
// at row widths from 256 weights (synthetic-moe-calib's down projection)
// to 8192. The MB/s it reports is what the tile walk pulls from DRAM, to
// compare with a load-only stream (likwid-bench -t load_avx) and with the
// kernel in cache (BenchmarkDotx4): where the prefetch misses, the walk
// is slower than its compute and its loads added up.
func BenchmarkTileWalkDRAM(b *testing.B) {
	const size = 512 << 20
	for _, typ := range []string{"q4", "q8"} {
		for _, width := range []int{256, 1024, 2048, 8192} {
			nb := width / QK
			y := make([]BlockQ8, 2*nb)
			for i := range y {
				y[i].D, y[i].Qs[i%QK] = F16(1), 1
			}
			var w4 []BlockQ4
			var w8 []BlockQ8
			var rows, blockBytes int
			if typ == "q4" {
				blockBytes = 18
				rows = size / (nb * blockBytes) &^ 3
				w4 = make([]BlockQ4, rows*nb)
				for i := range w4 {
					w4[i].D, w4[i].Qs[i%16] = F16(1), byte(i)
				}
			} else {
				blockBytes = 34
				rows = size / (nb * blockBytes) &^ 3
				w8 = make([]BlockQ8, rows*nb)
				for i := range w8 {
					w8[i].D, w8[i].Qs[i%QK] = F16(1), int8(i)
				}
			}
			var out0, out1 [4]float32
			for _, tokens := range []int{1, 2} {
				name := fmt.Sprintf("%s/x4/%d", typ, width)
				if tokens == 2 {
					name = fmt.Sprintf("%s/x4x2/%d", typ, width)
				}
				b.Run(name, func(b *testing.B) {
					b.SetBytes(int64(rows * nb * blockBytes))
					for b.Loop() {
						for r := 0; r < rows; r += 4 {
							switch {
							case w4 != nil && tokens == 1:
								DotQ4Q8x4(w4[r*nb:], nb, y, &out0)
							case w4 != nil:
								DotQ4Q8x4x2(w4[r*nb:], nb, y, y[nb:], &out0, &out1)
							case tokens == 1:
								DotQ8Q8x4(w8[r*nb:], nb, y, &out0)
							default:
								DotQ8Q8x4x2(w8[r*nb:], nb, y, y[nb:], &out0, &out1)
							}
						}
					}
					sink += out0[0] + out1[0]
				})
			}
		}
	}
}
