//go:build !purego

package quant

import "golang.org/x/sys/cpu"

// archKernels lists the arm64 implementations this CPU runs, best first:
// with SDOT (the dot-product extension, FEAT_DotProd), then plain NEON,
// which every arm64 CPU has.
func archKernels() []*kernels {
	neon := &kernels{name: "neon", q4q8: dotQ4Q8NEON, q8q8: dotQ8Q8NEON}
	if cpu.ARM64.HasASIMDDP {
		return []*kernels{{name: "neon-dotprod", q4q8: dotQ4Q8SDOT, q8q8: dotQ8Q8SDOT,
			q4q8x4: dotQ4Q8x4SDOT, q8q8x4: dotQ8Q8x4SDOT}, neon}
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

// The four-row kernels dot rows x, x+stride, x+2·stride and x+3·stride (in
// bytes) with y, n ≥ 1 blocks each, into out, bit for bit as four calls of
// the one-row SDOT kernels.

//go:noescape
func dotQ4Q8x4SDOT(x *BlockQ4, stride int, y *BlockQ8, n int, out *[4]float32)

//go:noescape
func dotQ8Q8x4SDOT(x *BlockQ8, stride int, y *BlockQ8, n int, out *[4]float32)
