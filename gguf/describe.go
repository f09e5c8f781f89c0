package gguf

import (
	"errors"
	"fmt"
	"strings"

	"github.com/blsim/blsim/model"
)

// Description is the model as blsim sees it, what `blsim workloads show
// --gguf` prints: the ops of each kind of layer, the types and bytes of
// each tensor class, the bytes a decoded token reads, and the routed
// experts' bytes and how many of them a ubatch touches.
type Description struct {
	File      string
	Arch      string
	Name      string
	Version   uint32
	Tensors   int
	DataBytes int64
	// Workload is the mapped workload; nil when the architecture is read
	// but cannot be mapped (Unmapped says why: DeepSeek's latent
	// attention). Everything below but Layers and OutputOp is still
	// filled from the tensors.
	Workload *model.Workload
	Unmapped string
	Layers   []LayerGroup
	OutputOp *OpInfo
	Classes  []ClassStats
	// TiedOutput: the output head is token_embd.weight (no output.weight).
	TiedOutput bool
	Decode     DecodeBytes
	// Experts is nil for a dense model.
	Experts *ExpertBytes
	Notes   []string
}

// LayerGroup is a run of consecutive layers with the same ops.
type LayerGroup struct {
	First, Last int
	// Kind is the attention kind: F full, S sliding window, L linear.
	Kind  string
	Dense bool // a dense FFN (no routed experts)
	Ops   []OpInfo
}

// OpInfo is one op of a layer.
type OpInfo struct {
	Name string // without the layer's "blk.N." prefix
	// Kind is the op kind's name (model.OpKind.String: matmul,
	// expert_matmul, attention, scalar).
	Kind string
	// In, Out are a matmul's widths (one expert's for an expert matmul),
	// Experts the routed experts it holds.
	In, Out, Experts int
	// Class and Type are the weights' class and its dominant GGML type.
	Class Class
	Type  string
	// WeightBytes is the op's weights in one layer (all its experts).
	WeightBytes float64
}

// DecodeBytes are the weight bytes one decoded token reads (llama-bench
// tg): every weight that is not a routed expert, the top-k routed
// experts, and the shared experts. The KV cache comes on top.
type DecodeBytes struct {
	// NonExpert: attention, router, dense FFN, output head, the norms and
	// small vectors, and one row of the token embedding.
	NonExpert float64
	Routed    float64
	Shared    float64
}

// Total is every weight byte a decoded token reads.
func (d DecodeBytes) Total() float64 { return d.NonExpert + d.Routed + d.Shared }

// ExpertBytes are the routed experts' bytes.
type ExpertBytes struct {
	Experts, TopK int
	// Layers is how many layers route to experts.
	Layers int
	// GateUp and Down are one expert's bytes in one layer.
	GateUp, Down float64
	// All is every routed expert of every layer.
	All int64
	// Ubatch is the ubatch size Touched is for: the expected number of
	// distinct experts a ubatch's tokens route to in one layer (uniform
	// routing), and TouchedBytes their bytes over all MoE layers.
	Ubatch       int
	Touched      float64
	TouchedBytes float64
}

// One is one expert's bytes in one layer.
func (e ExpertBytes) One() float64 { return e.GateUp + e.Down }

