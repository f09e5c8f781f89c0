package dispatch

import (
	"fmt"
	"math"

	"github.com/blsim/blsim/internal/quant"
	"github.com/blsim/blsim/model"
)

// fill writes the weights with the main engine's threads, each the rows it
// reads in a native run, so their pages are first touched there.
func (r *runner) fill() {
	m := r.m
	nw := r.eng[0].pool.Size()
	r.eng[0].pool.Run(func(w int) {
		for _, t := range m.list {
			lo, hi := span(t.rows, w, nw)
			for e := range t.count {
				t.fillRows(m.seed, e, lo, hi)
			}
		}
	})
}

// prepare builds the activations, output and scratch buffers, the routes
// and every engine's share of each expert op.
func (r *runner) prepare(seed uint64, p model.Plan) error {
	m := r.m
	w := r.w
	n := min(w.Run.Ubatch, w.Run.PromptTokens)
	K := r.topK
	qs := (m.maxIn + quant.QK - 1) / quant.QK // rows padded to whole blocks
	r.act = acts{qs: qs, fs: qs * quant.QK}
	r.act.f = make([]float32, n*r.act.fs)
	g := newRNG(mix(seed, 0x616374))
	for i := range r.act.f {
		r.act.f[i] = g.float()
	}
	r.act.q = make([]quant.BlockQ8, n*r.act.qs) // each op quantises its rows
	r.out = make([]float32, n*max(K, 1)*m.maxOut)
	main := r.eng[0].pool.Size()
	r.float = make([]*floatWork, main)
	r.eng[0].pool.Run(func(w int) { r.float[w] = newFloatWork() })
	for _, e := range r.eng {
		if r.expertS {
			e.g = acts{q: make([]quant.BlockQ8, len(r.act.q)*K), f: make([]float32, len(r.act.f)*K), qs: r.act.qs, fs: r.act.fs}
			e.gout = make([]float32, len(r.out))
		}
	}
	frac := 0.0
	if r.split {
		frac = p.Fracs[1]
	}
	E := w.Model.MoE.Experts
	r.steps = r.steps[:0]
	for u := range w.Run.Ubatches() {
		var groups [][]int32
		groupLayer := -2
		for _, o := range w.Ops(u) {
			s := step{op: o, t: m.tensors[o.Name]}
			if s.t == nil && (o.Kind == model.Matmul || o.Kind == model.ExpertMatmul) {
				return fmt.Errorf("dispatch: op %s of prompt %d, ubatch %d has no weights in this model", o.Name, w.Run.PromptTokens, w.Run.Ubatch)
			}
			if o.Kind == model.ExpertMatmul {
				if o.Layer != groupLayer {
					groups = bySlot(Route(seed, u, o.Layer, o.Tokens, E, K), E)
					groupLayer = o.Layer
				}
				switch {
				case !r.split:
					s.parts[0] = tokenPartition(groups, K, 0, o.Tokens)
				case r.expertS:
					e0 := int(math.Round(float64(E) * (1 - frac)))
					s.parts[0] = expertPartition(groups, K, 0, e0)
					s.parts[1] = expertPartition(groups, K, e0, E)
					if s.parts[0].empty() || s.parts[1].empty() {
						// One engine has every expert: it runs them in
						// place, as native, with nothing to gather (the
						// simulator charges no gather when one engine
						// works).
						all := 0 // e0 == E: the main engine's
						if e0 == 0 {
							all = 1
						}
						s.parts[0], s.parts[1] = partition{}, partition{}
						s.parts[all] = tokenPartition(groups, K, 0, o.Tokens)
					} else {
						s.gather = true
					}
				default:
					n0 := int(math.Round(float64(o.Tokens) * (1 - frac)))
					s.parts[0] = tokenPartition(groups, K, 0, n0)
					s.parts[1] = tokenPartition(groups, K, n0, o.Tokens)
				}
			}
			r.steps = append(r.steps, s)
		}
	}
	return nil
}
