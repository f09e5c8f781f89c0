package quant

import (
	"os"
	"sync/atomic"
	"unsafe"
)

// kernels is one implementation of the quantised dot products. Its
// functions take n ≥ 1 blocks from x and y.
type kernels struct {
	name string
	q4q8 func(x *BlockQ4, y *BlockQ8, n int) float32
	q8q8 func(x, y *BlockQ8, n int) float32
	// q4q8x4 and q8q8x4, when set, dot four rows of x (stride bytes
	// apart) with y at once, bit-identical to four calls of the one-row
	// kernel; nil means four such calls.
	q4q8x4 func(x *BlockQ4, stride int, y *BlockQ8, n int, out *[4]float32)
	q8q8x4 func(x *BlockQ8, stride int, y *BlockQ8, n int, out *[4]float32)
	// q4q8x4x2 and q8q8x4x2, when set, do the same for two activation
	// rows at once: out0 for y0, out1 for y1.
	q4q8x4x2 func(x *BlockQ4, stride int, y0, y1 *BlockQ8, n int, out0, out1 *[4]float32)
	q8q8x4x2 func(x *BlockQ8, stride int, y0, y1 *BlockQ8, n int, out0, out1 *[4]float32)
}

// generic is the portable implementation, always available.
var generic = &kernels{
	name: "generic",
	q4q8: func(x *BlockQ4, y *BlockQ8, n int) float32 {
		return dotQ4Q8Generic(unsafe.Slice(x, n), unsafe.Slice(y, n))
	},
	q8q8: func(x, y *BlockQ8, n int) float32 {
		return dotQ8Q8Generic(unsafe.Slice(x, n), unsafe.Slice(y, n))
	},
}

// Sizes of the blocks in memory, which the assembly kernels walk.
const (
	sizeQ4 = int(unsafe.Sizeof(BlockQ4{}))
	sizeQ8 = int(unsafe.Sizeof(BlockQ8{}))
)

// available lists the implementations this CPU runs, best first; generic
// is last.
var available = append(archKernels(), generic)

// chosen is the implementation chosen at init: the one the environment
// variable BLSIM_KERNELS names, else the best.
var chosen = choose(os.Getenv("BLSIM_KERNELS"))

// active is the implementation DotQ4Q8 and DotQ8Q8 run.
var active atomic.Pointer[kernels]

func init() { active.Store(chosen) }

// choose returns the implementation named name if this CPU runs it, else
// the best one.
func choose(name string) *kernels {
	for _, k := range available {
		if k.name == name {
			return k
		}
	}
	return available[0]
}

// DotQ4Q8 is the Q4_0×Q8_0 dot product of len(x) blocks (y holds at least
// as many): per block an integer multiply-accumulate of the 32 weights and
// one float multiply-add with the product of the two scales.
func DotQ4Q8(x []BlockQ4, y []BlockQ8) float32 {
	y = y[:len(x)]
	if len(x) == 0 {
		return 0
	}
	return active.Load().q4q8(&x[0], &y[0], len(x))
}

// DotQ8Q8 is the Q8_0×Q8_0 dot product of len(x) blocks (y holds at least
// as many).
func DotQ8Q8(x, y []BlockQ8) float32 {
	y = y[:len(x)]
	if len(x) == 0 {
		return 0
	}
	return active.Load().q8q8(&x[0], &y[0], len(x))
}

// DotQ4Q8x4 dots four consecutive rows of x, nb blocks each (x holds at
// least 4·nb), with y: out[r] is DotQ4Q8(x[r·nb:(r+1)·nb], y), bit for
// bit. Where the CPU has a four-row kernel (amd64 with VNNI, arm64 with
// SDOT), y's blocks and scales (and on amd64 its offset sums) are loaded
// and computed once for the four rows.
func DotQ4Q8x4(x []BlockQ4, nb int, y []BlockQ8, out *[4]float32) {
	x, y = x[:4*nb], y[:nb]
	k := active.Load()
	if nb == 0 || k.q4q8x4 == nil {
		for r := range out {
			out[r] = DotQ4Q8(x[r*nb:(r+1)*nb], y)
		}
		return
	}
	k.q4q8x4(&x[0], nb*sizeQ4, &y[0], nb, out)
}

// DotQ4Q8x4x2 is DotQ4Q8x4 of the same four rows with two activation rows,
// into out0 with y0 and out1 with y1, bit for bit. Where the CPU has a
// four-row, two-token kernel (amd64 with AVX512-VNNI), each weight block is
// loaded and unpacked once for the two.
func DotQ4Q8x4x2(x []BlockQ4, nb int, y0, y1 []BlockQ8, out0, out1 *[4]float32) {
	x, y0, y1 = x[:4*nb], y0[:nb], y1[:nb]
	k := active.Load()
	if nb == 0 || k.q4q8x4x2 == nil {
		DotQ4Q8x4(x, nb, y0, out0)
		DotQ4Q8x4(x, nb, y1, out1)
		return
	}
	k.q4q8x4x2(&x[0], nb*sizeQ4, &y0[0], &y1[0], nb, out0, out1)
}

// DotQ8Q8x4x2 is DotQ4Q8x4x2 for Q8_0 weights.
func DotQ8Q8x4x2(x []BlockQ8, nb int, y0, y1 []BlockQ8, out0, out1 *[4]float32) {
	x, y0, y1 = x[:4*nb], y0[:nb], y1[:nb]
	k := active.Load()
	if nb == 0 || k.q8q8x4x2 == nil {
		DotQ8Q8x4(x, nb, y0, out0)
		DotQ8Q8x4(x, nb, y1, out1)
		return
	}
	k.q8q8x4x2(&x[0], nb*sizeQ8, &y0[0], &y1[0], nb, out0, out1)
}

// DotQ8Q8x4 is DotQ4Q8x4 for Q8_0 weights.
func DotQ8Q8x4(x []BlockQ8, nb int, y []BlockQ8, out *[4]float32) {
	x, y = x[:4*nb], y[:nb]
	k := active.Load()
	if nb == 0 || k.q8q8x4 == nil {
		for r := range out {
			out[r] = DotQ8Q8(x[r*nb:(r+1)*nb], y)
		}
		return
	}
	k.q8q8x4(&x[0], nb*sizeQ8, &y[0], nb, out)
}

// Impl names the implementation DotQ4Q8 and DotQ8Q8 run: "generic" (the
// portable Go kernels), or on amd64 "avx2", "avx-vnni" or "avx512-vnni",
// on arm64 "neon" or "neon-dotprod".
func Impl() string { return active.Load().name }
