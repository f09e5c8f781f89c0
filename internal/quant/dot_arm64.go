//go:build !purego

package quant

import "golang.org/x/sys/cpu"

// archKernels lists the arm64 implementations this CPU runs, best first:
// with SDOT (the dot-product extension, FEAT_DotProd), then plain NEON,
// which every arm64 CPU has.
func archKernels() []*kernels {
	neon := &kernels{name: "neon", q4q8: dotQ4Q8NEON, q8q8: dotQ8Q8NEON}
	if cpu.ARM64.HasASIMDDP {
		return []*kernels{{name: "neon-dotprod", q4q8: dotQ4Q8SDOT, q8q8: dotQ8Q8SDOT}, neon}
	}
	return []*kernels{neon}
}

// The kernels in assembly take n ≥ 1 blocks.

//go:noescape
func dotQ4Q8NEON(x *BlockQ4, y *BlockQ8, n int) float32

//go:noescape
func dotQ8Q8NEON(x, y *BlockQ8, n int) float32

//go:noescape
func dotQ4Q8SDOT(x *BlockQ4, y *BlockQ8, n int) float32

//go:noescape
func dotQ8Q8SDOT(x, y *BlockQ8, n int) float32
