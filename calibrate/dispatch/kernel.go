package dispatch

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/internal/quant"
	"github.com/blsim/blsim/model"
)

// The hot loop follows ggml's CPU backend (ggml-cpu.c, MUL_MAT and
// MUL_MAT_ID at llama.cpp c392e50):
//
//   - An op is one fork-join of its engine's pool. Its threads first
//     quantise the op's input rows to Q8 blocks (each thread a share of each
//     row's blocks), meet at a spinning barrier, then compute.
//   - The output (rows × tokens; for MUL_MAT_ID, per expert, rows × the
//     expert's routed tokens) is cut into chunks of 16×16 (64 when either
//     side is 1). When there are fewer than 4 chunks per thread it is cut
//     into one chunk per thread instead, along the longer side. Threads
//     claim chunks from a shared counter: their own index first, then the
//     counter's next value. ggml on arm64 skips the chunking of MUL_MAT_ID
//     (one static slice per thread); so does this package on arm64.
//   - Inside a chunk, tiles of 16 tokens × 16 rows: each tile's 16 weight
//     rows are dotted with each of its tokens before the next rows, so the
//     rows are read from memory once per tile and from L1 after. Rows go
//     four at a time and tokens two at a time through the four-row kernels
//     (quant.DotQ4Q8x4x2), which load each token's activation block once
//     for the four rows and, with AVX512-VNNI, each weight block once for
//     the two tokens.
//
// Nothing in the loop allocates: the functions the pools run are built
// once per Run, and each op's state is in the runner.

// tile is the side of ggml's blocks inside a chunk (blck_0, blck_1).
const tile = 16

// staticExperts is ggml's disable_chunking for MUL_MAT_ID: on arm64 each
// thread takes one static slice of each expert's rows.
var staticExperts = runtime.GOARCH == "arm64"

// counter is a chunk counter on a cache line of its own.
type counter struct {
	v atomic.Int32
	_ [60]byte
}

// barrier is a spinning barrier for the n threads of one pool, as
// ggml_barrier: the last to arrive releases the others.
type barrier struct {
	n     int32
	count atomic.Int32
	gen   atomic.Uint32
}

func (b *barrier) wait() {
	if b.n <= 1 {
		return
	}
	g := b.gen.Load()
	if b.count.Add(1) == b.n {
		b.count.Store(0)
		b.gen.Add(1)
		return
	}
	for b.gen.Load() == g {
	}
}

// chunks is how an nr0×nr1 output (rows × tokens) is cut for nth threads.
type chunks struct {
	n0, n1   int // chunks along rows and tokens
	d0, d1   int // chunk size along rows and tokens
	nr0, nr1 int
}

func chunking(nr0, nr1, nth int, static bool) chunks {
	size := 16
	if nr0 == 1 || nr1 == 1 {
		size = 64
	}
	n0, n1 := (nr0+size-1)/size, (nr1+size-1)/size
	if n0*n1 < 4*nth || static {
		if nr0 > nr1 {
			n0, n1 = nth, 1
		} else {
			n0, n1 = 1, nth
		}
	}
	return chunks{n0: n0, n1: n1, d0: (nr0 + n0 - 1) / n0, d1: (nr1 + n1 - 1) / n1, nr0: nr0, nr1: nr1}
}

func (c chunks) total() int { return c.n0 * c.n1 }

// bounds is chunk i's rows [r0, r1) and tokens [t0, t1); either may be empty.
func (c chunks) bounds(i int) (r0, r1, t0, t1 int) {
	a, b := i%c.n0, i/c.n0
	r0 = min(a*c.d0, c.nr0)
	t0 = min(b*c.d1, c.nr1)
	return r0, min(r0+c.d0, c.nr0), t0, min(t0+c.d1, c.nr1)
}

// claim runs do for worker w's chunks: its own index, then whatever the
// counter (set to nth before the op) hands out.
func claim(c chunks, w, nth int, ctr *counter, do func(chunk int)) {
	n := c.total()
	for i := w; i < n; {
		do(i)
		if nth >= n {
			return
		}
		i = int(ctr.v.Add(1)) - 1
	}
}

// dot is weight row row of t (over all experts) dotted with row i of x.
func dot(t *tensor, row int, x *acts, i int) float32 {
	switch t.kind {
	case kindQ4:
		return quant.DotQ4Q8(t.q4[row*t.nb:(row+1)*t.nb], x.q[i*x.qs:i*x.qs+t.nb])
	case kindQ8:
		return quant.DotQ8Q8(t.q8[row*t.nb:(row+1)*t.nb], x.q[i*x.qs:i*x.qs+t.nb])
	}
	return quant.DotF32(t.f[row*t.in:(row+1)*t.in], x.f[i*x.fs:i*x.fs+t.in])
}

// dot4 is weight rows row..row+3 of t dotted with row i of x, into out: the
// four-row kernels where the CPU has them (bit-identical to dot).
func dot4(t *tensor, row int, x *acts, i int, out *[4]float32) {
	switch t.kind {
	case kindQ4:
		quant.DotQ4Q8x4(t.q4[row*t.nb:(row+4)*t.nb], t.nb, x.q[i*x.qs:i*x.qs+t.nb], out)
		return
	case kindQ8:
		quant.DotQ8Q8x4(t.q8[row*t.nb:(row+4)*t.nb], t.nb, x.q[i*x.qs:i*x.qs+t.nb], out)
		return
	}
	for r := range out {
		out[r] = dot(t, row+r, x, i)
	}
}

