//go:build !purego

package quant

import "golang.org/x/sys/cpu"

// archKernels lists the amd64 implementations this CPU runs, best first:
// AVX512-VNNI before AVX-VNNI, for its four-row, two-token kernels.
// All need AVX2, FMA and F16C (the scales are converted with VCVTPH2PS);
// the VNNI ones use VPDPBUSD, VEX-encoded (AVX-VNNI) or EVEX-encoded on
// ymm registers (AVX512-VNNI with AVX512VL).
func archKernels() []*kernels {
	x := &cpu.X86
	if !x.HasAVX2 || !x.HasFMA || !x.HasF16C {
		return nil
	}
	var ks []*kernels
	if x.HasAVX512VNNI && x.HasAVX512VL {
		ks = append(ks, &kernels{name: "avx512-vnni", q4q8: dotQ4Q8AVX512VNNI, q8q8: dotQ8Q8AVX512VNNI,
			q4q8x4: dotQ4Q8x4AVX512VNNI, q8q8x4: dotQ8Q8x4AVX512VNNI,
			q4q8x4x2: dotQ4Q8x4x2AVX512VNNI, q8q8x4x2: dotQ8Q8x4x2AVX512VNNI})
	}
	if x.HasAVXVNNI {
		ks = append(ks, &kernels{name: "avx-vnni", q4q8: dotQ4Q8AVXVNNI, q8q8: dotQ8Q8AVXVNNI,
			q4q8x4: dotQ4Q8x4AVXVNNI, q8q8x4: dotQ8Q8x4AVXVNNI})
	}
	return append(ks, &kernels{name: "avx2", q4q8: dotQ4Q8AVX2, q8q8: dotQ8Q8AVX2})
}

// The kernels in assembly take n ≥ 1 blocks.

//go:noescape
func dotQ4Q8AVX2(x *BlockQ4, y *BlockQ8, n int) float32

//go:noescape
func dotQ8Q8AVX2(x, y *BlockQ8, n int) float32

//go:noescape
func dotQ4Q8AVXVNNI(x *BlockQ4, y *BlockQ8, n int) float32

//go:noescape
func dotQ8Q8AVXVNNI(x, y *BlockQ8, n int) float32

//go:noescape
func dotQ4Q8AVX512VNNI(x *BlockQ4, y *BlockQ8, n int) float32

//go:noescape
func dotQ8Q8AVX512VNNI(x, y *BlockQ8, n int) float32

// The four-row kernels take four rows of n ≥ 1 blocks, stride bytes apart.

//go:noescape
func dotQ4Q8x4AVXVNNI(x *BlockQ4, stride int, y *BlockQ8, n int, out *[4]float32)

//go:noescape
func dotQ8Q8x4AVXVNNI(x *BlockQ8, stride int, y *BlockQ8, n int, out *[4]float32)

//go:noescape
func dotQ4Q8x4AVX512VNNI(x *BlockQ4, stride int, y *BlockQ8, n int, out *[4]float32)

//go:noescape
func dotQ8Q8x4AVX512VNNI(x *BlockQ8, stride int, y *BlockQ8, n int, out *[4]float32)

// The four-row, two-token kernels (AVX512-VNNI only: they need registers
// 16-31) take two activation rows of n ≥ 1 blocks.

//go:noescape
func dotQ4Q8x4x2AVX512VNNI(x *BlockQ4, stride int, y0, y1 *BlockQ8, n int, out0, out1 *[4]float32)

//go:noescape
func dotQ8Q8x4x2AVX512VNNI(x *BlockQ8, stride int, y0, y1 *BlockQ8, n int, out0, out1 *[4]float32)
