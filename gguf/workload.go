package gguf

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/blsim/blsim/model"
)

// DefaultRun is the run a workload read from a GGUF carries: llama-bench's
// default pp512 at ubatch 512 on an empty KV cache. Callers set their own.
var DefaultRun = model.Run{PromptTokens: 512, Ubatch: 512, Depth: 0}

// Mapping is the model as blsim sees it: the workload, the tensors by
// class, and what the mapping noticed on the way.
type Mapping struct {
	Workload *model.Workload
	Classes  []ClassStats
	Notes    []string
}

// Workload maps the file to a blsim workload (Run is DefaultRun). See Map.
func (m *Model) Workload() (*model.Workload, error) {
	mp, err := m.Map()
	if err != nil {
		return nil, err
	}
	return mp.Workload, nil
}

// Map maps the file to a blsim workload: the shape from the
// architecture's metadata keys (llama.cpp's names and defaults), the bits
// per weight and GGML type of each class from the tensors themselves. The
// shape is then checked against the tensors: each class's weight count
// must equal what the workload's ops multiply, so a layout blsim does not
// know is an error, never a silent guess. Errors name the key or tensor,
// on one line.
func (m *Model) Map() (*Mapping, error) {
	s, err := m.mapArch()
	if err != nil {
		return nil, err
	}
	notes := append(append([]string(nil), m.Notes...), s.notes...)
	_, hasOut := m.Tensor("output.weight")
	classes := classStats(m.File.Tensors, s.arch.Layers, !hasOut)
	a := s.arch
	bits, types, mix := classBits(classes)
	a.BitsPerWeight = bits
	a.Types = types
	for _, c := range classes {
		if c.Class == Extra && c.Tensors > 0 {
			notes = append(notes, fmt.Sprintf("%d tensors in blocks past block_count %d (MTP/NextN heads, %s) are not in the ops: llama-bench does not run them", c.Tensors, a.Layers, bytesStr(float64(c.Bytes))))
		}
	}
	if !hasOut {
		notes = append(notes, "no output.weight: the output head is token_embd.weight (tied)")
	}
	notes = append(notes, "router_skew 0: routing is taken as uniform (a GGUF does not say how skewed its router is)")
	desc := fmt.Sprintf("from %s: %s, GGUF v%d, %d tensors, %s", m.fileName(), m.Arch, m.File.Version, len(m.File.Tensors), bytesStr(float64(m.DataBytes())))
	if len(mix) > 0 {
		desc += "; mixed types: " + strings.Join(mix, "; ")
	}
	w := &model.Workload{
		Schema: model.WorkloadSchema, Name: m.name(), Description: desc,
		Model: a, Run: DefaultRun,
	}
	if err := w.Validate(); err != nil {
		var fe *model.FieldError
		if errors.As(err, &fe) {
			return nil, &KeyError{File: m.Path, Key: fe.Path, Msg: fe.Msg + " (as mapped from the GGUF)"}
		}
		return nil, fmt.Errorf("%s: %w", m.Path, err)
	}
	if err := m.checkWeights(w, classes); err != nil {
		return nil, err
	}
	return &Mapping{Workload: w, Classes: classes, Notes: notes}, nil
}

// classBits turns the class sums into bits_per_weight and types. A class
// without tensors (shared experts of a model that has none) takes the
// attention's bits, which no op uses, and no type; a class of several
// types takes the dominant by bytes, and mix says how they split.
func classBits(classes []ClassStats) (model.BitsPerWeight, map[string]string, []string) {
	by := map[Class]ClassStats{}
	for _, c := range classes {
		by[c.Class] = c
	}
	fill := by[Attention].BitsPerWeight()
	if fill == 0 {
		fill = 16
	}
	types := map[string]string{}
	var mix []string
	get := func(c Class) float64 {
		st := by[c]
		if st.Weights == 0 {
			return fill
		}
		if t, ok := st.Dominant(); ok {
			types[string(c)] = t.String()
		}
		if len(st.ByType) > 1 {
			mix = append(mix, fmt.Sprintf("%s %s", c, st.Mix()))
		}
		return st.BitsPerWeight()
	}
	b := model.BitsPerWeight{
		Attention: get(Attention), ExpertsUp: get(ExpertsUp), ExpertsDown: get(ExpertsDown),
		Shared: get(Shared), Dense: get(Dense), Router: get(Router), Output: get(Output),
	}
	return b, types, mix
}

// opClass is the class of the weights each matmul op of model.Ops
// multiplies, by the op's name after "blk.N.".
var opClass = map[string]Class{
	"attn_qkv": Attention, "attn_output": Attention, "ssm_in": Attention, "ssm_out": Attention,
	"attn_q": Attention, "attn_q_a": Attention, "attn_q_b": Attention, "attn_kv_a": Attention, "attn_kv_b": Attention,
	"ffn_dense": Dense, "ffn_gate_inp": Router, "ffn_shexp": Shared,
	"ffn_gate_exps": ExpertsUp, "ffn_up_exps": ExpertsUp, "ffn_down_exps": ExpertsDown,
	"output": Output,
}

// impliedWeights sums the weights the workload's matmul ops multiply, by
// class.
func impliedWeights(w *model.Workload) (map[Class]int64, error) {
	r := w.Run
	r.PromptTokens, r.Ubatch = 1, 1 // one ubatch: the output head is in it
	one := *w
	one.Run = r
	out := map[Class]int64{}
	for _, o := range one.Ops(0) {
		if o.Kind != model.Matmul && o.Kind != model.ExpertMatmul {
			continue
		}
		c, ok := opClass[strings.TrimPrefix(o.Name, fmt.Sprintf("blk.%d.", o.Layer))]
		if !ok {
			return nil, fmt.Errorf("gguf: op %s of model.Ops has no tensor class (a new op: add it to opClass)", o.Name)
		}
		n := int64(o.In) * int64(o.Out)
		if o.Kind == model.ExpertMatmul {
			n *= int64(w.Model.MoE.Experts)
		}
		out[c] += n
	}
	return out, nil
}

// checkWeights compares each timed class's weights in the file with what
// the mapped workload multiplies.
func (m *Model) checkWeights(w *model.Workload, classes []ClassStats) error {
	want, err := impliedWeights(w)
	if err != nil {
		return err
	}
	for _, c := range classes {
		if !isTimed(c.Class) || c.Weights == want[c.Class] {
			continue
		}
		a := w.Model
		return &KeyError{File: m.Path, Key: "tensors of class " + string(c.Class),
			Msg: fmt.Sprintf("hold %d weights in %d tensors, but the shape mapped from the %s keys multiplies %d (layers %d, pattern %s, hidden %d, heads %d/%d of %d, experts %d top-%d of %d, shared %dx%d, dense layers %d of %d): the file's layout is not the one blsim maps for %s",
				c.Weights, c.Tensors, m.Arch, want[c.Class], a.Layers, a.Pattern, a.Hidden, a.Attention.Heads, a.Attention.KVHeads, a.Attention.HeadDim,
				a.MoE.Experts, a.MoE.TopK, a.MoE.ExpertFFN, a.MoE.SharedExperts, a.MoE.SharedFFN, a.MoE.DenseLayers, a.MoE.DenseFFN, m.Arch)}
	}
	return nil
}

func isTimed(c Class) bool {
	for _, t := range Timed {
		if t == c {
			return true
		}
	}
	return false
}

func (m *Model) fileName() string {
	if m.Path == "" {
		return "a GGUF header"
	}
	return filepath.Base(m.Path)
}
