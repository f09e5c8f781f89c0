package model

import (
	"math"
	"strconv"

	"github.com/blsim/blsim/model/enum"
	"go.yaml.in/yaml/v3"
)

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

// OpKinds lists the op kinds, in the order of OpKindNames.
var OpKinds = []OpKind{Matmul, ExpertMatmul, AttentionScores, Scalar}

// String is the kind's name, as engines' ops lists name it.
func (k OpKind) String() string {
	if k < 0 || int(k) >= len(opKindNames) {
		return "OpKind(" + strconv.Itoa(int(k)) + ")"
	}
	return opKindNames[k]
}

// OpKindNames lists the op kinds by name, as engines' ops lists name them.
func OpKindNames() []string { return opKindNames[:] }

// MarshalYAML writes the kind's name.
func (k OpKind) MarshalYAML() (any, error) { return k.String(), nil }

// UnmarshalYAML reads a kind's name, one of OpKindNames.
func (k *OpKind) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	for _, o := range OpKinds {
		if o.String() == s {
			*k = o
			return nil
		}
	}
	return enum.Unknown(n, "op kind", s, OpKinds)
}

// Op is one node of one ubatch's graph, with the facts a cost model needs.
type Op struct {
	Name  string
	Layer int // -1 for ops outside the layers (output head)
	Kind  OpKind
	// Class is the matmul kernel class (q4, q6, q8, f16, f32); "" for an
	// op without weights.
	Class KernelClass
	// Tensor is the class of the op's weights, a key of the workload's
	// bits_per_weight and types (attention, experts_gate_up, ...); "" for
	// an op without weights.
	Tensor string
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
	// natively; for an ExpertMatmul, over all of its token-expert pairs;
	// for AttentionScores, the two products over the positions each token
	// sees (the causal ones: what flash attention computes).
	Ops float64
	// KVOps and Elems are an AttentionScores op's work as llama.cpp runs
	// attention without flash attention (Engine.AttentionWork): the two
	// products over every cached position, padded (KVPad) and masked
	// ones included, and the softmax's elements, one a token, position
	// and head. Both zero with flash attention (Run.FlashAttn).
	KVOps, Elems float64
	// ActBytes is the activation traffic (inputs read, outputs written).
	ActBytes float64
}

// Ops returns the ops of ubatch u (0-based, below Run.Ubatches()) of the
// workload's prompt: llama-bench's pp test.
func (w *Workload) Ops(u int) []Op {
	r := w.Run
	n := r.Ubatch
	if rest := r.PromptTokens - u*r.Ubatch; rest < n {
		n = rest
	}
	// llama-bench's pp test asks for the last token's logits only.
	return w.graph(n, r.Depth+u*r.Ubatch, u == r.Ubatches()-1, false)
}

// TokenOps returns the ops of the graph of one generated token (llama-bench's
// tg test decodes one token per graph) whose KV cache already holds depth
// positions. It is a one-token ubatch with three differences from a prompt's:
// the output head runs for every token; a sliding-window layer reads the K
// and V of at most its window of positions; a linear-attention layer reads
// and writes its recurrent state (and its convolution's) once per token,
// which a prompt's ubatch does once per ubatch, a negligible part of it. The
// routed experts' op reads the weights of the experts the token touches:
// exactly top_k of them (one token's choices are distinct), whatever the
// router's skew.
func (w *Workload) TokenOps(depth int) []Op {
	return w.graph(1, depth, true, true)
}

// TokenOp returns o, an op of a graph TokenOps built for any depth, as it
// is in the graph at depth: o itself unless it depends on the depth
// (attention's scores), without building the graph again.
func (w *Workload) TokenOp(o Op, depth int) Op {
	if o.Kind == AttentionScores {
		a := w.scores(o.Layer, 1, depth, true)
		o.Ops, o.KVOps, o.Elems, o.ActBytes = a.ops, a.kvOps, a.elems, a.bytes
	}
	return o
}

// attnWork is one layer's attention scores work: the causal products'
// ops, the products and softmax elements over every cached position
// (llama.cpp without flash attention), and the bytes.
type attnWork struct{ ops, kvOps, elems, bytes float64 }

// KVPad is the KV length llama.cpp's attention without flash attention
// runs over: the cache's used cells rounded up to 32
// (llama_kv_cache_get_padding at c392e50; 256 with flash attention, whose
// masked positions are skipped).
const KVPad = 32

