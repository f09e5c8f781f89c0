package quant

import (
	"fmt"
	"math"
	"testing"
)

// lengths are the block counts the kernels are tested with.
var lengths = []int{0, 1, 2, 3, 7, 8, 9, 31, 32, 33, 100}

// weight is weight j of a Q4_0 block, unpacked.
func weight(x *BlockQ4, j int) int64 {
	if j < 16 {
		return int64(x.Qs[j]&0xF) - 8
	}
	return int64(x.Qs[j-16]>>4) - 8
}

// refQ4 and refQ8 are the integer parts of one block, written
// independently of the kernels: the weights unpacked one by one.
func refQ4(x *BlockQ4, y *BlockQ8) int64 {
	var s int64
	for j := range QK {
		s += weight(x, j) * int64(y.Qs[j])
	}
	return s
}

func refQ8(x, y *BlockQ8) int64 {
	var s int64
	for j := range QK {
		s += int64(x.Qs[j]) * int64(y.Qs[j])
	}
	return s
}

// fill patterns for the quantised values of a block.
type pattern struct {
	name string
	q4   func(g testRNG, j int) byte // a byte of BlockQ4.Qs (two nibbles)
	q8   func(g testRNG, j int) int8
}

var patterns = []pattern{
	{"random", func(g testRNG, _ int) byte { return byte(g.next()) }, func(g testRNG, _ int) int8 { return int8(g.next()) }},
	{"min", func(testRNG, int) byte { return 0x00 }, func(testRNG, int) int8 { return -128 }},
	{"max", func(testRNG, int) byte { return 0xff }, func(testRNG, int) int8 { return 127 }},
	{"-127", func(testRNG, int) byte { return 0x0f }, func(testRNG, int) int8 { return -127 }},
	{"alternate", func(_ testRNG, j int) byte { return byte(0xf0 >> (4 * (j & 1))) }, func(_ testRNG, j int) int8 { return int8(127 - 255*(j&1)) }},
	{"extremes", func(g testRNG, _ int) byte { return byte(g.next()&0x11) * 0xf }, func(g testRNG, _ int) int8 { return []int8{-128, -127, 127, 0}[g.next()%4] }},
}

// scale kinds: the float16 scale of block i.
var scales = []struct {
	name string
	d    func(g testRNG, i int) uint16
}{
	{"one", func(testRNG, int) uint16 { return F16(1) }},
	{"pow2", func(g testRNG, _ int) uint16 { return F16(float32(math.Ldexp(1, -int(g.next()%12)))) }},
	{"random", func(g testRNG, _ int) uint16 { return F16(g.float() / 16) }},
	{"zero", func(g testRNG, i int) uint16 {
		if i%3 == 1 {
			return F16(g.float())
		}
		return 0
	}},
}

type dotCase struct {
	name   string
	x4     []BlockQ4
	x8, y  []BlockQ8
	exact4 bool // every partial sum of the q4 products is an exact float32
	exact8 bool
}

// dotCases combines every length, pair of patterns (x, y) and scale kind.
func dotCases() []dotCase {
	var cs []dotCase
	seed := uint64(1)
	for _, n := range lengths {
		for _, px := range patterns {
			for _, py := range patterns {
				for _, sk := range scales {
					seed++
					g := newRNG(seed)
					c := dotCase{
						name: fmt.Sprintf("n=%d/x=%s/y=%s/d=%s", n, px.name, py.name, sk.name),
						x4:   make([]BlockQ4, n),
						x8:   make([]BlockQ8, n),
						y:    make([]BlockQ8, n),
					}
					for i := range n {
						c.x4[i].D, c.x8[i].D, c.y[i].D = sk.d(g, i), sk.d(g, i), sk.d(g, i)
						for j := range c.x4[i].Qs {
							c.x4[i].Qs[j] = px.q4(g, j)
						}
						for j := range QK {
							c.x8[i].Qs[j] = px.q8(g, j)
							c.y[i].Qs[j] = py.q8(g, j)
						}
					}
					// With scales 1, products and partial sums are integers,
					// exact in float32 below 2^24 whatever the order of the
					// additions.
					if sk.name == "one" {
						c.exact4 = absSum4(c.x4, c.y) < 1<<24
						c.exact8 = absSum8(c.x8, c.y) < 1<<24
					}
					cs = append(cs, c)
				}
			}
		}
	}
	return cs
}

// absSum4 is Σ|x·y| over all products, with scale 1.
func absSum4(x []BlockQ4, y []BlockQ8) float64 {
	var s float64
	for i := range x {
		for j := range QK {
			s += math.Abs(float64(weight(&x[i], j) * int64(y[i].Qs[j])))
		}
	}
	return s
}

func absSum8(x, y []BlockQ8) float64 {
	var s float64
	for i := range x {
		for j := range QK {
			s += math.Abs(float64(x[i].Qs[j]) * float64(y[i].Qs[j]))
		}
	}
	return s
}

