package probe

import (
	"math"
	"testing"

	"github.com/blsim/blsim/internal/quant"
)

// refDotQ4Q8 is the plain definition of the Q4_0×Q8_0 dot product.
func refDotQ4Q8(x []quant.BlockQ4, y []quant.BlockQ8) float64 {
	var sum float64
	for i := range x {
		var s int
		for j := 0; j < 32; j++ {
			var q int
			if j < 16 {
				q = int(x[i].Qs[j]&0xF) - 8
			} else {
				q = int(x[i].Qs[j-16]>>4) - 8
			}
			s += q * int(y[i].Qs[j])
		}
		sum += float64(s) * float64(quant.F32(x[i].D)) * float64(quant.F32(y[i].D))
	}
	return sum
}

func TestKernelsAgainstReference(t *testing.T) {
	d := newKernelData(7)
	if got, want := float64(quant.DotQ4Q8(d.q4, d.q8)), refDotQ4Q8(d.q4, d.q8); math.Abs(got-want) > 1e-3*math.Max(1, math.Abs(want)) {
		t.Errorf("dotQ4Q8 = %g, want %g", got, want)
	}
	var want float64
	for i := range d.f {
		want += float64(d.f[i]) * float64(d.g[i])
	}
	if got := float64(quant.DotF32(d.f, d.g)); math.Abs(got-want) > 1e-3 {
		t.Errorf("dotF32 = %g, want %g", got, want)
	}
	for _, n := range []int{0, 1, 7, 8, 9, 63} {
		p := make([]uint64, n)
		var want uint64
		for i := range p {
			p[i] = uint64(i*i + 3)
			want += p[i]
		}
		if got := sum64(p); got != want {
			t.Errorf("sum64 of %d words = %d, want %d", n, got, want)
		}
	}
	names := map[string]bool{}
	for k := KernelQ4Q8; k < kernelCount; k++ {
		names[k.String()] = true
	}
	if len(names) != int(kernelCount) || Kernel(99).String() != "Kernel(99)" {
		t.Error("Kernel names")
	}
}

// TestTileKernelsCount: a 4×2 tile does twice the ops of a 4×1 gemv over
// the same weights, the same as the one-row kernel over all its blocks
// once per token, and its results are the one-row dot products.
func TestTileKernelsCount(t *testing.T) {
	d := newKernelData(3)
	gemv, tile := d.run(KernelQ8Q8Gemv, 1), d.run(KernelQ8Q8Tile, 1)
	if tile != 2*gemv || d.run(KernelQ4Q8Tile, 1) != tile || gemv != d.run(KernelQ4Q8, 1) {
		t.Errorf("ops: gemv %g, q8 tile %g, q4 tile %g, one row %g", gemv, tile, d.run(KernelQ4Q8Tile, 1), d.run(KernelQ4Q8, 1))
	}
	var o0, o1 [4]float32
	quant.DotQ8Q8x4x2(d.w8, tileRowBlocks, d.q8, d.y8, &o0, &o1)
	for r := range 4 {
		row := d.w8[r*tileRowBlocks : (r+1)*tileRowBlocks]
		if o0[r] != quant.DotQ8Q8(row, d.q8[:tileRowBlocks]) || o1[r] != quant.DotQ8Q8(row, d.y8[:tileRowBlocks]) {
			t.Errorf("row %d: tile %g %g, one-row %g %g", r, o0[r], o1[r], quant.DotQ8Q8(row, d.q8[:tileRowBlocks]), quant.DotQ8Q8(row, d.y8[:tileRowBlocks]))
		}
	}
}

func BenchmarkDotQ4Q8(b *testing.B) {
	d := newKernelData(1)
	b.SetBytes(int64(len(d.q4)) * 20)
	b.ResetTimer()
	var ops float64
	for b.Loop() {
		ops += d.run(KernelQ4Q8, 1)
	}
	b.ReportMetric(ops/b.Elapsed().Seconds()/1e9, "GOPS")
}

func BenchmarkDotF32(b *testing.B) {
	d := newKernelData(1)
	b.SetBytes(int64(len(d.f)) * 8)
	b.ResetTimer()
	var ops float64
	for b.Loop() {
		ops += d.run(KernelF32, 1)
	}
	b.ReportMetric(ops/b.Elapsed().Seconds()/1e9, "GOPS")
}

func BenchmarkSum64InCache(b *testing.B) {
	p := newStream(4 << 10) // 32 KiB
	b.SetBytes(int64(len(p)) * 8)
	var s uint64
	for b.Loop() {
		s += sum64(p)
	}
	sink.Add(s)
}
