package model

import "fmt"

// OpKind says which kind of work an op is, and so which rate it runs at.
type OpKind int

const (
	// Matmul is a dense matrix product against weights (kernel class rate).
	Matmul OpKind = iota
	// ExpertMatmul is MUL_MAT_ID: the routed experts' product, the only
	// kind a split plan divides between engines.
	ExpertMatmul
	// AttentionScores is softmax attention over the KV cache (f16 kernel rate).
	AttentionScores
	// Scalar is non-matmul work: norms, the Gated-DeltaNet recurrence,
	// convolutions, activations (scalar rate).
	Scalar
)

var opKindNames = [...]string{"matmul", "expert_matmul", "attention", "scalar"}

func (k OpKind) String() string { return opKindNames[k] }

// OpKindNames lists the op kinds by name, as engines' ops lists name them.
func OpKindNames() []string { return opKindNames[:] }

// Op is one node of one ubatch's graph, with the facts a cost model needs.
type Op struct {
	Name  string
	Layer int // -1 for ops outside the layers (output head)
	Kind  OpKind
	// Class is the matmul kernel class (q4, q6, q8, f16, f32).
	Class string
	// Tokens is how many token rows the op processes.
	Tokens int
	// In, Out are the weight matrix's input and output widths; for an
	// ExpertMatmul they are one expert's.
	In, Out int
	// WeightBytes is the op's total weight bytes (all experts).
	WeightBytes float64
	// ExpertBytes is one expert's weight bytes (ExpertMatmul only).
	ExpertBytes float64
	// Ops is the arithmetic work in operations (multiply-add = 2) when run
	// natively; for an ExpertMatmul, over all of its token-expert pairs.
	Ops float64
	// ActBytes is the activation traffic (inputs read, outputs written).
	ActBytes float64
}

// Ops returns the ops of ubatch u (0-based) of the workload's run.
func (w *Workload) Ops(u int) []Op {
	m := &w.Model
	r := w.Run
	n := r.Ubatch
	if rest := r.PromptTokens - u*r.Ubatch; rest < n {
		n = rest
	}
	start := r.Depth + u*r.Ubatch // KV position of the ubatch's first token
	d := m.Hidden
	nf := float64(n)
	bpw := m.BitsPerWeight
	ops := make([]Op, 0, 13*m.Layers+1) // at most 12 ops a layer, and the output head
	add := func(o Op) { ops = append(ops, o) }
	matmul := func(layer int, name string, in, out int, bits float64) {
		add(Op{Name: name, Layer: layer, Kind: Matmul, Class: KernelClass(bits), Tokens: n, In: in, Out: out,
			WeightBytes: float64(in) * float64(out) * bits / 8,
			Ops:         2 * nf * float64(in) * float64(out),
			ActBytes:    4 * nf * float64(in+out)})
	}
	scalar := func(layer int, name string, opsPerToken, bytesPerToken float64) {
		add(Op{Name: name, Layer: layer, Kind: Scalar, Tokens: n, Ops: nf * opsPerToken, ActBytes: nf * bytesPerToken})
	}
	ctx := float64(start) + (nf+1)/2 // mean causal context of the ubatch's tokens
	for l := 0; l < m.Layers; l++ {
		blk := fmt.Sprintf("blk.%d.", l)
		scalar(l, blk+"attn_norm", 8*float64(d), 12*float64(d))
		switch m.LayerKind(l) {
		case 'F', 'S':
			a := m.Attention
			q := a.Heads * a.HeadDim
			if a.QGate {
				q *= 2
			}
			matmul(l, blk+"attn_qkv", d, q+2*a.KVHeads*a.HeadDim, bpw.Attention)
			c := ctx
			if m.LayerKind(l) == 'S' && float64(a.SlidingWindow) < c {
				c = float64(a.SlidingWindow)
			}
			kv := 2 * float64(a.KVHeads*a.HeadDim) * 2 * (float64(start) + nf) // f16 K and V
			add(Op{Name: blk + "attn_scores", Layer: l, Kind: AttentionScores, Class: "f16", Tokens: n,
				Ops: 4 * nf * c * float64(a.Heads*a.HeadDim), ActBytes: kv + 8*nf*float64(q)})
			matmul(l, blk+"attn_output", a.Heads*a.HeadDim, d, bpw.Attention)
		case 'L':
			la := m.Linear
			matmul(l, blk+"ssm_in", d, la.InProjOut, bpw.Attention)
			state := float64(la.ValueHeads * la.KeyDim * la.ValueDim)
			scalar(l, blk+"ssm_deltanet", 6*state+2*float64(la.ConvKernel*la.InProjOut), 8*float64(la.InProjOut))
			matmul(l, blk+"ssm_out", la.OutProjIn, d, bpw.Attention)
		}
		scalar(l, blk+"ffn_norm", 8*float64(d), 12*float64(d))
		e := m.MoE
		if l < e.DenseLayers {
			matmul(l, blk+"ffn_dense", d, 3*e.DenseFFN, bpw.Dense)
			continue
		}
		matmul(l, blk+"ffn_gate_inp", d, e.Experts, bpw.Router)
		expert := func(name string, in, out int, bits float64) {
			eb := float64(in) * float64(out) * bits / 8
			pairs := nf * float64(e.TopK)
			add(Op{Name: blk + name, Layer: l, Kind: ExpertMatmul, Class: KernelClass(bits), Tokens: n,
				In: in, Out: out, WeightBytes: eb * float64(e.Experts), ExpertBytes: eb,
				Ops: 2 * pairs * float64(in) * float64(out), ActBytes: 4 * pairs * float64(in+out)})
		}
		expert("ffn_gate_exps", d, e.ExpertFFN, bpw.ExpertsUp)
		expert("ffn_up_exps", d, e.ExpertFFN, bpw.ExpertsUp)
		expert("ffn_down_exps", e.ExpertFFN, d, bpw.ExpertsDown)
		if e.SharedExperts > 0 {
			matmul(l, blk+"ffn_shexp", d, 3*e.SharedExperts*e.SharedFFN, bpw.Shared)
		}
		scalar(l, blk+"ffn_moe_combine", 4*float64(e.TopK*d), 4*float64((e.TopK+1)*d))
	}
	if u == r.Ubatches()-1 {
		// llama-bench's pp test asks for the last token's logits only.
		add(Op{Name: "output", Layer: -1, Kind: Matmul, Class: KernelClass(bpw.Output), Tokens: 1, In: d, Out: m.Vocab,
			WeightBytes: float64(d) * float64(m.Vocab) * bpw.Output / 8,
			Ops:         2 * float64(d) * float64(m.Vocab), ActBytes: 4 * float64(d+m.Vocab)})
	}
	return ops
}

// Routing returns the MoE routing statistics of the workload.
func (w *Workload) Routing() Routing {
	return Routing{Experts: w.Model.MoE.Experts, TopK: w.Model.MoE.TopK, Skew: w.Model.MoE.RouterSkew}
}

// ParamsTotal is the weight count of the model (matmul weights only).
func (w *Workload) ParamsTotal() float64 {
	total := 0.0
	for _, o := range w.Ops(w.Run.Ubatches() - 1) {
		if o.Kind == Matmul || o.Kind == ExpertMatmul {
			total += float64(o.In) * float64(o.Out) * weightCount(o)
		}
	}
	return total
}

func weightCount(o Op) float64 {
	if o.Kind == ExpertMatmul {
		return o.WeightBytes / o.ExpertBytes
	}
	return 1
}