// want returns the exact dot product (in float64, from the float32 scales)
// and the bound on the rounding error of a float32 evaluation in any order
// with any grouping of the block into at most 32 partial sums.
func want(n int, d func(i int) float64, s func(i int) int64, abs func(i int) float64) (float64, float64) {
	var sum, bound float64
	for i := range n {
		sum += d(i) * float64(s(i))
		bound += math.Abs(d(i)) * abs(i)
	}
	return sum, bound * float64(n+40) * 0x1p-24
}

func TestKernels(t *testing.T) {
	cases := dotCases()
	for _, k := range available {
		t.Run(k.name, func(t *testing.T) {
			for _, c := range cases {
				n := len(c.y)
				d4 := func(i int) float64 { return float64(F32(c.x4[i].D) * F32(c.y[i].D)) }
				d8 := func(i int) float64 { return float64(F32(c.x8[i].D) * F32(c.y[i].D)) }
				s4 := func(i int) int64 { return refQ4(&c.x4[i], &c.y[i]) }
				s8 := func(i int) int64 { return refQ8(&c.x8[i], &c.y[i]) }
				a4 := func(i int) float64 { return absSum4(c.x4[i:i+1], c.y[i:i+1]) }
				a8 := func(i int) float64 { return absSum8(c.x8[i:i+1], c.y[i:i+1]) }
				w4, tol4 := want(n, d4, s4, a4)
				w8, tol8 := want(n, d8, s8, a8)
				if c.exact4 {
					tol4 = 0
				}
				if c.exact8 {
					tol8 = 0
				}
				got4, got8 := float32(0), float32(0)
				if n > 0 {
					got4, got8 = k.q4q8(&c.x4[0], &c.y[0], n), k.q8q8(&c.x8[0], &c.y[0], n)
				}
				if math.Abs(float64(got4)-w4) > tol4 {
					t.Errorf("%s: q4×q8 %g, want %g ± %g", c.name, got4, w4, tol4)
				}
				if math.Abs(float64(got8)-w8) > tol8 {
					t.Errorf("%s: q8×q8 %g, want %g ± %g", c.name, got8, w8, tol8)
				}
			}
		})
	}
}

// TestBlockSums checks the integer part of every kernel exactly: one block
// at a time with both scales 1, the result is the block's int32 sum (at
// most 2^19 in magnitude, exact in float32), which must equal the generic
// kernel's and the reference's.
func TestBlockSums(t *testing.T) {
	cases := dotCases()
	for _, k := range available {
		t.Run(k.name, func(t *testing.T) {
			for _, c := range cases {
				for i := range c.y {
					x4, x8, y := c.x4[i], c.x8[i], c.y[i]
					x4.D, x8.D, y.D = F16(1), F16(1), F16(1)
					if got, gen, ref := k.q4q8(&x4, &y, 1), blockQ4Q8(&x4, &y), refQ4(&x4, &y); int64(got) != ref || int64(gen) != ref {
						t.Fatalf("%s block %d: q4×q8 %v, generic %d, want %d", c.name, i, got, gen, ref)
					}
					if got, gen, ref := k.q8q8(&x8, &y, 1), blockQ8Q8(&x8, &y), refQ8(&x8, &y); int64(got) != ref || int64(gen) != ref {
						t.Fatalf("%s block %d: q8×q8 %v, generic %d, want %d", c.name, i, got, gen, ref)
					}
				}
			}
		})
	}
}

// TestMatchesGeneric compares each implementation with the generic kernels
// through the exported functions, on the rows the dispatcher computes
// (random weights, quantised activations).
func TestMatchesGeneric(t *testing.T) {
	defer active.Store(active.Load())
	for _, n := range lengths {
		x4, x8, _ := randQ4Q8(n, uint64(100+n))
		g := newRNG(uint64(n))
		f := make([]float32, n*QK)
		for i := range f {
			f[i] = g.float() * 4
		}
		y := make([]BlockQ8, n)
		QuantizeQ8(y, f)
		SetGeneric(true)
		r4, r8 := DotQ4Q8(x4, y), DotQ8Q8(x8, y)
		if g4, g8 := dotQ4Q8Generic(x4, y), dotQ8Q8Generic(x8, y); g4 != r4 || g8 != r8 {
			t.Fatalf("n=%d: SetGeneric(true) gives %g, %g; generic %g, %g", n, r4, r8, g4, g8)
		}
		for _, k := range available {
			var k4, k8 float32
			if n > 0 {
				k4, k8 = k.q4q8(&x4[0], &y[0], n), k.q8q8(&x8[0], &y[0], n)
			}
			tol := 1e-5 * (1 + math.Abs(float64(r4)) + math.Sqrt(float64(n)))
			if math.Abs(float64(k4-r4)) > tol || math.Abs(float64(k8-r8)) > tol {
				t.Errorf("n=%d %s: %g, %g; generic %g, %g", n, k.name, k4, k8, r4, r8)
			}
		}
	}
}
