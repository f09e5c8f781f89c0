//go:build !purego

package quant

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestSumWordsLoops: each assembly loop the CPU runs equals the portable
// sum, whichever SumWords picks.
func TestSumWordsLoops(t *testing.T) {
	p := make([]uint64, 64*9)
	for i := range p {
		p[i] = uint64(i)*0x9e3779b97f4a7c15 + 1
	}
	if cpu.X86.HasAVX2 {
		if got, want := sumWordsAVX2(&p[0], len(p)/32), sumWordsGeneric(p); got != want {
			t.Errorf("AVX2: %#x, want %#x", got, want)
		}
	}
	if cpu.X86.HasAVX512F {
		if got, want := sumWordsAVX512(&p[0], len(p)/64), sumWordsGeneric(p); got != want {
			t.Errorf("AVX-512: %#x, want %#x", got, want)
		}
	}
}

// BenchmarkSumWordsLoops is each assembly loop reading 512 MiB on one
// thread, for the figures in sum_amd64.s.
func BenchmarkSumWordsLoops(b *testing.B) {
	p := make([]uint64, 64<<20)
	for i := range p {
		p[i] = uint64(i)
	}
	if cpu.X86.HasAVX2 {
		b.Run("avx2", func(b *testing.B) {
			b.SetBytes(int64(8 * len(p)))
			for b.Loop() {
				sinkWords += sumWordsAVX2(&p[0], len(p)/32)
			}
		})
	}
	if cpu.X86.HasAVX512F {
		b.Run("avx512", func(b *testing.B) {
			b.SetBytes(int64(8 * len(p)))
			for b.Loop() {
				sinkWords += sumWordsAVX512(&p[0], len(p)/64)
			}
		})
	}
}
