//go:build (!amd64 && !arm64) || purego

package quant

// archFloatKernels: no SIMD float kernels on this architecture (or with
// the purego build tag).
func archFloatKernels() []*floatKernels { return nil }
