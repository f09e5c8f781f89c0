package quant

import "math"

// The float functions run the active float implementation (FloatImpl) on
// the part of each row that is a multiple of its vector width, and the
// generic loop on the rest, as ggml's vector loops leave their leftovers to
// scalar code.

// body is n rounded down to a multiple of k's lanes.
func (k *floatKernels) body(n int) int { return n &^ (k.lanes - 1) }

// DotF16 is ggml_vec_dot_f16: the dot product of two float16 rows (y
// holds at least len(x)), each element widened to float32, the products
// added in float32.
func DotF16(x, y []uint16) float32 {
	y = y[:len(x)]
	k := activeFloat()
	n := k.body(len(x))
	var s float32
	if n > 0 {
		s = k.dotF16(&x[0], &y[0], n)
	}
	if n < len(x) {
		s += dotF16GenericP(&x[n], &y[n], len(x)-n)
	}
	return s
}

// DotF32 is ggml_vec_dot_f32: the float32 dot product of x and y (y
// holds at least len(x)).
func DotF32(x, y []float32) float32 {
	y = y[:len(x)]
	k := activeFloat()
	n := k.body(len(x))
	var s float32
	if n > 0 {
		s = k.dotF32(&x[0], &y[0], n)
	}
	if n < len(x) {
		s += dotF32Generic(x[n:], y[n:])
	}
	return s
}

// Scale multiplies y by s in place (ggml_vec_scale_f32).
func Scale(y []float32, s float32) {
	k := activeFloat()
	n := k.body(len(y))
	if n > 0 {
		k.scale(&y[0], n, s)
	}
	for i := n; i < len(y); i++ {
		y[i] *= s
	}
}

// Add adds x to y in place (ggml_vec_add_f32; x holds at least len(y)).
func Add(y, x []float32) {
	x = x[:len(y)]
	k := activeFloat()
	n := k.body(len(y))
	if n > 0 {
		k.add(&y[0], &x[0], n)
	}
	for i := n; i < len(y); i++ {
		y[i] += x[i]
	}
}

// ToF16 converts x to float16 into y (ggml's from_float for F16, which
// every f16 product runs on its float32 operand first; y holds at least
// len(x)).
func ToF16(y []uint16, x []float32) {
	y = y[:len(x)]
	k := activeFloat()
	n := k.body(len(x))
	if n > 0 {
		k.cvtF16(&y[0], &x[0], n)
	}
	if n < len(x) {
		genericFloat.cvtF16(&y[n], &x[n], len(x)-n)
	}
}

// SoftMax is ggml's soft_max_ext of one row, into y (len(x) long):
// softmax(x·scale + mask), mask nil for none. The steps are ggml's: copy,
// scale, add the mask, the maximum (ggml_vec_max_f32, a scalar loop),
// the exponentials and their sum (vectorised, ggml_vec_soft_max_f32),
// then a scale by one over the sum.
func SoftMax(y, x, mask []float32, scale float32) {
	y = y[:len(x)]
	copy(y, x)
	Scale(y, scale)
	if mask != nil {
		Add(y, mask)
	}
	k := activeFloat()
	n := k.body(len(y))
	m := float32(math.Inf(-1))
	if n > 0 {
		m = k.max(&y[0], n)
	}
	if n < len(y) {
		m = max(m, genericFloat.max(&y[n], len(y)-n))
	}
	var sum float64
	if n > 0 {
		sum = float64(k.expSum(&y[0], &y[0], n, m))
	}
	if n < len(y) {
		sum += float64(genericFloat.expSum(&y[n], &y[n], len(y)-n, m))
	}
	Scale(y, float32(1/sum))
}

// RMSNorm is ggml's rms_norm of one row into y: the mean of the squares
// summed in float64 one element at a time (ggml's loop, which compilers
// do not vectorise: a float64 sum carried from element to element), then
// a copy scaled by 1/sqrt(mean+eps).
func RMSNorm(y, x []float32, eps float32) {
	y = y[:len(x)]
	var sum float64
	for _, v := range x {
		sum += float64(v * v)
	}
	mean := float32(sum / float64(len(x)))
	copy(y, x)
	Scale(y, 1/float32(math.Sqrt(float64(mean+eps))))
}

