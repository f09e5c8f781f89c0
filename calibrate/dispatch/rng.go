package dispatch

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
