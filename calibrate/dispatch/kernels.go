package dispatch

import "math"

// qk is the number of weights per quantised block (ggml's QK4_0, QK8_0).
const qk = 32

// blockQ4 is a Q4_0-like block: 32 weights in 18 bytes, a float16 scale and
// 16 bytes of nibbles offset by 8 (weight j in the low nibble of qs[j],
// weight j+16 in the high nibble).
type blockQ4 struct {
	d  uint16 // float16 bits of the scale
	qs [qk / 2]byte
}

// blockQ8 is a Q8_0-like block: 32 int8 values in 34 bytes with a float16
// scale. Activations use it for every quantised class; weights of the q8
// class use it too.
type blockQ8 struct {
	d  uint16
	qs [qk]int8
}

// f16 converts a float32 to float16 bits, rounding to nearest. Values are
// expected in float16's normal range (scales here are); others saturate to
// the smallest or largest normal.
func f16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	a := b & 0x7fffffff
	if a == 0 {
		return sign
	}
	a += 1 << 12 // round the 13 dropped mantissa bits to nearest
	e := int(a>>23) - 127 + 15
	switch {
	case e < 1:
		return sign | 1<<10
	case e > 30:
		return sign | 30<<10 | 0x3ff
	}
	return sign | uint16(e)<<10 | uint16(a>>13)&0x3ff
}

// f32 converts float16 bits made by f16 (zero or normal) to float32 without
// a table: rebias the exponent and widen the mantissa.
func f32(h uint16) float32 {
	if h&0x7fff == 0 {
		return math.Float32frombits(uint32(h) << 16)
	}
	return math.Float32frombits(uint32(h&0x8000)<<16 | (uint32(h>>10&0x1f)+112)<<23 | uint32(h&0x3ff)<<13)
}

// dotQ4Q8 is the Q4_0×Q8_0 dot product of len(x) blocks: an integer
// multiply-accumulate per block and one float multiply-add per block.
func dotQ4Q8(x []blockQ4, y []blockQ8) float32 {
	y = y[:len(x)]
	var sum float32
	for i := range x {
		xq, yq := &x[i].qs, &y[i].qs
		var s0, s1, s2, s3 int32
		for j := 0; j < 16; j += 4 {
			a, b, c, d := int32(xq[j]), int32(xq[j+1]), int32(xq[j+2]), int32(xq[j+3])
			s0 += (a&0xF-8)*int32(yq[j]) + (b&0xF-8)*int32(yq[j+1])
			s1 += (c&0xF-8)*int32(yq[j+2]) + (d&0xF-8)*int32(yq[j+3])
			s2 += (a>>4-8)*int32(yq[j+16]) + (b>>4-8)*int32(yq[j+17])
			s3 += (c>>4-8)*int32(yq[j+18]) + (d>>4-8)*int32(yq[j+19])
		}
		sum += float32(s0+s1+s2+s3) * (f32(x[i].d) * f32(y[i].d))
	}
	return sum
}

// dotQ8Q8 is the Q8_0×Q8_0 dot product of len(x) blocks.
func dotQ8Q8(x, y []blockQ8) float32 {
	y = y[:len(x)]
	var sum float32
	for i := range x {
		xq, yq := &x[i].qs, &y[i].qs
		var s0, s1, s2, s3 int32
		for j := 0; j < qk; j += 4 {
			s0 += int32(xq[j]) * int32(yq[j])
			s1 += int32(xq[j+1]) * int32(yq[j+1])
			s2 += int32(xq[j+2]) * int32(yq[j+2])
			s3 += int32(xq[j+3]) * int32(yq[j+3])
		}
		sum += float32(s0+s1+s2+s3) * (f32(x[i].d) * f32(y[i].d))
	}
	return sum
}

// dotF32 is a float32 dot product with four accumulators.
func dotF32(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	for len(x) >= 4 {
		a, b := x[:4:4], y[:4:4]
		s0 += a[0] * b[0]
		s1 += a[1] * b[1]
		s2 += a[2] * b[2]
		s3 += a[3] * b[3]
		x, y = x[4:], y[4:]
	}
	for i := range x {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// quantizeQ8 quantises x (len a multiple of 32) into Q8_0-like blocks, as
// ggml quantises activations: scale max|x|/127, round to nearest.
func quantizeQ8(dst []blockQ8, x []float32) {
	for i := range dst {
		v := x[i*qk : (i+1)*qk]
		amax := float32(0)
		for _, f := range v {
			amax = max(amax, float32(math.Abs(float64(f))))
		}
		d := amax / 127
		dst[i].d = f16(d)
		inv := float32(0)
		if d != 0 {
			inv = 1 / f32(dst[i].d)
		}
		for j, f := range v {
			q := math.Round(float64(f * inv))
			dst[i].qs[j] = int8(max(-127, min(127, q)))
		}
	}
}

// rng is a xorshift64* generator: cheap, deterministic, seedable.
type rng uint64

func newRNG(seed uint64) rng {
	s := seed*0x9E3779B97F4A7C15 + 0x2545F4914F6CDD1D
	s ^= s >> 31
	if s == 0 {
		s = 1
	}
	return rng(s)
}

func (r *rng) next() uint64 {
	x := uint64(*r)
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	*r = rng(x)
	return x * 0x2545F4914F6CDD1D
}

// float returns a value in [-1, 1).
func (r *rng) float() float32 { return float32(int64(r.next()>>40)-(1<<23)) / (1 << 23) }

// mix hashes several words into a seed.
func mix(ws ...uint64) uint64 {
	h := uint64(0xCBF29CE484222325)
	for _, w := range ws {
		h ^= w
		h *= 0x100000001B3
		h ^= h >> 29
	}
	return h
}