// Describe reads the model as blsim sees it, with the experts touched by a
// ubatch of ubatch tokens. An architecture blsim does not know, or a
// missing key, is an error; one it knows but cannot map (deepseek2) is
// described from its tensors with Unmapped set.
func (m *Model) Describe(ubatch int) (*Description, error) {
	if ubatch < 1 {
		return nil, fmt.Errorf("gguf: ubatch %d: want at least 1 token", ubatch)
	}
	d := &Description{File: m.Path, Arch: m.Arch, Name: m.Name, Version: m.File.Version,
		Tensors: len(m.File.Tensors), DataBytes: m.DataBytes()}
	_, hasOut := m.Tensor("output.weight")
	d.TiedOutput = !hasOut
	mp, err := m.Map()
	var experts, topK, layers int
	switch {
	case err == nil:
		w := mp.Workload
		d.Workload, d.Classes, d.Notes = w, mp.Classes, mp.Notes
		e := w.Model.MoE
		if e.DenseLayers < w.Model.Layers {
			experts, topK, layers = e.Experts, e.TopK, w.Model.Layers-e.DenseLayers
		}
		d.layerOps(w)
	case m.unmappable(err):
		d.Unmapped = err.Error()
		d.Classes = m.Classes()
		d.Notes = append(d.Notes, m.Notes...)
		g, p := m.meta(), m.Arch+"."
		experts, _, _ = g.int(p + "expert_count")
		topK, _, _ = g.int(p + "expert_used_count")
		n, _, _ := g.int(p + "block_count")
		lead, _, _ := g.int(p + "leading_dense_block_count")
		layers = n - lead
		if experts < 1 || topK < 1 || topK > experts || layers < 1 {
			experts = 0
		}
	default:
		return nil, err
	}
	by := map[Class]ClassStats{}
	for _, c := range d.Classes {
		by[c.Class] = c
	}
	routed := float64(by[ExpertsUp].Bytes + by[ExpertsDown].Bytes)
	emb := by[Embedding]
	row := 0.0
	if emb.Tensors == 1 {
		if t, ok := m.Tensor("token_embd.weight"); ok && len(t.Dims) == 2 {
			row = float64(t.Bytes()) / float64(t.Dims[1])
		}
	}
	d.Decode = DecodeBytes{
		NonExpert: float64(by[Attention].Bytes+by[Dense].Bytes+by[Router].Bytes+by[Output].Bytes+by[Other].Bytes) + row,
		Shared:    float64(by[Shared].Bytes),
	}
	if experts > 0 {
		d.Decode.Routed = routed * float64(topK) / float64(experts)
		per := float64(experts * layers)
		r := model.Routing{Experts: experts, TopK: topK}
		touched := r.ExpectedTouched(float64(ubatch))
		d.Experts = &ExpertBytes{
			Experts: experts, TopK: topK, Layers: layers,
			GateUp: float64(by[ExpertsUp].Bytes) / per, Down: float64(by[ExpertsDown].Bytes) / per,
			All: by[ExpertsUp].Bytes + by[ExpertsDown].Bytes, Ubatch: ubatch, Touched: touched,
			TouchedBytes: touched * routed / float64(experts),
		}
	}
	return d, nil
}

// unmappable: the architecture is known and read, but model.Arch has no
// form for it.
func (m *Model) unmappable(err error) bool {
	var ke *KeyError
	return errors.As(err, &ke) && families[m.Arch].mla && ke.Key == m.Arch+".attention.kv_lora_rank" && strings.Contains(ke.Msg, "cannot describe")
}

// layerOps groups the layers by their ops.
func (d *Description) layerOps(w *model.Workload) {
	one := *w
	one.Run = model.Run{PromptTokens: 1, Ubatch: 1}
	typeOf := map[Class]string{}
	for _, c := range d.Classes {
		if t, ok := c.Dominant(); ok {
			typeOf[c.Class] = t.String()
			if len(c.ByType) > 1 {
				typeOf[c.Class] += " (mixed)"
			}
		}
	}
	info := func(o model.Op) OpInfo {
		oi := OpInfo{Name: strings.TrimPrefix(o.Name, fmt.Sprintf("blk.%d.", o.Layer)), Kind: o.Kind.String()}
		if o.Kind == model.Matmul || o.Kind == model.ExpertMatmul {
			oi.In, oi.Out, oi.Class, oi.WeightBytes = o.In, o.Out, opClass[oi.Name], o.WeightBytes
			oi.Type = typeOf[oi.Class]
			if o.Kind == model.ExpertMatmul {
				oi.Experts = w.Model.MoE.Experts
			}
		}
		return oi
	}
	for _, o := range one.Ops(0) {
		if o.Layer < 0 {
			oi := info(o)
			d.OutputOp = &oi
			continue
		}
		kind, dense := string(w.Model.LayerKind(o.Layer)), o.Layer < w.Model.MoE.DenseLayers
		n := len(d.Layers)
		switch {
		case n > 0 && d.Layers[n-1].Last == o.Layer:
			if d.Layers[n-1].First == o.Layer {
				d.Layers[n-1].Ops = append(d.Layers[n-1].Ops, info(o))
			}
		case n > 0 && d.Layers[n-1].Kind == kind && d.Layers[n-1].Dense == dense && d.Layers[n-1].Last == o.Layer-1:
			d.Layers[n-1].Last = o.Layer
		default:
			d.Layers = append(d.Layers, LayerGroup{First: o.Layer, Last: o.Layer, Kind: kind, Dense: dense, Ops: []OpInfo{info(o)}})
		}
	}
}
