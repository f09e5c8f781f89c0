package quant

// dotQ4Q8Generic is the portable Q4_0×Q8_0 kernel: the reference the SIMD
// kernels are tested against and the fallback where there are none. Per
// block, an int32 sum of the 32 products (x-8)·y, then one float
// multiply-add with the product of the two scales.
func dotQ4Q8Generic(x []BlockQ4, y []BlockQ8) float32 {
	y = y[:len(x)]
	var sum float32
	for i := range x {
		sum += float32(blockQ4Q8(&x[i], &y[i])) * (F32(x[i].D) * F32(y[i].D))
	}
	return sum
}

// dotQ8Q8Generic is the portable Q8_0×Q8_0 kernel.
func dotQ8Q8Generic(x, y []BlockQ8) float32 {
	y = y[:len(x)]
	var sum float32
	for i := range x {
		sum += float32(blockQ8Q8(&x[i], &y[i])) * (F32(x[i].D) * F32(y[i].D))
	}
	return sum
}

// blockQ4Q8 is the integer part of one Q4_0×Q8_0 block: Σ (x_j-8)·y_j.
func blockQ4Q8(x *BlockQ4, y *BlockQ8) int32 {
	xq, yq := &x.Qs, &y.Qs
	var s0, s1, s2, s3 int32
	for j := 0; j < 16; j += 4 {
		a, b, c, d := int32(xq[j]), int32(xq[j+1]), int32(xq[j+2]), int32(xq[j+3])
		s0 += (a&0xF-8)*int32(yq[j]) + (b&0xF-8)*int32(yq[j+1])
		s1 += (c&0xF-8)*int32(yq[j+2]) + (d&0xF-8)*int32(yq[j+3])
		s2 += (a>>4-8)*int32(yq[j+16]) + (b>>4-8)*int32(yq[j+17])
		s3 += (c>>4-8)*int32(yq[j+18]) + (d>>4-8)*int32(yq[j+19])
	}
	return s0 + s1 + s2 + s3
}

// blockQ8Q8 is the integer part of one Q8_0×Q8_0 block: Σ x_j·y_j.
func blockQ8Q8(x, y *BlockQ8) int32 {
	xq, yq := &x.Qs, &y.Qs
	var s0, s1, s2, s3 int32
	for j := 0; j < QK; j += 4 {
		s0 += int32(xq[j]) * int32(yq[j])
		s1 += int32(xq[j+1]) * int32(yq[j+1])
		s2 += int32(xq[j+2]) * int32(yq[j+2])
		s3 += int32(xq[j+3]) * int32(yq[j+3])
	}
	return s0 + s1 + s2 + s3
}
