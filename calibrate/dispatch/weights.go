package dispatch

import (
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/blsim/blsim/internal/quant"
	"github.com/blsim/blsim/model"
)

// tensorKind is a weight storage format.
type tensorKind int

const (
	kindQ4  tensorKind = iota // quant.BlockQ4 rows, dotted with Q8 activations
	kindQ8                    // quant.BlockQ8 rows, dotted with Q8 activations
	kindF32                   // float32 rows (f16 and f32 classes), dotted with float32 activations
)

// tensor is one op's weights: count matrices (experts; 1 for a dense
// matmul) of rows×in weights, row-major, each row nb blocks (or in floats).
type tensor struct {
	name     string
	index    int
	kind     tensorKind
	count    int
	rows, in int
	nb       int // blocks per row (quantised kinds)
	q4       []quant.BlockQ4
	q8       []quant.BlockQ8
	f        []float32
}

// size is the bytes of t's weights: count×rows rows of nb blocks (18
// bytes a Q4_0 block, 34 a Q8_0 one) or of in floats.
func (t *tensor) size() int64 {
	rows := int64(t.count) * int64(t.rows)
	switch t.kind {
	case kindQ4:
		return rows * int64(t.nb) * 18
	case kindQ8:
		return rows * int64(t.nb) * 34
	}
	return rows * int64(t.in) * 4
}

// fillRows writes the deterministic synthetic values of rows [r0, r1) of
// matrix e; the values depend only on the seed and the row, never on which
// thread writes them.
func (t *tensor) fillRows(seed uint64, e, r0, r1 int) {
	for r := r0; r < r1; r++ {
		row := e*t.rows + r
		g := newRNG(mix(seed, uint64(t.index), uint64(row)))
		switch t.kind {
		case kindQ4:
			bs := t.q4[row*t.nb : (row+1)*t.nb]
			for i := range bs {
				bs[i].D = quant.F16(float32(1+g.next()%8) / 512)
				for j := 0; j < len(bs[i].Qs); j += 8 {
					v := g.next()
					for k := range 8 {
						bs[i].Qs[j+k] = byte(v >> (8 * k))
					}
				}
			}
		case kindQ8:
			bs := t.q8[row*t.nb : (row+1)*t.nb]
			for i := range bs {
				bs[i].D = quant.F16(float32(1+g.next()%8) / 4096)
				for j := 0; j < len(bs[i].Qs); j += 8 {
					v := g.next()
					for k := range 8 {
						bs[i].Qs[j+k] = int8(v >> (8 * k))
					}
				}
			}
		default:
			fs := t.f[row*t.in : (row+1)*t.in]
			for i := range fs {
				fs[i] = g.float() / 32
			}
		}
	}
}

// Model holds a workload's synthetic weights, allocated once and reused by
// every Run of it. Its pages are first written by the first Run, by the
// pinned threads of that Run's first engine, each writing the rows it reads
// in a native run.
type Model struct {
	w       *model.Workload
	seed    uint64
	tensors map[string]*tensor
	list    []*tensor
	bytes   int64
	maxIn   int
	maxOut  int // widest output row of any op
	filled  bool
	mu      sync.Mutex // one Run at a time
}

// NewModel allocates the weights of every matmul and expert op of w (their
// values are written by the first Run). It fails for a workload that is
// invalid, uses a kernel class this package lacks (only q4, q8, f16 and
// f32; f16 runs as f32), or has a quantised matrix whose input width is not
// a multiple of 32.
//
// Weights of ReleaseBytes or more are allocated only after the memory
// the process no longer holds (a model dropped before this one) has gone
// back to the operating system (debug.FreeOSMemory), so that they take its
// place in the resident set instead of sitting beside it: Go returns freed
// pages to the system only gradually otherwise.
func NewModel(w *model.Workload, seed uint64) (*Model, error) {
	m, err := layout(w, seed)
	if err != nil {
		return nil, err
	}
	if m.bytes >= ReleaseBytes {
		debug.FreeOSMemory()
	}
	for _, t := range m.list {
		n := t.count * t.rows
		switch t.kind {
		case kindQ4:
			t.q4 = make([]quant.BlockQ4, n*t.nb)
		case kindQ8:
			t.q8 = make([]quant.BlockQ8, n*t.nb)
		default:
			t.f = make([]float32, n*t.in)
		}
	}
	return m, nil
}

// ReleaseBytes is the size of weights from which NewModel first returns
// the process's free memory to the system: a calibration's weights (tens
// of MiB to 1.5 GiB), not a test's (a few MiB, where the collection it
// costs would only add time).
const ReleaseBytes = 64 << 20

// WeightBytes is what NewModel(w) allocates for the weights, without
// allocating them (Model.WeightBytes of the model it would return), or
// its error.
func WeightBytes(w *model.Workload) (int64, error) {
	m, err := layout(w, 0)
	if err != nil {
		return 0, err
	}
	return m.bytes, nil
}

// layout is the model of w with every tensor's shape, kind and size set
// and no weights allocated.
func layout(w *model.Workload, seed uint64) (*Model, error) {
	if w == nil {
		return nil, fmt.Errorf("dispatch: no workload")
	}
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("dispatch: workload %s: %w", w.Name, err)
	}
	if w.Run.PromptTokens < 1 || w.Run.GenTokens > 0 {
		return nil, fmt.Errorf("dispatch: workload %s: the built-in dispatcher times prompt processing (pp), not generated tokens (pp%d, tg%d)",
			w.Name, w.Run.PromptTokens, w.Run.GenTokens)
	}
	m := &Model{w: w, seed: seed, tensors: map[string]*tensor{}}
	for _, o := range w.Ops(w.Run.Ubatches() - 1) {
		if o.Kind != model.Matmul && o.Kind != model.ExpertMatmul {
			continue
		}
		t := &tensor{name: o.Name, index: len(m.list), count: 1, rows: o.Out, in: o.In}
		if o.Kind == model.ExpertMatmul {
			t.count = w.Model.MoE.Experts
		}
		switch o.Class {
		case model.ClassQ4:
			t.kind = kindQ4
		case model.ClassQ8:
			t.kind = kindQ8
		case model.ClassF16, model.ClassF32:
			t.kind = kindF32
		default:
			return nil, fmt.Errorf("dispatch: op %s: kernel class %s is not implemented (have q4, q8, f16, f32)", o.Name, o.Class)
		}
		if t.kind != kindF32 && o.In%quant.QK != 0 {
			return nil, fmt.Errorf("dispatch: op %s: input width %d is not a multiple of %d, as %s blocks need", o.Name, o.In, quant.QK, o.Class)
		}
		t.nb = o.In / quant.QK
		m.tensors[o.Name] = t
		m.list = append(m.list, t)
		m.bytes += t.size()
		m.maxIn = max(m.maxIn, o.In)
		m.maxOut = max(m.maxOut, o.Out)
	}
	if m.maxIn == 0 {
		return nil, fmt.Errorf("dispatch: workload %s has no matmul ops", w.Name)
	}
	return m, nil
}

// withRun is the model's workload with run's test, checked; nil keeps its
// own.
func (m *Model) withRun(run *model.Run) (*model.Workload, error) {
	if run == nil {
		return m.w, nil
	}
	c := *m.w
	c.Run = *run
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("dispatch: workload %s with prompt %d, ubatch %d, depth %d: %w", c.Name, run.PromptTokens, run.Ubatch, run.Depth, err)
	}
	return &c, nil
}

// WeightBytes is the size of the synthetic weights in memory.
func (m *Model) WeightBytes() int64 { return m.bytes }
