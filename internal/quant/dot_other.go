//go:build (!amd64 && !arm64) || purego

package quant

// archKernels: no SIMD kernels on this architecture (or with the purego
// build tag).
func archKernels() []*kernels { return nil }
