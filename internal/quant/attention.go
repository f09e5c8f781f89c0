package quant

import (
	"math"
	"runtime"
)

// Attention is llama.cpp's attention of N tokens against NKV positions of
// an f16 KV cache (the last N of them the tokens' own, causally masked),
// Heads query heads sharing KVHeads key and value heads, D wide, as its
// CPU backend runs it (llm_build_kqv at llama.cpp c392e50), for the
// attention microbenchmark and the built-in dispatcher. Without flash
// attention:
//
//   - Q is converted to f16 (the products' vec_dot_type), one row a token
//     and head, by ggml-base's row conversion (ToF16Row);
//   - KQ = K·Q a head at a time: tinyBLAS's f16 tiles (MatMulF16) for two
//     tokens or more, an f16 dot product per position for one;
//   - soft_max_ext of each row of NKV, the causal mask added;
//   - the probabilities converted to f16 (ToF16Row), and V·KQ with V
//     stored transposed (D rows of NKV), tiles or dot products again;
//   - the heads' outputs copied into one row a token (ggml_cont).
//
// With flash attention (ggml_compute_forward_flash_attn_ext_f16), each
// token and head walks the positions the mask leaves: an f16 dot product
// with K's row, e^(s-M) by the scalar exponential, and V's row (not
// transposed) added into an f16 accumulator.
type Attention struct {
	N, NKV, Heads, KVHeads, D int
	FlashAttn                 bool
	Q                         []float32 // [N][Heads][D]
	K                         []uint16  // [KVHeads][NKV][D]
	V                         []uint16  // [KVHeads][D][NKV], or [KVHeads][NKV][D] with FlashAttn
	Mask                      []float32 // [N][NKV]: 0 where a token sees a position, -inf where not
	Out                       []float32 // [N][Heads][D]

	q16          []uint16  // [Heads][N][D]
	kq           []float32 // [Heads][N][NKV]
	kq16         []uint16
	kqv          []float32 // [Heads][N][D]
	mask16       []uint16  // [N][NKV], flash attention's f16 mask
	vkq16, q16fa []uint16
	vkq32        []float32
}

// NewAttention returns an Attention with random operands and a causal
// mask: token j sits at position NKV-N+j and sees the positions up to it.
func NewAttention(n, nkv, heads, kvHeads, d int, flash bool) *Attention {
	a := &Attention{N: n, NKV: nkv, Heads: heads, KVHeads: kvHeads, D: d, FlashAttn: flash,
		Q: make([]float32, n*heads*d), K: make([]uint16, kvHeads*nkv*d), V: make([]uint16, kvHeads*nkv*d),
		Mask: make([]float32, n*nkv), Out: make([]float32, n*heads*d)}
	r := uint64(0x9e3779b97f4a7c15)
	next := func() float32 {
		r ^= r << 13
		r ^= r >> 7
		r ^= r << 17
		return float32(int64(r>>40)%20001-10000) / 10000
	}
	for i := range a.Q {
		a.Q[i] = next()
	}
	for i := range a.K {
		a.K[i], a.V[i] = F32ToF16(next()), F32ToF16(next())
	}
	start := nkv - n
	for j := range n {
		for c := range nkv {
			if c > start+j {
				a.Mask[j*nkv+c] = float32(math.Inf(-1))
			}
		}
	}
	if flash {
		a.mask16 = make([]uint16, len(a.Mask))
		ToF16Row(a.mask16, a.Mask)
		a.vkq16, a.q16fa, a.vkq32 = make([]uint16, d), make([]uint16, d), make([]float32, d)
		return a
	}
	a.q16 = make([]uint16, heads*n*d)
	a.kq = make([]float32, heads*n*nkv)
	a.kq16 = make([]uint16, len(a.kq))
	a.kqv = make([]float32, heads*n*d)
	return a
}

// Ops is the arithmetic of the two products over every position, as
// llama.cpp's attention without flash attention does it (the masked
// positions too): 4·N·NKV·Heads·D.
func (a *Attention) Ops() float64 {
	return 4 * float64(a.N) * float64(a.NKV) * float64(a.Heads) * float64(a.D)
}

// Visible is how many token-position pairs the mask leaves, per head:
// the positions flash attention walks.
func (a *Attention) Visible() float64 {
	start := a.NKV - a.N
	return float64(a.N)*float64(start) + float64(a.N)*float64(a.N+1)/2
}

