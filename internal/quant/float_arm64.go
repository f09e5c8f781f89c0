//go:build !purego

package quant

// archFloatKernels lists the arm64 float implementations (none yet).
func archFloatKernels() []*floatKernels { return nil }
