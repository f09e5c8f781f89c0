//go:build !purego

package quant

import "golang.org/x/sys/cpu"

// archKernels lists the amd64 implementations this CPU runs, best first.
// All need AVX2, FMA and F16C (the scales are converted with VCVTPH2PS);
// the VNNI ones use VPDPBUSD, VEX-encoded (AVX-VNNI) or EVEX-encoded on
// ymm registers (AVX512-VNNI with AVX512VL).
func archKernels() []*kernels {
	x := &cpu.X86
	if !x.HasAVX2 || !x.HasFMA || !x.HasF16C {
		return nil
	}
	var ks []*kernels
	if x.HasAVXVNNI {
		ks = append(ks, &kernels{"avx-vnni", dotQ4Q8AVXVNNI, dotQ8Q8AVXVNNI})
	}
	if x.HasAVX512VNNI && x.HasAVX512VL {
		ks = append(ks, &kernels{"avx512-vnni", dotQ4Q8AVX512VNNI, dotQ8Q8AVX512VNNI})
	}
	return append(ks, &kernels{"avx2", dotQ4Q8AVX2, dotQ8Q8AVX2})
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
