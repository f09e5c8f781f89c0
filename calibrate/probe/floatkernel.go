package probe

import "github.com/blsim/blsim/internal/quant"

// The float kernels' shapes: a prompt ubatch of 64 tokens against 512
// cached positions of one head of 64 (the random MoE's heads, and
// Qwen3's 128 halved), the products and the score rows in the L2 cache.
const (
	attnTokens = 64
	attnKV     = 512
	attnDim    = 64
	f32Rows    = 64
	f32Len     = 1024
	normLen    = 1024
	normRows   = 16
)

// floatData is one thread's operands for the float kernels.
type floatData struct {
	attn, gemv, flash *quant.Attention
	a, b, c           []float32
	x, y              []float32
}

func newFloatData() *floatData {
	d := &floatData{
		attn:  quant.NewAttention(attnTokens, attnKV, 1, 1, attnDim, false),
		gemv:  quant.NewAttention(1, attnKV, 1, 1, attnDim, false),
		flash: quant.NewAttention(attnTokens, attnKV, 1, 1, attnDim, true),
		a:     make([]float32, f32Rows*f32Len), b: make([]float32, f32Rows*f32Len), c: make([]float32, f32Rows*f32Rows),
		x: make([]float32, normRows*normLen), y: make([]float32, normRows*normLen),
	}
	for i := range d.a {
		d.a[i] = float32(i%17) / 17
		d.b[i] = float32(i%13) / 13
	}
	for i := range d.x {
		d.x[i] = float32(i%29)/29 - 0.5
	}
	d.attn.SoftMax() // probabilities for Values to multiply
	d.gemv.SoftMax()
	return d
}

// run calls kernel k reps times and returns the ops done (elements for
// KernelSoftmax).
func (d *floatData) run(k Kernel, reps int) float64 {
	switch k {
	case KernelF16Attn:
		for range reps {
			d.attn.Scores()
			d.attn.Values()
		}
		return float64(reps) * d.attn.Ops()
	case KernelF16Gemv:
		for range reps {
			d.gemv.Scores()
			d.gemv.Values()
		}
		return float64(reps) * d.gemv.Ops()
	case KernelSoftmax:
		for range reps {
			d.attn.SoftMax()
		}
		return float64(reps) * d.attn.Elems()
	case KernelFlashAttn:
		for range reps {
			d.flash.Run()
		}
		return float64(reps) * 4 * d.flash.Visible() * attnDim
	case KernelF32Tile:
		for range reps {
			quant.MatMulF32(f32Rows, f32Rows, f32Len, d.a, f32Len, d.b, f32Len, d.c, f32Rows)
		}
		return float64(reps) * 2 * f32Rows * f32Rows * f32Len
	case KernelNorm:
		for range reps {
			for r := range normRows {
				quant.RMSNorm(d.y[r*normLen:(r+1)*normLen], d.x[r*normLen:(r+1)*normLen], 1e-6)
			}
		}
		return float64(reps) * 8 * normRows * normLen
	}
	return 0
}