// MatMulF16 is llamafile's tinyBLAS for an f16 product, one thread: c[j·ldc
// + i] = Σ_l a[i·lda + l]·b[j·ldb + l] for m rows of a and n columns of b
// (n ≥ 2: ggml runs one column as dot products), k elements each. It
// walks the output as tinyBLAS does: jobs of 4·BM rows by a block of
// about BN column tiles, each job 4-row by tileCols-column tiles (tiles
// at the end of a block one column narrower, as tinyBLAS balances them).
// Where tinyBLAS declines (k not a multiple of the vector width, m not of
// 4, one column) it runs ggml's fallback, a dot product per output.
func MatMulF16(m, n, k int, a []uint16, lda int, b []uint16, ldb int, c []float32, ldc int) {
	kern := activeFloat()
	if kern.lanes == 1 || k%kern.lanes != 0 || m%4 != 0 || n < 2 {
		for j := range n {
			for i := range m {
				c[j*ldc+i] = DotF16(a[i*lda:i*lda+k], b[j*ldb:j*ldb+k])
			}
		}
		return
	}
	_ = a[(m-1)*lda+k-1]
	_ = b[(n-1)*ldb+k-1]
	_ = c[(n-1)*ldc+m-1]
	tiles(kern, m, n, func(ii, jj, cols int) {
		kern.tileF16[cols](&a[ii*lda], lda, &b[jj*ldb], ldb, k, &c[jj*ldc+ii], ldc)
	})
}

// MatMulF32 is MatMulF16 for float32 operands.
func MatMulF32(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	kern := activeFloat()
	if kern.lanes == 1 || k%kern.lanes != 0 || m%4 != 0 || n < 2 {
		for j := range n {
			for i := range m {
				c[j*ldc+i] = DotF32(a[i*lda:i*lda+k], b[j*ldb:j*ldb+k])
			}
		}
		return
	}
	_ = a[(m-1)*lda+k-1]
	_ = b[(n-1)*ldb+k-1]
	_ = c[(n-1)*ldc+m-1]
	tiles(kern, m, n, func(ii, jj, cols int) {
		kern.tileF32[cols](&a[ii*lda], lda, &b[jj*ldb], ldb, k, &c[jj*ldc+ii], ldc)
	})
}

// tiles walks an m×n output (m a multiple of 4) in tinyBLAS's order for
// one thread: jobs of 4·BM rows by a block of about BN column tiles, and
// in each, 4-row tiles of size columns (tinyBLAS's RN, balanced: at most
// the kernel's tileCols), those at the end of a block one narrower.
// tile(ii, jj, cols) runs the tile of cols columns at (ii, jj).
func tiles(kern *floatKernels, m, n int, tile func(ii, jj, cols int)) {
	rn := kern.tileCols
	bn := 12 // tinyBLAS's BN with 32 vector registers
	if rn == 3 {
		bn = 24
	}
	nb := (n + rn - 1) / rn
	size := n / nb
	if n%nb != 0 {
		size++
	}
	bm := 1
	switch {
	case m%16 == 0:
		bm = 4
	case m%8 == 0:
		bm = 2
	}
	ytiles := m / (4 * bm)
	xtiles := (n + size - 1) / size
	jjRN := xtiles - (xtiles*size - n) // tiles of size columns; the rest size-1
	nbBN := 1
	if xtiles >= bn {
		nbBN = (xtiles + bn/2) / bn
	}
	sizeBN := xtiles / nbBN
	if xtiles%nbBN != 0 {
		sizeBN++
	}
	jjBN := nbBN - (nbBN*sizeBN - xtiles)
	pos := func(ib, ibN, bloc int) int {
		if ib < ibN {
			return ib * bloc
		}
		return ibN*bloc + (ib-ibN)*(bloc-1)
	}
	for job := range ytiles * nbBN {
		ii := (job % ytiles) * 4 * bm
		jb := job / ytiles
		jr0, jrN := pos(jb, jjBN, sizeBN), pos(jb+1, jjBN, sizeBN)
		jj0, jj2 := pos(jr0, jjRN, size), pos(jrN, jjRN, size)
		jj1 := min(jj2, jjRN*size)
		for bi := 0; bi < 4*bm; bi += 4 {
			jj := jj0
			for ; jj < jj1; jj += size {
				tile(ii+bi, jj, size)
			}
			for ; jj < jj2; jj += size - 1 {
				tile(ii+bi, jj, size-1)
			}
		}
	}
}