// dot4x2 is dot4 with two activation rows: out0 with row i0 of x0, out1
// with row i1 of x1 (the two-token kernels where the CPU has them,
// bit-identical to dot).
func dot4x2(t *tensor, row int, x0 *acts, i0 int, x1 *acts, i1 int, out0, out1 *[4]float32) {
	switch t.kind {
	case kindQ4:
		quant.DotQ4Q8x4x2(t.q4[row*t.nb:(row+4)*t.nb], t.nb, x0.q[i0*x0.qs:i0*x0.qs+t.nb], x1.q[i1*x1.qs:i1*x1.qs+t.nb], out0, out1)
		return
	case kindQ8:
		quant.DotQ8Q8x4x2(t.q8[row*t.nb:(row+4)*t.nb], t.nb, x0.q[i0*x0.qs:i0*x0.qs+t.nb], x1.q[i1*x1.qs:i1*x1.qs+t.nb], out0, out1)
		return
	}
	dot4(t, row, x0, i0, out0)
	dot4(t, row, x1, i1, out1)
}

// dotRows2 is dotRows for two activation rows: o0[r] with row i0 of x0,
// o1[r] with row i1 of x1.
func dotRows2(t *tensor, base, r0, r1 int, x0 *acts, i0 int, o0 []float32, x1 *acts, i1 int, o1 []float32) {
	r := r0
	for ; r+4 <= r1; r += 4 {
		dot4x2(t, base+r, x0, i0, x1, i1, (*[4]float32)(o0[r:r+4]), (*[4]float32)(o1[r:r+4]))
	}
	for ; r < r1; r++ {
		o0[r] = dot(t, base+r, x0, i0)
		o1[r] = dot(t, base+r, x1, i1)
	}
}

// dotRows writes o[r] = weight row base+r of t dotted with row i of x, for
// r in [r0, r1): four rows at a time, then one.
func dotRows(t *tensor, base, r0, r1 int, x *acts, i int, o []float32) {
	r := r0
	for ; r+4 <= r1; r += 4 {
		dot4(t, base+r, x, i, (*[4]float32)(o[r:r+4]))
	}
	for ; r < r1; r++ {
		o[r] = dot(t, base+r, x, i)
	}
}

// quantRows quantises worker w's share (of nw) of the blocks of each row
// [lo, hi) of src's floats into the same rows of dst, for a tensor t of
// a quantised kind; float kinds read src directly.
func quantRows(t *tensor, src, dst *acts, lo, hi, w, nw int) {
	if t.kind == kindF32 {
		return
	}
	b0, b1 := span(t.nb, w, nw)
	for i := lo; i < hi; i++ {
		f := src.f[i*src.fs:]
		quant.QuantizeQ8(dst.q[i*dst.qs+b0:i*dst.qs+b1], f[b0*quant.QK:b1*quant.QK])
	}
}

// matmulWorker is worker w's part of the current dense matmul on the main
// engine: quantise, barrier, then its chunks.
func (r *runner) matmulWorker(w int) {
	e := r.eng[0]
	s := r.cur
	n, nw := s.op.Tokens, e.pool.Size()
	quantRows(s.t, &r.act, &r.act, 0, n, w, nw)
	if w == 0 {
		e.mm.v.Store(int32(nw))
	}
	e.bar.wait()
	mulmat(s.t, &r.act, r.out, n, w, nw, &e.mm)
}

// mulmat is worker w's (of nw) chunks of t times the n rows of x (already
// quantised), into out (token-major, t.rows per token); ctr must be nw.
func mulmat(t *tensor, x *acts, out []float32, n, w, nw int, ctr *counter) {
	c := chunking(t.rows, n, nw, false)
	claim(c, w, nw, ctr, func(i int) {
		tiles(c, i, func(rr, re, tok int) { dotRows(t, 0, rr, re, x, tok, out[tok*t.rows:]) },
			func(rr, re, a, b int) { dotRows2(t, 0, rr, re, x, a, out[a*t.rows:], x, b, out[b*t.rows:]) })
	})
}

// tiles walks chunk i of c in 16×16 tiles: for each tile, its tokens two
// at a time (two), the last one alone (one), each with its rows [rr, re).
func tiles(c chunks, i int, one func(rr, re, x int), two func(rr, re, x0, x1 int)) {
	r0, r1, t0, t1 := c.bounds(i)
	for tt := t0; tt < t1; tt += tile {
		te := min(tt+tile, t1)
		for rr := r0; rr < r1; rr += tile {
			re := min(rr+tile, r1)
			x := tt
			for ; x+1 < te; x += 2 {
				two(rr, re, x, x+1)
			}
			if x < te {
				one(rr, re, x)
			}
		}
	}
}

