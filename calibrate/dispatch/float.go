package dispatch

import (
	"github.com/blsim/blsim/internal/quant"
)

// floatWork is one worker's in-cache operands for the ops without weights,
// which run the kernels the calibration's microbenchmarks time
// (calibrate/probe), so that their rates are the ones the fit is given:
// attention's f16 products (tiles for a prompt ubatch, dot products for
// one token), its softmax, flash attention, and the norms. Work is done in
// whole units of the microbenchmark's shape; what an op leaves short of a
// unit is carried to the next op (debt), so that a run does the work of
// its ops to within a unit.
type floatWork struct {
	attn, gemv, flash       *quant.Attention
	x, y                    []float32
	products, gemvs, flashs float64 // the ops owed, by kind
	softmax, norm           float64 // the elements owed
}

// Units of work: a prompt's products (64 tokens against 512 positions of
// one head of 64), one token's, a norm row.
const normRow = 1024

func newFloatWork() *floatWork {
	f := &floatWork{
		attn:  quant.NewAttention(64, 512, 1, 1, 64, false),
		gemv:  quant.NewAttention(1, 512, 1, 1, 64, false),
		flash: quant.NewAttention(64, 512, 1, 1, 64, true),
		x:     make([]float32, normRow), y: make([]float32, normRow),
	}
	for i := range f.x {
		f.x[i] = float32(i%29)/29 - 0.5
	}
	f.attn.SoftMax()
	f.gemv.SoftMax()
	return f
}

// attention does this worker's share (1/nw) of an AttentionScores op, as
// model.Engine.AttentionWork divides it for an engine that runs llama.cpp's
// attention: the products over every cached position and the softmax, or
// flash attention's walk of the visible positions.
func (f *floatWork) attention(tokens int, ops, kvOps, elems float64, nw int) {
	share := 1 / float64(nw)
	switch {
	case kvOps == 0 && elems == 0:
		f.flashs += ops * share
		unit := 4 * f.flash.Visible() * float64(f.flash.D)
		for ; f.flashs >= unit; f.flashs -= unit {
			f.flash.Run()
		}
		return
	case tokens <= 1:
		f.gemvs += kvOps * share
		for unit := f.gemv.Ops(); f.gemvs >= unit; f.gemvs -= unit {
			f.gemv.Scores()
			f.gemv.Values()
		}
	default:
		f.products += kvOps * share
		for unit := f.attn.Ops(); f.products >= unit; f.products -= unit {
			f.attn.Scores()
			f.attn.Values()
		}
	}
	f.softmax += elems * share
	for unit := f.attn.Elems(); f.softmax >= unit; f.softmax -= unit {
		f.attn.SoftMax()
	}
}

// scalar does this worker's share of a Scalar op's ops, 8 an element of
// a norm (the model's count for a norm, and the microbenchmark's).
func (f *floatWork) scalar(ops float64, nw int) {
	f.norm += ops / 8 / float64(nw)
	for ; f.norm >= normRow; f.norm -= normRow {
		quant.RMSNorm(f.y, f.x, 1e-6)
	}
}
