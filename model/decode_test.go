package model_test

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

func mustPreset(t *testing.T, name string) *model.Workload {
	t.Helper()
	w, err := presets.Workload(name)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestTokenOps: a generated token's graph is one token in every op, the
// output head included; its routed experts are top_k pairs; its weight ops
// are the prompt's.
func TestTokenOps(t *testing.T) {
	for _, name := range presets.WorkloadNames() {
		t.Run(name, func(t *testing.T) {
			w := mustPreset(t, name)
			tok := w.TokenOps(100)
			prompt := w.Ops(w.Run.Ubatches() - 1)
			if len(tok) != len(prompt) {
				t.Fatalf("%d ops, the prompt's last ubatch %d", len(tok), len(prompt))
			}
			k := float64(w.Model.MoE.TopK)
			for i, o := range tok {
				if o.Name != prompt[i].Name || o.Kind != prompt[i].Kind || o.WeightBytes != prompt[i].WeightBytes {
					t.Errorf("op %d: %s %v %g bytes, the prompt's %s %v %g", i, o.Name, o.Kind, o.WeightBytes, prompt[i].Name, prompt[i].Kind, prompt[i].WeightBytes)
				}
				if o.Tokens != 1 {
					t.Errorf("%s: %d tokens", o.Name, o.Tokens)
				}
				if o.Kind == model.ExpertMatmul {
					if want := 2 * k * float64(o.In) * float64(o.Out); o.Ops != want {
						t.Errorf("%s: %g ops, want top_k pairs: %g", o.Name, o.Ops, want)
					}
				}
			}
			if last := tok[len(tok)-1]; last.Name != "output" {
				t.Errorf("last op %s, want the output head", last.Name)
			}
		})
	}
}

// TestTokenOpsKVRead: a generated token reads K and V (f16) of every
// position in the cache in a full-attention layer, of at most its window
// in a sliding-window layer, and a linear-attention layer reads and writes
// its f32 recurrent state.
func TestTokenOpsKVRead(t *testing.T) {
	oss := mustPreset(t, "gpt-oss-20b") // pattern SF, window 128, 8 KV heads of 64
	a := oss.Model.Attention
	q := 8.0 * float64(a.Heads*a.HeadDim)
	perPos := 2 * 2 * float64(a.KVHeads*a.HeadDim)
	for _, d := range []int{0, 100, 127, 4096} {
		ops := oss.TokenOps(d)
		for _, tc := range []struct {
			name      string
			positions int
		}{
			{"blk.0.attn_scores", min(d+1, a.SlidingWindow)},
			{"blk.1.attn_scores", d + 1},
		} {
			o := ops[indexOf(ops, tc.name)]
			if want := perPos*float64(tc.positions) + q; o.ActBytes != want {
				t.Errorf("depth %d, %s: %g bytes, want %d positions: %g", d, tc.name, o.ActBytes, tc.positions, want)
			}
			if want := 4 * float64(tc.positions) * float64(a.Heads*a.HeadDim); o.Ops != want {
				t.Errorf("depth %d, %s: %g ops, want %g", d, tc.name, o.Ops, want)
			}
		}
	}

	qw := mustPreset(t, "qwen3.5-35b-a3b")
	la := qw.Model.Linear
	state := 4 * float64(la.ValueHeads*la.KeyDim*la.ValueDim+(la.ConvKernel-1)*la.InProjOut)
	if got := la.StateBytes(); got != state {
		t.Errorf("StateBytes %g, want %g", got, state)
	}
	tok := qw.TokenOps(0)[indexOf(qw.TokenOps(0), "blk.0.ssm_deltanet")]
	pp := qw.Ops(0)[indexOf(qw.Ops(0), "blk.0.ssm_deltanet")]
	if want := pp.ActBytes/float64(pp.Tokens) + 2*state; math.Abs(tok.ActBytes-want) > 1e-9*want {
		t.Errorf("deltanet of a token moves %g bytes, want its activations and the state read and written: %g", tok.ActBytes, want)
	}
}

// TestTokenOp: TokenOp takes a graph built at one depth to another, op by
// op, as TokenOps builds it there.
func TestTokenOp(t *testing.T) {
	for _, name := range presets.WorkloadNames() {
		w := mustPreset(t, name)
		base := w.TokenOps(7)
		for _, d := range []int{0, 7, 127, 128, 5000} {
			want := w.TokenOps(d)
			got := make([]model.Op, len(base))
			for i, o := range base {
				got[i] = w.TokenOp(o, d)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: TokenOp to depth %d differs from TokenOps(%d)", name, d, d)
			}
		}
		// Only attention depends on the depth, and grows with it.
		shallow, deep := w.TokenOps(0), w.TokenOps(4096)
		for i, o := range shallow {
			if o.Kind == model.AttentionScores {
				if !(deep[i].ActBytes > o.ActBytes) {
					t.Errorf("%s: %s reads %g bytes deep, %g at depth 0", name, o.Name, deep[i].ActBytes, o.ActBytes)
				}
			} else if o != deep[i] {
				t.Errorf("%s: %s depends on the depth", name, o.Name)
			}
		}
	}
}

// TestRunTG: a run may time a prompt, generated tokens, or both; not
// neither. A tg run has no ubatches, and the same weights.
func TestRunTG(t *testing.T) {
	w := mustPreset(t, "qwen3.5-35b-a3b")
	pp := w.ParamsTotal()
	for _, tc := range []struct {
		name string
		run  model.Run
		err  string
	}{
		{"pp", model.Run{PromptTokens: 512, Ubatch: 512}, ""},
		{"tg", model.Run{Ubatch: 512, GenTokens: 128}, ""},
		{"pp+tg", model.Run{PromptTokens: 512, Ubatch: 512, GenTokens: 128}, ""},
		{"tg at depth", model.Run{Ubatch: 512, Depth: 4096, GenTokens: 1}, ""},
		{"neither", model.Run{Ubatch: 512}, "run.prompt_tokens: 0 is outside [1, 1048576] when gen_tokens is 0 too"},
		{"negative", model.Run{Ubatch: 512, GenTokens: -1}, "run.gen_tokens: -1 is negative"},
		{"too many", model.Run{Ubatch: 512, GenTokens: 1<<20 + 1}, "run.gen_tokens: 1048577 is outside [0, 1048576]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := *w
			c.Run = tc.run
			err := c.Validate()
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := c.ParamsTotal(); got != pp {
					t.Errorf("ParamsTotal %g, the pp run's %g", got, pp)
				}
				if want := (tc.run.PromptTokens + 511) / 512; c.Run.Ubatches() != want {
					t.Errorf("%d ubatches, want %d", c.Run.Ubatches(), want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("got %v, want %q", err, tc.err)
			}
		})
	}
}

// TestParseWorkloadTG: gen_tokens is read from YAML and optional (every
// workload written before it still loads, as a pp test).
func TestParseWorkloadTG(t *testing.T) {
	w, err := model.LoadWorkloadFile("testdata/good/wl-tiny-tg.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if w.Run.PromptTokens != 0 || w.Run.GenTokens != 32 {
		t.Errorf("run %+v, want prompt 0, gen 32", w.Run)
	}
	for _, name := range presets.WorkloadNames() {
		if w := mustPreset(t, name); w.Run.GenTokens != 0 {
			t.Errorf("%s: gen_tokens %d, want 0 (a pp preset)", name, w.Run.GenTokens)
		}
	}
	b, err := model.MarshalWorkload(mustPreset(t, "qwen3.5-35b-a3b"))
	if err != nil || strings.Contains(string(b), "gen_tokens") {
		t.Errorf("a pp workload marshals gen_tokens (%v)", err)
	}
}

// TestGraphNodes: graph_nodes, llama.cpp's node count of one graph, is
// optional; given, it is at least the ops blsim times a graph.
func TestGraphNodes(t *testing.T) {
	w := *mustPreset(t, "qwen3.5-35b-a3b")
	n := len(w.TokenOps(0))
	for _, tc := range []struct {
		nodes int
		err   string
	}{
		{0, ""},
		{n, ""},
		{4 * n, ""},
		{n - 1, fmt.Sprintf("model.graph_nodes: %d, but blsim times %d ops a graph", n-1, n)},
		{-1, "model.graph_nodes: -1 is negative"},
	} {
		w.Model.GraphNodes = tc.nodes
		err := w.Validate()
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("graph_nodes %d: %v, want %q", tc.nodes, err, tc.err)
		}
	}
}
