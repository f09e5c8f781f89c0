package gguf

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Class is a tensor class: the weights that blsim times at one rate.
// The first seven are the keys of a workload's bits_per_weight and types.
type Class string

// The tensor classes.
const (
	Attention   Class = "attention"       // q, k, v, output projections; Gated-DeltaNet in/out projections
	ExpertsUp   Class = "experts_gate_up" // routed experts' gate and up
	ExpertsDown Class = "experts_down"    // routed experts' down
	Shared      Class = "shared"          // shared experts
	Dense       Class = "dense_ffn"       // a dense FFN (dense models, dense leading layers)
	Router      Class = "router"          // ffn_gate_inp
	Output      Class = "output"          // the output head (token_embd when tied)
	Embedding   Class = "token_embd"      // the token embedding: rows gathered, not a matmul
	Other       Class = "other"           // norms, biases, convolutions, gates of one row: not in blsim's ops
	Extra       Class = "extra_blocks"    // blocks past block_count (MTP/NextN heads): not run by llama-bench
)

// Classes lists every class in report order.
var Classes = []Class{Attention, ExpertsUp, ExpertsDown, Shared, Dense, Router, Output, Embedding, Other, Extra}

// Timed are the classes the workload's ops time (bits_per_weight keys).
var Timed = []Class{Attention, ExpertsUp, ExpertsDown, Shared, Dense, Router, Output}

var layerName = regexp.MustCompile(`^blk\.(\d+)\.(.+)$`)

// per-expert tensors of old Mixtral GGUFs: blk.N.ffn_gate.E.weight
var perExpert = regexp.MustCompile(`^(ffn_gate|ffn_up|ffn_down)\.\d+\.weight$`)

var layerClasses = map[string]Class{
	"attn_q": Attention, "attn_k": Attention, "attn_v": Attention, "attn_qkv": Attention,
	"attn_output": Attention, "attn_gate": Attention,
	"attn_q_a": Attention, "attn_q_b": Attention, "attn_kv_a_mqa": Attention, "attn_kv_b": Attention,
	"attn_k_b": Attention, "attn_v_b": Attention,
	"ssm_in": Attention, "ssm_out": Attention, "ssm_ba": Attention, "ssm_beta": Attention, "ssm_alpha": Attention,
	"ffn_gate_exps": ExpertsUp, "ffn_up_exps": ExpertsUp, "ffn_gate_up_exps": ExpertsUp,
	"ffn_down_exps":  ExpertsDown,
	"ffn_gate_shexp": Shared, "ffn_up_shexp": Shared, "ffn_down_shexp": Shared,
	"ffn_gate": Dense, "ffn_up": Dense, "ffn_down": Dense,
	"ffn_gate_inp": Router,
}

// Classify returns a tensor's class and its layer (-1 outside the
// layers), given the model's block count.
func Classify(t Tensor, blocks int) (Class, int) {
	if t.Name == "token_embd.weight" {
		return Embedding, -1
	}
	m := layerName.FindStringSubmatch(t.Name)
	if m == nil {
		if t.Name == "output.weight" {
			return Output, -1
		}
		return Other, -1
	}
	layer, err := strconv.Atoi(m[1])
	if err != nil {
		return Other, -1
	}
	if layer >= blocks {
		return Extra, layer
	}
	rest := m[2]
	if len(t.Dims) < 2 || strings.HasSuffix(rest, ".bias") {
		return Other, layer
	}
	if pm := perExpert.FindStringSubmatch(rest); pm != nil {
		if pm[1] == "ffn_down" {
			return ExpertsDown, layer
		}
		return ExpertsUp, layer
	}
	if c, ok := layerClasses[strings.TrimSuffix(rest, ".weight")]; ok && strings.HasSuffix(rest, ".weight") {
		return c, layer
	}
	return Other, layer
}

// ClassStats sums one class's tensors.
type ClassStats struct {
	Class   Class
	Tensors int
	Weights int64
	Bytes   int64
	// ByType is the bytes of each GGML type in the class.
	ByType map[Type]int64
}

// BitsPerWeight is the class's storage per weight, scales included.
func (c ClassStats) BitsPerWeight() float64 {
	if c.Weights == 0 {
		return 0
	}
	return 8 * float64(c.Bytes) / float64(c.Weights)
}

// Types lists the class's types, most bytes first.
func (c ClassStats) Types() []Type {
	ts := make([]Type, 0, len(c.ByType))
	for t := range c.ByType {
		ts = append(ts, t)
	}
	sort.Slice(ts, func(i, j int) bool {
		if c.ByType[ts[i]] != c.ByType[ts[j]] {
			return c.ByType[ts[i]] > c.ByType[ts[j]]
		}
		return ts[i] < ts[j]
	})
	return ts
}

// Dominant is the type holding most of the class's bytes.
func (c ClassStats) Dominant() (Type, bool) {
	ts := c.Types()
	if len(ts) == 0 {
		return 0, false
	}
	return ts[0], true
}

// Mix describes the class's types by share of bytes: "q6_k 52%, q4_k 48%".
func (c ClassStats) Mix() string {
	var parts []string
	for _, t := range c.Types() {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", t, 100*float64(c.ByType[t])/float64(c.Bytes)))
	}
	return strings.Join(parts, ", ")
}

// classStats sums the tensors by class, in Classes order (every class
// present, empty ones with zero counts).
func classStats(tensors []Tensor, blocks int, tiedOutput bool) []ClassStats {
	by := map[Class]*ClassStats{}
	for _, c := range Classes {
		by[c] = &ClassStats{Class: c, ByType: map[Type]int64{}}
	}
	add := func(c Class, t Tensor) {
		s := by[c]
		s.Tensors++
		s.Weights += t.Elements()
		s.Bytes += t.Bytes()
		s.ByType[t.Type] += t.Bytes()
	}
	for _, t := range tensors {
		c, _ := Classify(t, blocks)
		add(c, t)
		if c == Embedding && tiedOutput {
			add(Output, t)
		}
	}
	out := make([]ClassStats, 0, len(Classes))
	for _, c := range Classes {
		out = append(out, *by[c])
	}
	return out
}