// Run computes the attention into Out.
func (a *Attention) Run() {
	if a.FlashAttn {
		a.flash()
		return
	}
	a.Scores()
	a.SoftMax()
	a.Values()
}

// Scores is the first product without flash attention: Q converted to
// f16, then K·Q a head at a time, into the scores.
func (a *Attention) Scores() {
	n, nkv, d, g := a.N, a.NKV, a.D, a.Heads/a.KVHeads
	for h := range a.Heads {
		for j := range n {
			ToF16Row(a.q16[(h*n+j)*d:(h*n+j+1)*d], a.Q[(j*a.Heads+h)*d:(j*a.Heads+h+1)*d])
		}
	}
	for h := range a.Heads {
		k := a.K[(h/g)*nkv*d : (h/g+1)*nkv*d]
		q := a.q16[h*n*d : (h+1)*n*d]
		kq := a.kq[h*n*nkv : (h+1)*n*nkv]
		if n == 1 {
			for c := range nkv {
				kq[c] = DotF16(k[c*d:(c+1)*d], q)
			}
		} else {
			MatMulF16(nkv, n, d, k, d, q, d, kq, nkv)
		}
	}
}

// SoftMax is the softmax of every score row, the mask added, and the
// probabilities' conversion to f16 for the second product.
func (a *Attention) SoftMax() {
	n, nkv := a.N, a.NKV
	scale := float32(1 / math.Sqrt(float64(a.D)))
	for h := range a.Heads {
		kq := a.kq[h*n*nkv : (h+1)*n*nkv]
		for j := range n {
			row := kq[j*nkv : (j+1)*nkv]
			SoftMax(row, row, a.Mask[j*nkv:(j+1)*nkv], scale)
		}
	}
	ToF16Row(a.kq16, a.kq)
}

// Values is the second product without flash attention, V (stored
// transposed) times the probabilities, and the heads' outputs copied
// into one row a token.
func (a *Attention) Values() {
	n, nkv, d, g := a.N, a.NKV, a.D, a.Heads/a.KVHeads
	for h := range a.Heads {
		v := a.V[(h/g)*nkv*d : (h/g+1)*nkv*d]
		p := a.kq16[h*n*nkv : (h+1)*n*nkv]
		out := a.kqv[h*n*d : (h+1)*n*d]
		if n == 1 {
			for i := range d {
				out[i] = DotF16(v[i*nkv:(i+1)*nkv], p)
			}
		} else {
			MatMulF16(d, n, nkv, v, nkv, p, nkv, out, d)
		}
	}
	for h := range a.Heads {
		for j := range n {
			copy(a.Out[(j*a.Heads+h)*d:(j*a.Heads+h+1)*d], a.kqv[(h*n+j)*d:(h*n+j+1)*d])
		}
	}
}

// Elems is the softmax's elements: one a token, position and head.
func (a *Attention) Elems() float64 {
	return float64(a.N) * float64(a.NKV) * float64(a.Heads)
}

// flash is the flash-attention path.
func (a *Attention) flash() {
	n, nkv, d, g := a.N, a.NKV, a.D, a.Heads/a.KVHeads
	scale := float32(1 / math.Sqrt(float64(d)))
	kern := activeFloat()
	body := kern.body(d)
	for j := range n {
		mask := a.mask16[j*nkv : (j+1)*nkv]
		for h := range a.Heads {
			k := a.K[(h/g)*nkv*d : (h/g+1)*nkv*d]
			v := a.V[(h/g)*nkv*d : (h/g+1)*nkv*d]
			clear(a.vkq16)
			ToF16Row(a.q16fa, a.Q[(j*a.Heads+h)*d:(j*a.Heads+h+1)*d])
			var s float32
			if kern.flashRow != nil && body == d && d > 0 {
				s = kern.flashRow(&k[0], &v[0], &a.q16fa[0], &mask[0], nkv, d, scale, &a.vkq16[0])
			} else {
				s = flashRow(kern, body, k, v, a.q16fa, mask, d, scale, a.vkq16)
			}
			out := a.Out[(j*a.Heads+h)*d : (j*a.Heads+h+1)*d]
			for i, x := range a.vkq16 {
				out[i] = F16ToF32(x) / s
			}
		}
	}
}

