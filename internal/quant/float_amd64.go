//go:build !purego

package quant

import "golang.org/x/sys/cpu"

//go:generate go run gen_tiles.go

// archFloatKernels lists the amd64 float implementations this CPU runs,
// best first: AVX-512 (F with VL, for the 16-float registers and the
// EVEX forms of the reductions' xmm and ymm instructions), then AVX2; both
// need FMA and F16C, as ggml's F16 macros do.
func archFloatKernels() []*floatKernels {
	x := &cpu.X86
	if !x.HasAVX2 || !x.HasFMA || !x.HasF16C {
		return nil
	}
	var ks []*floatKernels
	if x.HasAVX512F && x.HasAVX512VL {
		ks = append(ks, &floatKernels{name: "avx512", lanes: 16, tileCols: 6,
			dotF16: dotF16AVX512, dotF32: dotF32AVX512, tileF16: tilesF16AVX512, tileF32: tilesF32AVX512,
			scale: scaleAVX512, add: addAVX512, expSum: expSumAVX512, max: maxChain, silu: siluAVX512, cvtF16: cvtF16AVX512,
			madF16: madF16AVX512, scaleF16: scaleF16AVX512, flashRow: flashRowAVX512})
	}
	return append(ks, &floatKernels{name: "avx2", lanes: 8, tileCols: 3,
		dotF16: dotF16AVX2, dotF32: dotF32AVX2, tileF16: tilesF16AVX2, tileF32: tilesF32AVX2,
		scale: scaleAVX2, add: addAVX2, expSum: expSumAVX2, max: maxChain, silu: siluAVX2, cvtF16: cvtF16AVX2,
		madF16: madF16AVX2, scaleF16: scaleF16AVX2})
}

//go:noescape
func dotF16AVX512(x, y *uint16, n int) float32

//go:noescape
func dotF32AVX512(x, y *float32, n int) float32

//go:noescape
func scaleAVX512(y *float32, n int, s float32)

//go:noescape
func addAVX512(y, x *float32, n int)

//go:noescape
func expSumAVX512(y, x *float32, n int, max float32) float32

//go:noescape
func maxChain(x *float32, n int) float32

//go:noescape
func siluAVX512(y, x *float32, n int)

//go:noescape
func cvtF16AVX512(y *uint16, x *float32, n int)

//go:noescape
func dotF16AVX2(x, y *uint16, n int) float32

//go:noescape
func dotF32AVX2(x, y *float32, n int) float32

//go:noescape
func scaleAVX2(y *float32, n int, s float32)

//go:noescape
func addAVX2(y, x *float32, n int)

//go:noescape
func expSumAVX2(y, x *float32, n int, max float32) float32

//go:noescape
func siluAVX2(y, x *float32, n int)

//go:noescape
func cvtF16AVX2(y *uint16, x *float32, n int)

//go:noescape
func madF16AVX512(y, x *uint16, n int, s float32)

//go:noescape
func scaleF16AVX512(y *uint16, n int, s float32)

//go:noescape
func madF16AVX2(y, x *uint16, n int, s float32)

//go:noescape
func scaleF16AVX2(y *uint16, n int, s float32)

// flashRowAVX512 is one query row and head of flash attention (see
// float_avx512_amd64.s); d a multiple of 16.
//
//go:noescape
func flashRowAVX512(k, v, q, mask *uint16, nkv, d int, scale float32, vkq *uint16) float32