// scores returns the work of layer l's attention scores for n tokens
// whose first sits at KV position start (decode: see TokenOps).
func (w *Workload) scores(l, n, start int, decode bool) attnWork {
	m := &w.Model
	a := m.Attention
	nf := float64(n)
	q := a.Heads * a.HeadDim
	if a.QGate {
		q *= 2
	}
	c := float64(start) + (nf+1)/2 // mean causal context of the ubatch's tokens
	kv := float64((start + n + KVPad - 1) / KVPad * KVPad)
	if m.LayerKind(l) == 'S' && float64(a.SlidingWindow) < c {
		c = float64(a.SlidingWindow)
		kv = math.Min(kv, float64((a.SlidingWindow+n+KVPad-1)/KVPad*KVPad))
	}
	positions := float64(start) + nf // K and V in the cache once the ubatch is in
	if decode && m.LayerKind(l) == 'S' {
		positions = c // a generated token reads its window only
	}
	var out attnWork
	if a.MLA() {
		// Over the latent: each head's absorbed query against the
		// latent and rotary key, its output from the latent; the cache
		// holds the latent and the rotary key once a position (f16).
		lat := float64(a.KVLoraRank + a.RopeDim)
		q = a.Heads * (a.KVLoraRank + a.RopeDim)
		per := float64(a.Heads) * (lat + float64(a.KVLoraRank))
		out = attnWork{ops: 2 * nf * c * per, kvOps: 2 * nf * kv * per, bytes: 2*lat*positions + 8*nf*float64(q)}
	} else {
		bytes := 2 * float64(a.KVHeads*a.HeadDim) * 2 * positions // f16 K and V
		per := 4 * float64(a.Heads*a.HeadDim)
		out = attnWork{ops: nf * c * per, kvOps: nf * kv * per, bytes: bytes + 8*nf*float64(q)}
	}
	out.elems = nf * kv * float64(a.Heads)
	if w.Run.FlashAttn {
		out.kvOps, out.elems = 0, 0
	}
	return out
}