// flashRow is one query row and head of flash attention in Go (for rows
// that are not a multiple of the vector width, or a CPU without the fused
// kernel): the loop of ggml_compute_forward_flash_attn_ext_f16 over the
// positions, into vkq; it returns the sum of the weights.
func flashRow(kern *floatKernels, body int, k, v, q, mask []uint16, d int, scale float32, vkq []uint16) float32 {
	var s, m float32 = 0, float32(math.Inf(-1))
	for c := range mask {
		if mask[c] == negInfF16 {
			continue // a masked position: ggml skips it
		}
		kc := k[c*d : (c+1)*d]
		var x float32
		if body == d {
			x = kern.dotF16(&kc[0], &q[0], d)
		} else {
			x = DotF16(kc, q)
		}
		x = x*scale + F16ToF32(mask[c])
		ms, vs := float32(1), float32(1)
		if x > m {
			old := m
			m = x
			ms = expf(old - m)
			madOrScale(kern, body, vkq, nil, ms)
		} else {
			vs = expf(x - m)
		}
		madOrScale(kern, body, vkq, v[c*d:(c+1)*d], vs)
		s = s*ms + vs
	}
	return s
}

// madOrScale is ggml_vec_mad_f16 (x not nil: y += x·s) or
// ggml_vec_scale_f16 (y *= s) over y, the vector kernel on its first body
// elements.
func madOrScale(k *floatKernels, body int, y, x []uint16, s float32) {
	if x == nil {
		if body > 0 {
			k.scaleF16(&y[0], body, s)
		}
		if body < len(y) {
			genericFloat.scaleF16(&y[body], len(y)-body, s)
		}
		return
	}
	if body > 0 {
		k.madF16(&y[0], &x[0], body, s)
	}
	if body < len(y) {
		genericFloat.madF16(&y[body], &x[body], len(y)-body, s)
	}
}

// ToF16Row converts a row of float32 to float16 as ggml-base's
// ggml_fp32_to_fp16_row does in the build it runs with: on amd64 a scalar
// loop (ggml-base is compiled without F16C, even where ggml-cpu has it:
// every f16 product's conversion of its float32 operand, and flash
// attention's of Q, runs there), elsewhere a conversion as fast as
// ToF16's (on arm64 the compiler turns ggml's scalar conversion into
// one FCVT an element).
func ToF16Row(y []uint16, x []float32) {
	if runtime.GOARCH != "amd64" {
		ToF16(y, x)
		return
	}
	y = y[:len(x)]
	for i, v := range x {
		// F32ToF16, written out: the compiler does not inline it.
		w := math.Float32bits(v)
		base := math.Float32frombits(w&0x7fffffff) * 0x1.0p+112
		base *= 0x1.0p-110
		bias := max(w<<1&0xff000000, 0x71000000)
		bits := math.Float32bits(math.Float32frombits(bias>>1+0x07800000) + base)
		if w<<1 > 0xff000000 {
			bits = 0x7c00<<13 | 0x200
		}
		y[i] = uint16(w>>16&0x8000 | bits>>13&0x7c00 + bits&0x0fff)
	}
}

// negInfF16 is float16's -inf, a masked position's mask value.
const negInfF16 = 0xfc00

// expf is e^x in float32, as the C library's expf that ggml's flash
// attention calls once a position (and softmax on a row's leftovers): the exponential of EXP in
// float_avx512_amd64.s, one element (within 2e-7 relative, 0 below
// -87.34, +inf above 88.72).
func expf(x float32) float32 {
	switch {
	case x < -87.33654:
		return 0 // -inf included: the first position's rescale
	case x > 88.72283:
		return float32(math.Inf(1))
	case x != x:
		return x
	}
	const magic = 12582912 // 1.5·2²³: adding it rounds to an integer
	n := (x*1.442695 + magic) - magic
	r := (x - n*0.693145751953125) - n*1.4286068e-06
	// The Taylor polynomial to r^6/6! in Estrin's order: its terms in
	// parallel, not one long chain of multiply-adds.
	r2 := r * r
	a := 1 + r
	b := 0.5 + r*(1.0/6)
	c := (1.0/24 + r*(1.0/120)) + r2*(1.0/720)
	p := (a + r2*b) + (r2*r2)*c
	if n > 127 {
		return p * 2 * math.Float32frombits(uint32(int32(n)-1+127)<<23)
	}
	return math.Float32frombits(math.Float32bits(p) + uint32(int32(n))<<23)
}
