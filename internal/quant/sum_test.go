package quant

import (
	"math/rand/v2"
	"testing"
)

// TestSumWords: the SIMD sum equals the portable one, exactly (mod 2^64),
// over lengths around the assembly's 32-word step and words that wrap,
// and with the generic kernels forced.
func TestSumWords(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	p := make([]uint64, 4099)
	for i := range p {
		p[i] = r.Uint64()
	}
	p[7] = ^uint64(0)
	for _, n := range []int{0, 1, 15, 16, 31, 32, 33, 63, 64, 65, 1000, 4096, 4099} {
		if got, want := SumWords(p[:n]), sumWordsGeneric(p[:n]); got != want {
			t.Errorf("%d words: %#x, want %#x", n, got, want)
		}
	}
	var want uint64
	for _, v := range p {
		want += v
	}
	if got := SumWords(p); got != want {
		t.Errorf("all: %#x, want the plain sum %#x", got, want)
	}
	SetGeneric(true)
	defer SetGeneric(false)
	if got := SumWords(p); got != want {
		t.Errorf("generic: %#x, want %#x", got, want)
	}
}

// BenchmarkSumWordsDRAM is one thread reading 512 MiB, far more than a
// last-level cache holds, with SumWords ("simd") and the portable loop
// ("generic"): compare the MB/s with likwid-bench -t load_avx512 and -t
// load on the same core.
func BenchmarkSumWordsDRAM(b *testing.B) {
	p := make([]uint64, 64<<20)
	for i := range p {
		p[i] = uint64(i)
	}
	for _, tc := range []struct {
		name string
		sum  func([]uint64) uint64
	}{{"simd", SumWords}, {"generic", sumWordsGeneric}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(8 * len(p)))
			var s uint64
			for b.Loop() {
				s += tc.sum(p)
			}
			sinkWords = s
		})
	}
}

var sinkWords uint64