// graph builds the ops of n tokens whose first sits at KV position start;
// logits adds the output head; decode builds a generated token's graph
// (see TokenOps).
func (w *Workload) graph(n, start int, logits, decode bool) []Op {
	m := &w.Model
	d := m.Hidden
	nf := float64(n)
	bpw := m.BitsPerWeight
	size := 13*m.Layers + 1 // at most 12 ops a layer, and the output head
	ops := make([]Op, 0, size)
	// The names, "blk.<layer>.<name>" ("output" for the head), are written
	// back to back into one string: a graph is built per simulated run.
	names := make([]byte, 0, 24*size)
	ends := make([]int32, 0, size)
	add := func(name string, o Op) {
		if o.Layer >= 0 {
			names = append(names, "blk."...)
			names = strconv.AppendInt(names, int64(o.Layer), 10)
			names = append(names, '.')
		}
		names = append(names, name...)
		ends = append(ends, int32(len(names)))
		ops = append(ops, o)
	}
	matmul := func(layer int, name, tensor string, in, out int, bits float64) {
		add(name, Op{Layer: layer, Kind: Matmul, Class: KernelClassOf(bits), Tensor: tensor, Tokens: n, In: in, Out: out,
			WeightBytes: float64(in) * float64(out) * bits / 8,
			Ops:         2 * nf * float64(in) * float64(out),
			ActBytes:    4 * nf * float64(in+out)})
	}
	scalar := func(layer int, name string, opsPerToken, bytesPerToken float64) {
		add(name, Op{Layer: layer, Kind: Scalar, Tokens: n, Ops: nf * opsPerToken, ActBytes: nf * bytesPerToken})
	}
	for l := 0; l < m.Layers; l++ {
		scalar(l, "attn_norm", 8*float64(d), 12*float64(d))
		switch m.LayerKind(l) {
		case 'F', 'S':
			a := m.Attention
			q := a.Heads * a.HeadDim
			if a.QGate {
				q *= 2
			}
			if a.MLA() {
				if a.QLoraRank > 0 {
					matmul(l, "attn_q_a", "attention", d, a.QLoraRank, bpw.Attention)
					matmul(l, "attn_q_b", "attention", a.QLoraRank, q, bpw.Attention)
				} else {
					matmul(l, "attn_q", "attention", d, q, bpw.Attention)
				}
				matmul(l, "attn_kv_a", "attention", d, a.KVLoraRank+a.RopeDim, bpw.Attention)
				// attn_kv_b, absorbed: the non-rotary query into the
				// latent, and the latent output into the values.
				matmul(l, "attn_kv_b", "attention", a.KVLoraRank, a.Heads*(a.HeadDim-a.RopeDim+a.VDim()), bpw.Attention)
			} else {
				matmul(l, "attn_qkv", "attention", d, q+2*a.KVHeads*a.HeadDim, bpw.Attention)
			}
			sc := w.scores(l, n, start, decode)
			add("attn_scores", Op{Layer: l, Kind: AttentionScores, Class: ClassF16, Tokens: n,
				Ops: sc.ops, KVOps: sc.kvOps, Elems: sc.elems, ActBytes: sc.bytes})
			matmul(l, "attn_output", "attention", a.Heads*a.VDim(), d, bpw.Attention)
		case 'L':
			la := m.Linear
			matmul(l, "ssm_in", "attention", d, la.InProjOut, bpw.Attention)
			state := float64(la.ValueHeads * la.KeyDim * la.ValueDim)
			scalar(l, "ssm_deltanet", 6*state+2*float64(la.ConvKernel*la.InProjOut), 8*float64(la.InProjOut))
			if decode {
				ops[len(ops)-1].ActBytes += la.StateBytes() * 2 // read, then written back
			}
			matmul(l, "ssm_out", "attention", la.OutProjIn, d, bpw.Attention)
		}
		if l == m.Layers-1 && !decode {
			// llama.cpp keeps only the tokens whose output is asked for
			// after the last layer's attention (ggml_get_rows with
			// inp_out_ids): its FFN runs for the prompt's last token in the
			// last ubatch, and for none in the others.
			if !logits {
				break
			}
			n, nf = 1, 1
		}
		scalar(l, "ffn_norm", 8*float64(d), 12*float64(d))
		e := m.MoE
		if l < e.DenseLayers {
			matmul(l, "ffn_dense", "dense_ffn", d, 3*e.DenseFFN, bpw.Dense)
			continue
		}
		matmul(l, "ffn_gate_inp", "router", d, e.Experts, bpw.Router)
		expert := func(name, tensor string, in, out int, bits float64) {
			eb := float64(in) * float64(out) * bits / 8
			pairs := nf * float64(e.TopK)
			add(name, Op{Layer: l, Kind: ExpertMatmul, Class: KernelClassOf(bits), Tensor: tensor, Tokens: n,
				In: in, Out: out, WeightBytes: eb * float64(e.Experts), ExpertBytes: eb,
				Ops: 2 * pairs * float64(in) * float64(out), ActBytes: 4 * pairs * float64(in+out)})
		}
		expert("ffn_gate_exps", "experts_gate_up", d, e.ExpertFFN, bpw.ExpertsUp)
		expert("ffn_up_exps", "experts_gate_up", d, e.ExpertFFN, bpw.ExpertsUp)
		expert("ffn_down_exps", "experts_down", e.ExpertFFN, d, bpw.ExpertsDown)
		if e.SharedExperts > 0 {
			matmul(l, "ffn_shexp", "shared", d, 3*e.SharedExperts*e.SharedFFN, bpw.Shared)
		}
		scalar(l, "ffn_moe_combine", 4*float64(e.TopK*d), 4*float64((e.TopK+1)*d))
	}
	if logits {
		add("output", Op{Layer: -1, Kind: Matmul, Class: KernelClassOf(bpw.Output), Tensor: "output", Tokens: 1, In: d, Out: m.Vocab,
			WeightBytes: float64(d) * float64(m.Vocab) * bpw.Output / 8,
			Ops:         2 * float64(d) * float64(m.Vocab), ActBytes: 4 * float64(d+m.Vocab)})
	}
	all := string(names)
	from := int32(0)
	for i := range ops {
		ops[i].Name = all[from:ends[i]]
		from = ends[i]
	}
	return ops
}

// StateBytes is the recurrent state one linear-attention layer keeps per
// sequence: the f32 delta-rule state (value_heads x key_dim x value_dim) and
// the f32 convolution state (conv_kernel-1 positions of the in-projection's
// width, a slight overcount of the q, k and v channels it convolves).
func (la *LinearAttention) StateBytes() float64 {
	return 4 * (float64(la.ValueHeads*la.KeyDim*la.ValueDim) + float64(max(la.ConvKernel-1, 0)*la.InProjOut))
}

// Routing returns the MoE routing statistics of the workload.
func (w *Workload) Routing() Routing {
	return Routing{Experts: w.Model.MoE.Experts, TopK: w.Model.MoE.TopK, Skew: w.Model.MoE.RouterSkew}
}

// ParamsTotal is the weight count of the model (matmul weights only).
func (w *Workload) ParamsTotal() float64 {
	total := 0.0
	for _, o := range w.TokenOps(0) {
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
