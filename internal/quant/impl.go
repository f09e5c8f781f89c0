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

// Impl names the implementation DotQ4Q8 and DotQ8Q8 run: "generic" (the
// portable Go kernels), or on amd64 "avx2", "avx-vnni" or "avx512-vnni",
// on arm64 "neon" or "neon-dotprod".
func Impl() string { return active.Load().name }

// SetGeneric makes DotQ4Q8 and DotQ8Q8 run the portable Go kernels (on)
// or again the implementation chosen at init (off). It is safe to call at
// any time; a kernel call already running finishes with the implementation
// it started with.
func SetGeneric(on bool) {
	k := chosen
	if on {
		k = generic
	}
	active.Store(k)
}
