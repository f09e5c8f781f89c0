//go:build !purego

package quant

import "golang.org/x/sys/cpu"

var (
	haveSumAsm = cpu.X86.HasAVX2
	// sumWide: AVX-512 loads, a 512-byte step (see sum_amd64.s for what
	// each loop reads).
	sumWide = cpu.X86.HasAVX512F
)

// sumWordsAsm adds up p's whole steps (sumStepWords each) and returns
// the words it added.
func sumWordsAsm(p []uint64) (sum uint64, words int) {
	step := 32
	if sumWide {
		step = 64
	}
	n := len(p) / step
	if n == 0 {
		return 0, 0
	}
	if sumWide {
		return sumWordsAVX512(&p[0], n), n * step
	}
	return sumWordsAVX2(&p[0], n), n * step
}

// sumWordsAVX2 adds up n ≥ 1 steps of 32 words from p.
//
//go:noescape
func sumWordsAVX2(p *uint64, n int) uint64

// sumWordsAVX512 adds up n ≥ 1 steps of 64 words from p.
//
//go:noescape
func sumWordsAVX512(p *uint64, n int) uint64
