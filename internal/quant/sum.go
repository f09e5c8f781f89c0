package quant

// SumWords adds up p (mod 2^64): a streaming read of len(p) words, for the
// bandwidth probes. With the SIMD kernels on amd64 it reads 512 bytes a
// step in eight AVX-512 accumulators (or 256 in eight AVX2 ones, which
// prefetch 2 KiB ahead), so that it pulls what the dot-product kernels
// can; else (the generic kernels, or another architecture) it is
// sumWordsGeneric. The
// sum is the same either way: addition mod 2^64 does not depend on order.
func SumWords(p []uint64) uint64 {
	if !haveSumAsm || active.Load() == generic {
		return sumWordsGeneric(p)
	}
	s, n := sumWordsAsm(p)
	return s + sumWordsGeneric(p[n:])
}

// sumWordsGeneric adds up p with eight independent accumulators over 16
// words per step, so the loop is bound by loads rather than by the latency
// of one add chain or by loop overhead.
func sumWordsGeneric(p []uint64) uint64 {
	var s0, s1, s2, s3, s4, s5, s6, s7 uint64
	n := len(p) &^ 15
	for i := 0; i < n; i += 16 {
		q := p[i : i+16 : i+16]
		s0 += q[0] + q[8]
		s1 += q[1] + q[9]
		s2 += q[2] + q[10]
		s3 += q[3] + q[11]
		s4 += q[4] + q[12]
		s5 += q[5] + q[13]
		s6 += q[6] + q[14]
		s7 += q[7] + q[15]
	}
	for _, v := range p[n:] {
		s0 += v
	}
	return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7
}