// expertWorker is worker w of engine ei's part of the current expert op.
// Native and token-split plans dot the shared activations and write each
// (token, choice) slot's output in place; an expert split first gathers
// (and quantises) its tokens' activations into the engine's own buffer,
// computes into a contiguous output, and scatters it back.
func (r *runner) expertWorker(ei, w int) {
	e := r.eng[ei]
	part := &r.cur.parts[ei]
	t, K, nw := r.cur.t, r.topK, e.pool.Size()
	gathered := r.cur.gather
	if gathered {
		lo, hi := span(part.pairs, w, nw)
		for j := lo; j < hi; j++ {
			tok := int(part.tokens[j])
			if t.kind == kindF32 {
				copy(e.g.f[j*e.g.fs:j*e.g.fs+t.in], r.act.f[tok*r.act.fs:tok*r.act.fs+t.in])
				continue
			}
			quant.QuantizeQ8(e.g.q[j*e.g.qs:j*e.g.qs+t.nb], r.act.f[tok*r.act.fs:tok*r.act.fs+t.in])
		}
	} else {
		quantRows(t, &r.act, &r.act, part.tok0, part.tok1, w, nw)
	}
	for i := w; i < len(part.work); i += nw {
		e.ctr[i].v.Store(int32(nw))
	}
	e.bar.wait()
	for k := range part.work {
		ew := &part.work[k]
		base := ew.expert * t.rows
		c := chunking(t.rows, len(ew.slots), nw, staticExperts)
		claim(c, w, nw, &e.ctr[k], func(i int) {
			// Where token x's activations are, and its output.
			at := func(x int) (*acts, int, []float32) {
				if gathered {
					xi := ew.base + x
					return &e.g, xi, e.gout[xi*t.rows:]
				}
				slot := int(ew.slots[x])
				return &r.act, slot / K, r.out[slot*t.rows:]
			}
			tiles(c, i, func(rr, re, x int) {
				src, xi, o := at(x)
				dotRows(t, base, rr, re, src, xi, o)
			}, func(rr, re, a, b int) {
				sa, ia, oa := at(a)
				sb, ib, ob := at(b)
				dotRows2(t, base, rr, re, sa, ia, oa, sb, ib, ob)
			})
		})
	}
	if !gathered {
		return
	}
	e.bar.wait()
	lo, hi := span(part.pairs, w, nw)
	for j := lo; j < hi; j++ {
		slot := int(part.slots[j])
		copy(r.out[slot*t.rows:(slot+1)*t.rows], e.gout[j*t.rows:(j+1)*t.rows])
	}
}

// scalarWorker does worker w's share of an op without weights: an
// AttentionScores op's attention, or a Scalar op's norms (floatWork).
func (r *runner) scalarWorker(w int) {
	nw := r.eng[0].pool.Size()
	op := &r.cur.op
	f := r.float[w]
	if op.Kind == model.AttentionScores {
		f.attention(op.Tokens, op.Ops, op.KVOps, op.Elems, nw)
		return
	}
	f.scalar(op.Ops, nw)
}

// bind builds, once per Run, the functions the pools run.
func (r *runner) bind() {
	r.fnMatmul = r.matmulWorker
	r.fnScalar = r.scalarWorker
	r.fnExperts[0] = func(w int) { r.expertWorker(0, w) }
	r.fnExperts[1] = func(w int) { r.expertWorker(1, w) }
	r.fnDrive = func(p *probe.Pool) {
		p.Run(r.fnExperts[1])
		r.busyB = time.Since(r.t0)
	}
}

// exec runs one op.
func (r *runner) exec(s *step) {
	r.cur = s
	a := r.eng[0].pool
	switch s.op.Kind {
	case model.Matmul:
		r.wakes[0]++
		a.Run(r.fnMatmul)
	case model.ExpertMatmul:
		// Only an engine with a whole unit of the op is woken: an empty
		// partition's pool stays asleep (or spinning) and does not meet at
		// the op's barrier, as the simulator has it.
		second := r.drv != nil && !s.parts[1].empty()
		r.t0 = time.Now()
		if second {
			r.wakes[1]++
			r.drv.Start(r.fnDrive)
		}
		if !s.parts[0].empty() {
			r.wakes[0]++
			a.Run(r.fnExperts[0])
			r.busy[0] += time.Since(r.t0)
		}
		if second {
			r.drv.Wait()
			r.busy[1] += r.busyB
		}
	default:
		r.wakes[0]++
		a.Run(r.fnScalar)
	}
}

// KernelsLine says which dot kernels the dispatcher and its
// microbenchmark run (internal/quant), and whether they are the slow
// generic ones: then the dispatcher's runs stay compute-bound and cannot
// load DRAM as ggml's kernels do.
func KernelsLine() (line string, slow bool) { return kernelsLine(quant.Impl()) }

// kernelsLine is KernelsLine for the implementation impl.
func kernelsLine(impl string) (line string, slow bool) {
	if impl == "generic" {
		return "dispatcher kernels: generic Go (no SIMD kernel for this CPU, or BLSIM_KERNELS=generic): about 15x slower than ggml's, so the runs stay compute-bound", true
	}
	return "dispatcher kernels: " + impl, false
}
