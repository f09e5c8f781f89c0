//go:build !purego

package quant

import "golang.org/x/sys/cpu"

// archKernels lists the arm64 implementations this CPU runs, best first:
// with SDOT (the dot-product extension, FEAT_DotProd), then plain NEON,
// which every arm64 CPU has.
func archKernels() []*kernels {
	neon := &kernels{"neon", dotQ4Q8NEON, dotQ8Q8NEON}
	if cpu.ARM64.HasASIMDDP {
		return []*kernels{{"neon-dotprod", dotQ4Q8SDOT, dotQ8Q8SDOT}, neon}
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
