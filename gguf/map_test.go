package gguf

import (
	"errors"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

// The fixtures of testdata/make_fixtures.py, as blsim must map them.
var fixtureWant = []struct {
	file string
	arch model.Arch // BitsPerWeight and Linear checked apart
	bits model.BitsPerWeight
	// linear is the Gated DeltaNet shape of a hybrid.
	linear *model.LinearAttention
	// note is a phrase one of the mapping's notes must hold.
	note string
}{
	{file: "qwen3moe.gguf",
		arch: model.Arch{Layers: 2, Pattern: "F", Hidden: 32, Vocab: 128,
			Attention: model.SoftmaxAttention{Heads: 4, KVHeads: 2, HeadDim: 16},
			MoE:       model.MoE{Experts: 4, TopK: 2, ExpertFFN: 32},
			Types:     map[string]string{"attention": "q8_0", "experts_gate_up": "q4_0", "experts_down": "q8_0", "router": "f32", "output": "q8_0"}},
		// down: half q8_0 (8.5), half q4_1 (5)
		bits: model.BitsPerWeight{Attention: 8.5, ExpertsUp: 4.5, ExpertsDown: 6.75, Shared: 8.5, Dense: 8.5, Router: 32, Output: 8.5},
		note: "router_skew 0"},
	{file: "llama-dense.gguf",
		arch: model.Arch{Layers: 2, Pattern: "F", Hidden: 32, Vocab: 128,
			Attention: model.SoftmaxAttention{Heads: 4, KVHeads: 2, HeadDim: 8},
			MoE:       model.MoE{DenseLayers: 2, DenseFFN: 96},
			Types:     map[string]string{"attention": "f16", "dense_ffn": "q5_0", "output": "q8_0"}},
		// gate and up q5_0 (5.5), down q8_0 (8.5)
		bits: model.BitsPerWeight{Attention: 16, ExpertsUp: 16, ExpertsDown: 16, Shared: 16, Dense: 6.5, Router: 16, Output: 8.5},
		note: "dense model: dense_layers = layers (2)"},
	{file: "llama-mixtral.gguf",
		arch: model.Arch{Layers: 2, Pattern: "F", Hidden: 32, Vocab: 128,
			Attention: model.SoftmaxAttention{Heads: 4, KVHeads: 4, HeadDim: 8},
			MoE:       model.MoE{Experts: 4, TopK: 2, ExpertFFN: 32},
			Types:     map[string]string{"attention": "q8_0", "experts_gate_up": "q5_1", "experts_down": "q5_1", "router": "q8_0", "output": "q8_0"}},
		bits: model.BitsPerWeight{Attention: 8.5, ExpertsUp: 6, ExpertsDown: 6, Shared: 8.5, Dense: 8.5, Router: 8.5, Output: 8.5}},
	{file: "phi3.gguf",
		arch: model.Arch{Layers: 2, Pattern: "F", Hidden: 32, Vocab: 128,
			Attention: model.SoftmaxAttention{Heads: 4, KVHeads: 4, HeadDim: 8},
			MoE:       model.MoE{DenseLayers: 2, DenseFFN: 96},
			Types:     map[string]string{"attention": "q8_0", "dense_ffn": "q4_0", "output": "q8_0"}},
		// fused gate+up q4_0 (2/3 of the weights), down q8_0
		bits: model.BitsPerWeight{Attention: 8.5, ExpertsUp: 8.5, ExpertsDown: 8.5, Shared: 8.5, Dense: (2*4.5 + 8.5) / 3, Router: 8.5, Output: 8.5},
		note: "phi3.attention.sliding_window 2047 is ignored"},
	{file: "gemma.gguf",
		arch: model.Arch{Layers: 2, Pattern: "F", Hidden: 32, Vocab: 128,
			Attention: model.SoftmaxAttention{Heads: 4, KVHeads: 1, HeadDim: 32},
			MoE:       model.MoE{DenseLayers: 2, DenseFFN: 128},
			Types:     map[string]string{"attention": "q8_0", "dense_ffn": "q4_0", "output": "q8_0"}},
		bits: model.BitsPerWeight{Attention: 8.5, ExpertsUp: 8.5, ExpertsDown: 8.5, Shared: 8.5, Dense: 4.5, Router: 8.5, Output: 8.5},
		note: "token_embd.weight (tied)"},
	{file: "gemma2.gguf",
		arch: model.Arch{Layers: 4, Pattern: "SF", Hidden: 32, Vocab: 128,
			Attention: model.SoftmaxAttention{Heads: 2, KVHeads: 1, HeadDim: 32, SlidingWindow: 32},
			MoE:       model.MoE{DenseLayers: 4, DenseFFN: 64},
			Types:     map[string]string{"attention": "q8_0", "dense_ffn": "q4_0", "output": "q8_0"}},
		bits: model.BitsPerWeight{Attention: 8.5, ExpertsUp: 8.5, ExpertsDown: 8.5, Shared: 8.5, Dense: 4.5, Router: 8.5, Output: 8.5}},
	{file: "gemma3.gguf",
		arch: model.Arch{Layers: 7, Pattern: "SSSSSF", Hidden: 32, Vocab: 128,
			Attention: model.SoftmaxAttention{Heads: 2, KVHeads: 1, HeadDim: 16, SlidingWindow: 512},
			MoE:       model.MoE{DenseLayers: 7, DenseFFN: 64},
			Types:     map[string]string{"attention": "q8_0", "dense_ffn": "q4_0", "output": "q8_0"}},
		// one layer's attention bf16 (16), six q8_0 (8.5)
		bits: model.BitsPerWeight{Attention: (16 + 6*8.5) / 7, ExpertsUp: (16 + 6*8.5) / 7, ExpertsDown: (16 + 6*8.5) / 7,
			Shared: (16 + 6*8.5) / 7, Dense: 4.5, Router: (16 + 6*8.5) / 7, Output: 8.5}},
	{file: "qwen2.gguf",
		arch: model.Arch{Layers: 2, Pattern: "F", Hidden: 32, Vocab: 128,
			Attention: model.SoftmaxAttention{Heads: 4, KVHeads: 2, HeadDim: 8},
			MoE:       model.MoE{DenseLayers: 2, DenseFFN: 96},
			Types:     map[string]string{"attention": "q8_0", "dense_ffn": "q8_0", "output": "q8_0"}},
		bits: model.BitsPerWeight{Attention: 8.5, ExpertsUp: 8.5, ExpertsDown: 8.5, Shared: 8.5, Dense: 8.5, Router: 8.5, Output: 8.5}},
	{file: "qwen3.gguf",
		arch: model.Arch{Layers: 2, Pattern: "F", Hidden: 32, Vocab: 128,
			Attention: model.SoftmaxAttention{Heads: 4, KVHeads: 2, HeadDim: 32},
			MoE:       model.MoE{DenseLayers: 2, DenseFFN: 96},
			Types:     map[string]string{"attention": "q8_0", "dense_ffn": "q4_0", "output": "q8_0"}},
		bits: model.BitsPerWeight{Attention: 8.5, ExpertsUp: 8.5, ExpertsDown: 8.5, Shared: 8.5, Dense: 4.5, Router: 8.5, Output: 8.5}},
	{file: "qwen2moe.gguf",
		arch: model.Arch{Layers: 2, Pattern: "F", Hidden: 32, Vocab: 128,
			Attention: model.SoftmaxAttention{Heads: 4, KVHeads: 4, HeadDim: 8},
			MoE:       model.MoE{Experts: 4, TopK: 2, ExpertFFN: 32, SharedExperts: 1, SharedFFN: 96},
			Types:     map[string]string{"attention": "q8_0", "experts_gate_up": "q4_0", "experts_down": "q8_0", "shared": "q8_0", "router": "f32", "output": "q8_0"}},
		bits: model.BitsPerWeight{Attention: 8.5, ExpertsUp: 4.5, ExpertsDown: 8.5, Shared: 8.5, Dense: 8.5, Router: 32, Output: 8.5}},
	{file: "gpt-oss.gguf",
		arch: model.Arch{Layers: 2, Pattern: "SF", Hidden: 32, Vocab: 128,
			Attention: model.SoftmaxAttention{Heads: 8, KVHeads: 2, HeadDim: 16, SlidingWindow: 128},
			MoE:       model.MoE{Experts: 4, TopK: 2, ExpertFFN: 64},
			Types:     map[string]string{"attention": "q8_0", "experts_gate_up": "mxfp4", "experts_down": "mxfp4", "router": "f32", "output": "q8_0"}},
		bits: model.BitsPerWeight{Attention: 8.5, ExpertsUp: 4.25, ExpertsDown: 4.25, Shared: 8.5, Dense: 8.5, Router: 32, Output: 8.5}},
	{file: "qwen35moe.gguf",
		arch: model.Arch{Layers: 4, Pattern: "LLLF", Hidden: 32, Vocab: 128,
			Attention: model.SoftmaxAttention{Heads: 2, KVHeads: 1, HeadDim: 32, QGate: true},
			MoE:       model.MoE{Experts: 4, TopK: 2, ExpertFFN: 32, SharedExperts: 1, SharedFFN: 32},
			Types:     map[string]string{"attention": "q8_0", "experts_gate_up": "q4_0", "experts_down": "q4_0", "shared": "q8_0", "router": "f32", "output": "q8_0"}},
		// in 2x2x16 q, k + 2x32 v, z + 2x2 beta, alpha = 132
		linear: &model.LinearAttention{InProjOut: 132, OutProjIn: 32, ValueHeads: 2, KeyDim: 16, ValueDim: 16, ConvKernel: 4}},
	{file: "qwen3next.gguf",
		arch: model.Arch{Layers: 4, Pattern: "LLLF", Hidden: 32, Vocab: 128,
			Attention: model.SoftmaxAttention{Heads: 2, KVHeads: 1, HeadDim: 32, QGate: true},
			MoE:       model.MoE{Experts: 4, TopK: 2, ExpertFFN: 32, SharedExperts: 1, SharedFFN: 32},
			Types:     map[string]string{"attention": "q8_0", "experts_gate_up": "q4_0", "experts_down": "q4_0", "shared": "q8_0", "router": "f32", "output": "q8_0"}},
		linear: &model.LinearAttention{InProjOut: 132, OutProjIn: 32, ValueHeads: 2, KeyDim: 16, ValueDim: 16, ConvKernel: 4}},
}

func readFixture(t *testing.T, name string) *Model {
	t.Helper()
	m, err := Read(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMapFixtures(t *testing.T) {
	for _, tc := range fixtureWant {
		t.Run(tc.file, func(t *testing.T) {
			m := readFixture(t, tc.file)
			mp, err := m.Map()
			if err != nil {
				t.Fatal(err)
			}
			got := mp.Workload.Model
			if tc.linear != nil {
				if got.Linear == nil || *got.Linear != *tc.linear {
					t.Errorf("linear attention %+v, want %+v", got.Linear, tc.linear)
				}
				tc.bits = got.BitsPerWeight // checked by the weight check below
			}
			if !near(got.BitsPerWeight, tc.bits) {
				t.Errorf("bits per weight\n got %+v\nwant %+v", got.BitsPerWeight, tc.bits)
			}
			want := tc.arch
			want.Linear, want.BitsPerWeight = got.Linear, got.BitsPerWeight
			if !reflect.DeepEqual(got, want) {
				t.Errorf("arch\n got %+v\nwant %+v", got, want)
			}
			if tc.note != "" && !strings.Contains(strings.Join(mp.Notes, "|"), tc.note) {
				t.Errorf("no note says %q: %q", tc.note, mp.Notes)
			}
			// The ops multiply exactly the file's bytes, class by class.
			w := mp.Workload
			for _, o := range w.Ops(w.Run.Ubatches() - 1) {
				if o.Kind == model.Matmul || o.Kind == model.ExpertMatmul {
					if o.WeightBytes <= 0 {
						t.Errorf("op %s has no weights", o.Name)
					}
				}
			}
			if err := w.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func near(a, b model.BitsPerWeight) bool {
	x, y := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := 0; i < x.NumField(); i++ {
		if d := x.Field(i).Float() - y.Field(i).Float(); d > 1e-12 || d < -1e-12 {
			return false
		}
	}
	return true
}

// TestMapWeightBytes: the ops' weight bytes add up to the bytes of the
// tensors they stand for, for every fixture.
func TestMapWeightBytes(t *testing.T) {
	for _, tc := range fixtureWant {
		m := readFixture(t, tc.file)
		mp, err := m.Map()
		if err != nil {
			t.Fatal(err)
		}
		w := *mp.Workload
		w.Run = model.Run{PromptTokens: 1, Ubatch: 1}
		got := map[Class]float64{}
		for _, o := range w.Ops(0) {
			if o.Kind == model.Matmul || o.Kind == model.ExpertMatmul {
				got[opClass[strings.TrimPrefix(o.Name, "blk."+strconv.Itoa(o.Layer)+".")]] += o.WeightBytes
			}
		}
		for _, c := range mp.Classes {
			if !isTimed(c.Class) {
				continue
			}
			if d := got[c.Class] - float64(c.Bytes); d > 1e-6*float64(c.Bytes)+1e-9 || d < -1e-6*float64(c.Bytes)-1e-9 {
				t.Errorf("%s %s: ops weigh %.1f bytes, tensors %d", tc.file, c.Class, got[c.Class], c.Bytes)
			}
		}
	}
}

// TestMapErrors: what blsim cannot map is a one-line error naming the key
// or tensor; it never guesses.
func TestMapErrors(t *testing.T) {
	base := func() *builder { return qwen3moeBuilder(2) }
	ds := func() *builder {
		return newBuilder("deepseek2").u32("deepseek2.block_count", 1).u32("deepseek2.embedding_length", 64).
			u32("deepseek2.attention.head_count", 4).u32("deepseek2.attention.head_count_kv", 4).
			u32("deepseek2.attention.key_length", 24).u32("deepseek2.attention.value_length", 16).
			u32("deepseek2.attention.kv_lora_rank", 32).u32("deepseek2.rope.dimension_count", 8).
			u32("deepseek2.expert_count", 4).u32("deepseek2.expert_used_count", 2).tensor("token_embd.weight", 8, 64, 100)
	}
	for _, tc := range []struct {
		name string
		b    *builder
		want string
	}{
		{"unknown architecture", base().set("general.architecture", String, "mamba2"),
			`general.architecture: "mamba2" is not an architecture blsim maps (it maps deepseek2, gemma, gemma2, gemma3, gpt-oss, llama, phi3, qwen2, qwen2moe, qwen3, qwen35moe, qwen3moe, qwen3next)`},
		{"no architecture", base().drop("general.architecture"), "general.architecture: missing"},
		{"architecture not a string", base().set("general.architecture", Uint32, uint64(1)), "general.architecture: is a u32, not a string"},
		{"no block count", base().drop("qwen3moe.block_count"), "qwen3moe.block_count: missing (the number of layers)"},
		{"no hidden", base().drop("qwen3moe.embedding_length"), "qwen3moe.embedding_length: missing"},
		{"no heads", base().drop("qwen3moe.attention.head_count"), "qwen3moe.attention.head_count: missing"},
		{"no top-k", base().drop("qwen3moe.expert_used_count"), "qwen3moe.expert_used_count: missing (the experts each token routes to)"},
		{"no experts", base().drop("qwen3moe.expert_count"), "qwen3moe.expert_count: missing (qwen3moe routes to experts)"},
		{"top-k over experts", base().set("qwen3moe.expert_used_count", Uint32, uint64(129)), "129 is outside [1, 128 experts]"},
		{"a width of the wrong type", base().set("qwen3moe.embedding_length", String, "2048"), `qwen3moe.embedding_length: is "2048" (string), not an integer`},
		{"a negative width", base().set("qwen3moe.embedding_length", Int32, int64(-1)), "qwen3moe.embedding_length: -1 is outside"},
		{"expert width disagrees with the tensors", base().set("qwen3moe.expert_feed_forward_length", Uint32, uint64(512)),
			"qwen3moe.expert_feed_forward_length: 512, but tensor blk.0.ffn_gate_exps.weight is 768 wide"},
		{"kv heads do not divide", base().set("qwen3moe.attention.head_count_kv", Uint32, uint64(5)), "5 KV heads do not divide 32 heads"},
		{"key and value widths differ", base().set("qwen3moe.attention.value_length", Uint32, uint64(64)), "differs from the key width 128"},
		{"heads vary per layer", base().set("qwen3moe.attention.head_count", Array, arr(Uint32, uint64(32), uint64(16))),
			"qwen3moe.attention.head_count: varies per layer (16 at layer 1, 32 before)"},
		{"per-layer array of the wrong length", base().set("qwen3moe.attention.head_count", Array, arr(Uint32, uint64(32))),
			"an array of 1 values for 2 layers"},
		{"shape the tensors do not have", base().set("qwen3moe.attention.head_count_kv", Uint32, uint64(8)),
			"tensors of class attention: hold 37748736 weights in 8 tensors, but the shape mapped from the qwen3moe keys multiplies 41943040 (layers 2, pattern F, hidden 2048, heads 32/8 of 128"},
		{"no output head", func() *builder {
			b := base()
			b.tensors = b.tensors[3:]
			return b
		}(), "output.weight: missing, and no token_embd.weight to tie it to"},
		{"dense arch with experts", newBuilder("qwen3").u32("qwen3.block_count", 1).u32("qwen3.embedding_length", 64).
			u32("qwen3.attention.head_count", 4).u32("qwen3.expert_count", 8).tensor("token_embd.weight", 8, 64, 100), "qwen3.expert_count: 8, but llama.cpp's qwen3 has no experts"},
		{"MLA without its latent rank", ds().drop("deepseek2.attention.kv_lora_rank"),
			"deepseek2.attention.kv_lora_rank: missing (deepseek2 uses multi-head latent attention: the rank of its key-value latent)"},
		{"MLA without its rotary width", ds().drop("deepseek2.rope.dimension_count"), "deepseek2.rope.dimension_count: missing"},
		{"MLA rotary as wide as the key", ds().set("deepseek2.rope.dimension_count", Uint32, uint64(24)), "24 is not below the key width 24"},
		{"MLA with fewer KV heads", ds().set("deepseek2.attention.head_count_kv", Uint32, uint64(2)), "2 KV heads of 4: multi-head latent attention has one latent"},
		{"gemma3 without a window", newBuilder("gemma3").u32("gemma3.block_count", 6).u32("gemma3.embedding_length", 64).
			u32("gemma3.attention.head_count", 4).u32("gemma3.feed_forward_length", 64).tensor("token_embd.weight", 8, 64, 100),
			"gemma3.attention.sliding_window: missing (gemma3 has sliding-window layers)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := tc.b.model(t, "bad.gguf")
			if err == nil {
				_, err = m.Workload()
			}
			wantErr(t, err, tc.want)
			if !strings.HasPrefix(err.Error(), "bad.gguf: ") {
				t.Errorf("error %q does not name the file", err)
			}
			var ke *KeyError
			if !errors.As(err, &ke) {
				t.Errorf("%T is not a *KeyError", err)
			}
		})
	}
}

// TestDeepSeekMLA: DeepSeek's multi-head latent attention maps to
// model.Arch's MLA fields, its ops weigh what the file holds (Map checks
// every class's weight count), and a token's KV cache is the latent and
// the rotary key once a position, not a key and a value per head.
func TestDeepSeekMLA(t *testing.T) {
	m := readFixture(t, "deepseek2.gguf")
	w, err := m.Workload()
	if err != nil {
		t.Fatal(err)
	}
	a := w.Model.Attention
	want := model.SoftmaxAttention{Heads: 4, KVHeads: 4, HeadDim: 24, ValueDim: 16, KVLoraRank: 32, RopeDim: 8}
	if a != want {
		t.Fatalf("attention %+v, want %+v", a, want)
	}
	if e := w.Model.MoE; e.Experts != 4 || e.TopK != 2 || e.SharedExperts != 1 || e.DenseLayers != 1 || e.DenseFFN != 96 {
		t.Errorf("moe %+v", e)
	}
	names := map[string]model.Op{}
	for _, o := range w.TokenOps(100) {
		if o.Layer == 1 {
			names[strings.TrimPrefix(o.Name, "blk.1.")] = o
		}
	}
	for name, io := range map[string][2]int{"attn_q": {32, 96}, "attn_kv_a": {32, 40}, "attn_kv_b": {32, 128}, "attn_output": {64, 32}} {
		if o, ok := names[name]; !ok || o.In != io[0] || o.Out != io[1] {
			t.Errorf("%s: %+v, want %d -> %d", name, o, io[0], io[1])
		}
	}
	if _, ok := names["attn_qkv"]; ok {
		t.Error("an MLA layer has a fused qkv op")
	}
	// At depth 100 a token reads 101 positions of f16 latent (32) and
	// rotary key (8): 2*40*101 bytes, plus its own activations.
	sc := names["attn_scores"]
	if kv := 2.0 * 40 * 101; sc.ActBytes < kv || sc.ActBytes > kv+8*4*40 {
		t.Errorf("scores read %g bytes, want the latent cache %g plus the query's", sc.ActBytes, kv)
	}
	mha := *w
	mha.Model.Attention = model.SoftmaxAttention{Heads: 4, KVHeads: 4, HeadDim: 24}
	for _, o := range mha.TokenOps(100) {
		if o.Layer == 1 && o.Kind == model.AttentionScores && !(o.ActBytes > sc.ActBytes) {
			t.Errorf("the same heads without the latent read %g bytes, the latent %g", o.ActBytes, sc.ActBytes)
		}
	}
	if err := w.Validate(); err != nil {
		t.Errorf("the mapped workload does not validate: %v", err)
	}
	d, err := m.Describe(16)
	if err != nil {
		t.Fatal(err)
	}
	if d.Workload == nil || d.Unmapped != "" {
		t.Errorf("workload %v, unmapped %q", d.Workload, d.Unmapped)
	}
	// one MoE layer: gate, up q4_0 32x32 each, down q8_0 32x32, per expert
	if e := d.Experts; e == nil || e.GateUp != 2*32*32*4.5/8 || e.Down != 32*32*8.5/8 {
		t.Errorf("one expert: %+v", d.Experts)
	}
}

// TestPatterns: llama.cpp's sliding-window and recurrent-layer rules,
// and their per-layer overrides.
func TestPatterns(t *testing.T) {
	gemma := func(layers int) *builder {
		return newBuilder("gemma3").u32("gemma3.block_count", uint64(layers)).u32("gemma3.embedding_length", 64).
			u32("gemma3.attention.head_count", 4).u32("gemma3.feed_forward_length", 64).
			u32("gemma3.attention.sliding_window", 1024).tensor("token_embd.weight", 8, 64, 100)
	}
	for _, tc := range []struct {
		name string
		b    *builder
		want string
	}{
		{"gemma3 period 6", gemma(12), "SSSSSF"},
		{"gemma3 period from the key", gemma(8).u32("gemma3.attention.sliding_window_pattern", 4), "SSSF"},
		{"period 1: no sliding layer", gemma(8).u32("gemma3.attention.sliding_window_pattern", 1), "F"},
		{"period 0: every layer slides", gemma(8).u32("gemma3.attention.sliding_window_pattern", 0), "S"},
		{"one bool per layer", gemma(5).kv("gemma3.attention.sliding_window_pattern", Array, arr(Bool, true, false, false, true, false)), "SFF"}, // SFFSF repeats SFF
		{"window 0", gemma(6).set("gemma3.attention.sliding_window", Uint32, uint64(0)), "F"},
		{"gemma2 default window", newBuilder("gemma2").u32("gemma2.block_count", 3).u32("gemma2.embedding_length", 64).
			u32("gemma2.attention.head_count", 4).u32("gemma2.feed_forward_length", 64).tensor("token_embd.weight", 8, 64, 100), "SF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := tc.b.model(t, "p.gguf")
			if err != nil {
				t.Fatal(err)
			}
			s, err := m.mapArch()
			if err != nil {
				t.Fatal(err)
			}
			if s.arch.Pattern != tc.want {
				t.Errorf("pattern %q, want %q", s.arch.Pattern, tc.want)
			}
		})
	}
	if got := period([]byte("LLLFLLLFLL")); got != "LLLF" {
		t.Errorf("period = %q", got)
	}
}

// TestOldMixtralLayout: an early Mixtral GGUF stores each expert as its
// own tensor (blk.N.ffn_gate.E.weight); it maps as the merged layout does.
func TestOldMixtralLayout(t *testing.T) {
	merged := readFixture(t, "llama-mixtral.gguf")
	want, err := merged.Workload()
	if err != nil {
		t.Fatal(err)
	}
	b := newBuilder("llama")
	for _, kv := range merged.File.KVs {
		if n, ok := kv.Value.Int(); ok && kv.Value.Type == Uint32 {
			b.u32(kv.Key, uint64(n))
		}
	}
	for _, te := range merged.File.Tensors {
		base := strings.TrimSuffix(te.Name, "_exps.weight")
		if base == te.Name {
			b.tensor(te.Name, te.Type, te.Dims...)
			continue
		}
		for e := int64(0); e < te.Dims[2]; e++ {
			b.tensor(base+"."+strconv.FormatInt(e, 10)+".weight", te.Type, te.Dims[:2]...)
		}
	}
	m, err := b.model(t, "old-mixtral.gguf")
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Workload()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Model, want.Model) {
		t.Errorf("per-expert layout\n got %+v\nwant %+v", got.Model, want.Model)
	}
}

// TestExtraBlocks: MTP/NextN blocks past block_count are not in the ops
// and are said to be left out.
func TestExtraBlocks(t *testing.T) {
	b := qwen35Builder().u32("qwen35moe.nextn_predict_layers", 1).
		tensor("blk.40.attn_q.weight", 8, 2048, 8192).tensor("blk.40.nextn.eh_proj.weight", 8, 4096, 2048)
	m, err := b.model(t, "mtp.gguf")
	if err != nil {
		t.Fatal(err)
	}
	mp, err := m.Map()
	if err != nil {
		t.Fatal(err)
	}
	if mp.Workload.Model.Layers != 40 || !strings.Contains(strings.Join(mp.Notes, "|"), "2 tensors in blocks past block_count 40") {
		t.Errorf("%d layers, notes %q", mp.Workload.Model.Layers, mp.Notes)
	}
}

// TestDeepSeekV3Layout: the full models' layout, queries through a q LoRA
// and attn_kv_b stored as attn_k_b and attn_v_b (llama.cpp's MLA GGUFs),
// maps with the same weights, at DeepSeek-V3's attention widths.
func TestDeepSeekV3Layout(t *testing.T) {
	const d, heads, hd, rope, vd, kvr, qr, E, K, ff, vocab = 7168, 128, 192, 64, 128, 512, 1536, 16, 4, 2048, 1024
	const q4k, f32 = Type(12), Type(0)
	b := newBuilder("deepseek2").u32("deepseek2.block_count", 2).u32("deepseek2.embedding_length", d).
		u32("deepseek2.attention.head_count", heads).u32("deepseek2.attention.head_count_kv", heads).
		u32("deepseek2.attention.key_length", hd).u32("deepseek2.attention.value_length", vd).
		u32("deepseek2.attention.kv_lora_rank", kvr).u32("deepseek2.attention.q_lora_rank", qr).
		u32("deepseek2.rope.dimension_count", rope).u32("deepseek2.leading_dense_block_count", 1).
		u32("deepseek2.feed_forward_length", 18432).u32("deepseek2.expert_count", E).u32("deepseek2.expert_used_count", K).
		u32("deepseek2.expert_shared_count", 1).u32("deepseek2.expert_feed_forward_length", ff)
	b.tensor("token_embd.weight", q4k, d, vocab).tensor("output_norm.weight", f32, d).tensor("output.weight", q4k, d, vocab)
	for i := 0; i < 2; i++ {
		p := "blk." + strconv.Itoa(i) + "."
		b.tensor(p+"attn_norm.weight", f32, d).
			tensor(p+"attn_q_a.weight", q4k, d, qr).tensor(p+"attn_q_a_norm.weight", f32, qr).
			tensor(p+"attn_q_b.weight", q4k, qr, heads*hd).
			tensor(p+"attn_kv_a_mqa.weight", q4k, d, kvr+rope).tensor(p+"attn_kv_a_norm.weight", f32, kvr).
			tensor(p+"attn_k_b.weight", Type(8), hd-rope, kvr, heads).
			tensor(p+"attn_v_b.weight", Type(8), kvr, vd, heads).
			tensor(p+"attn_output.weight", q4k, heads*vd, d).
			tensor(p+"ffn_norm.weight", f32, d)
		if i == 0 {
			b.tensor(p+"ffn_gate.weight", q4k, d, 18432).tensor(p+"ffn_up.weight", q4k, d, 18432).tensor(p+"ffn_down.weight", q4k, 18432, d)
			continue
		}
		b.tensor(p+"ffn_gate_inp.weight", f32, d, E).
			tensor(p+"ffn_gate_exps.weight", q4k, d, ff, E).tensor(p+"ffn_up_exps.weight", q4k, d, ff, E).
			tensor(p+"ffn_down_exps.weight", q4k, ff, d, E).
			tensor(p+"ffn_gate_shexp.weight", q4k, d, ff).tensor(p+"ffn_up_shexp.weight", q4k, d, ff).
			tensor(p+"ffn_down_shexp.weight", q4k, ff, d)
	}
	m, err := b.model(t, "DeepSeek-V3-like.gguf")
	if err != nil {
		t.Fatal(err)
	}
	w, err := m.Workload()
	if err != nil {
		t.Fatal(err)
	}
	a := w.Model.Attention
	if !a.MLA() || a.QLoraRank != qr || a.KVLoraRank != kvr || a.RopeDim != rope || a.VDim() != vd || a.HeadDim != hd {
		t.Errorf("attention %+v", a)
	}
	got := map[string]bool{}
	for _, o := range w.Ops(0) {
		got[strings.TrimPrefix(o.Name, "blk.1.")] = true
	}
	for _, name := range []string{"attn_q_a", "attn_q_b", "attn_kv_a", "attn_kv_b"} {
		if !got[name] {
			t.Errorf("no %s op", name)
		}
	}
	if got["attn_q"] {
		t.Error("a q LoRA model also projects queries directly")
	}
}
