package model_test

import (
	"math"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
)

func qwen35(t *testing.T) *model.Workload {
	t.Helper()
	w, err := presets.Workload("qwen3.5-35b-a3b")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestParamsTotalQwen35: the matmul weights add up to the published
// 34.66B parameters less the token embedding, which is a lookup, not a
// matmul (the norms and convolution weights are a rounding error).
func TestParamsTotalQwen35(t *testing.T) {
	w := qwen35(t)
	want := 34.66e9 - 248320*2048
	got := w.ParamsTotal()
	if math.Abs(got-want) > 0.05*want {
		t.Errorf("ParamsTotal = %.4gB, want %.4gB within 5%%", got/1e9, want/1e9)
	}
}

// TestParamsTotalPresets: every workload preset's weights match its
// published size within 10% (embedding excluded where untied).
func TestParamsTotalPresets(t *testing.T) {
	for _, tc := range []struct {
		name    string
		minB    float64
		maxB    float64
		comment string
	}{
		{"qwen3.5-35b-a3b", 32, 36, "34.66B total"},
		{"qwen3-30b-a3b", 28, 31.5, "30.5B total"},
		{"mixtral-8x7b", 42, 47.5, "46.7B total"},
		{"gpt-oss-20b", 18, 22, "20.9B total"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := presets.Workload(tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if got := w.ParamsTotal() / 1e9; got < tc.minB || got > tc.maxB {
				t.Errorf("ParamsTotal = %.3gB, want [%g, %g] (%s)", got, tc.minB, tc.maxB, tc.comment)
			}
		})
	}
}

// TestActiveExpertOpsQwen35: routed experts do top_k * 3 matmuls of
// hidden x expert_ffn per token per layer; in the last layer only for the
// token whose output the prompt asks for.
func TestActiveExpertOpsQwen35(t *testing.T) {
	w := qwen35(t)
	ops := w.Ops(0)
	total, count := 0.0, 0
	for _, o := range ops {
		if o.Kind != model.ExpertMatmul {
			continue
		}
		count++
		total += o.Ops
		tokens := w.Run.Ubatch
		if o.Layer == 39 {
			tokens = 1
		}
		if o.Tokens != tokens || o.WeightBytes != o.ExpertBytes*256 {
			t.Errorf("%s: tokens %d (want %d), weight bytes %g for expert bytes %g", o.Name, o.Tokens, tokens, o.WeightBytes, o.ExpertBytes)
		}
	}
	if count != 40*3 {
		t.Errorf("%d expert matmuls, want 120", count)
	}
	want := (39*512 + 1) * 8 * 3 * 2048 * 512 * 2.0
	if math.Abs(total-want) > 1e-9*want {
		t.Errorf("routed-expert ops %g, want %g", total, want)
	}
}

func TestOutputOnlyInLastUbatch(t *testing.T) {
	w := qwen35(t)
	w.Run.PromptTokens = 1300 // 512 + 512 + 276
	if got := w.Run.Ubatches(); got != 3 {
		t.Fatalf("Ubatches = %d, want 3", got)
	}
	for u := 0; u < 3; u++ {
		outputs := 0
		for _, o := range w.Ops(u) {
			if o.Name == "output" {
				outputs++
				if o.Layer != -1 || o.Tokens != 1 || o.In != 2048 || o.Out != 248320 {
					t.Errorf("output op %+v", o)
				}
			}
		}
		if want := map[bool]int{true: 1, false: 0}[u == 2]; outputs != want {
			t.Errorf("ubatch %d has %d output ops, want %d", u, outputs, want)
		}
	}
	if last := w.Ops(2); last[0].Tokens != 276 {
		t.Errorf("last ubatch has %d tokens, want 276", last[0].Tokens)
	}
}

// TestLayerPatternQwen35: LLLF puts full attention at layers 3, 7, ..., 39
// and Gated DeltaNet everywhere else.
func TestLayerPatternQwen35(t *testing.T) {
	w := qwen35(t)
	kinds := map[int]map[string]bool{}
	for _, o := range w.Ops(0) {
		if o.Layer < 0 {
			continue
		}
		if kinds[o.Layer] == nil {
			kinds[o.Layer] = map[string]bool{}
		}
		name := o.Name[strings.IndexByte(o.Name[4:], '.')+5:] // drop "blk.N."
		kinds[o.Layer][name] = true
	}
	if len(kinds) != 40 {
		t.Fatalf("%d layers, want 40", len(kinds))
	}
	for l := 0; l < 40; l++ {
		full := l%4 == 3
		if got := w.Model.LayerKind(l); got != map[bool]byte{true: 'F', false: 'L'}[full] {
			t.Errorf("LayerKind(%d) = %c", l, got)
		}
		for _, name := range []string{"attn_qkv", "attn_scores", "attn_output"} {
			if kinds[l][name] != full {
				t.Errorf("layer %d: has %s = %v, want %v", l, name, kinds[l][name], full)
			}
		}
		for _, name := range []string{"ssm_in", "ssm_deltanet", "ssm_out"} {
			if kinds[l][name] == full {
				t.Errorf("layer %d: has %s = %v, want %v", l, name, kinds[l][name], !full)
			}
		}
		for _, name := range []string{"attn_norm", "ffn_norm", "ffn_gate_inp", "ffn_gate_exps", "ffn_up_exps", "ffn_down_exps", "ffn_shexp", "ffn_moe_combine"} {
			if !kinds[l][name] {
				t.Errorf("layer %d lacks %s", l, name)
			}
		}
	}
}

// TestLongerContextCostsMore: of two ubatches, the second attends over the
// first's KV cache too, so its attention costs more; weight matmuls do not
// depend on the context. As in llama.cpp (ggml_get_rows with inp_out_ids
// after the last layer's attention), the last layer's FFN runs only for the
// tokens whose output is asked for: none in the first ubatch, the
// prompt's last token in the second, which also runs the output head.
func TestLongerContextCostsMore(t *testing.T) {
	w := qwen35(t)
	w.Run.PromptTokens, w.Run.Ubatch = 1024, 512
	if got := w.Run.Ubatches(); got != 2 {
		t.Fatalf("Ubatches = %d, want 2", got)
	}
	first, second := w.Ops(0), w.Ops(1)
	ffn := []string{"blk.39.ffn_norm", "blk.39.ffn_gate_inp", "blk.39.ffn_gate_exps", "blk.39.ffn_up_exps",
		"blk.39.ffn_down_exps", "blk.39.ffn_shexp", "blk.39.ffn_moe_combine", "output"}
	if len(second) != len(first)+len(ffn) {
		t.Fatalf("%d and %d ops, want the second to add the last layer's FFN and the output", len(first), len(second))
	}
	for i, name := range ffn {
		o := second[len(first)+i]
		if o.Name != name || o.Tokens != 1 {
			t.Errorf("op %d of the last ubatch: %s for %d tokens, want %s for 1", len(first)+i, o.Name, o.Tokens, name)
		}
	}
	if last := first[len(first)-1]; last.Name != "blk.39.attn_output" && last.Name != "blk.39.ssm_out" {
		t.Errorf("the first ubatch ends with %s, want the last layer's attention", last.Name)
	}
	attn := 0
	for i, a := range first {
		b := second[i]
		if a.Name != b.Name || a.Tokens != 512 || b.Tokens != 512 {
			t.Fatalf("op %d: %s (%d tokens) vs %s (%d tokens)", i, a.Name, a.Tokens, b.Name, b.Tokens)
		}
		switch a.Kind {
		case model.AttentionScores:
			attn++
			if !(b.Ops > a.Ops) || !(b.ActBytes > a.ActBytes) {
				t.Errorf("%s: second ubatch ops %g bytes %g, not above first %g %g", a.Name, b.Ops, b.ActBytes, a.Ops, a.ActBytes)
			}
			// Mean context 512+256.5 vs 256.5 tokens.
			if ratio := b.Ops / a.Ops; math.Abs(ratio-768.5/256.5) > 1e-9 {
				t.Errorf("%s: ops ratio %g, want %g", a.Name, ratio, 768.5/256.5)
			}
		default:
			if a != b {
				t.Errorf("%s changed between ubatches: %+v vs %+v", a.Name, a, b)
			}
		}
	}
	if attn != 10 {
		t.Errorf("%d attention ops, want 10", attn)
	}
	// Depth shifts the first ubatch's context the same way.
	w.Run.Depth = 512
	if d := w.Ops(0); d[indexOf(d, "blk.3.attn_scores")].Ops != second[indexOf(second, "blk.3.attn_scores")].Ops {
		t.Errorf("depth 512 does not match the second ubatch's attention")
	}
}

func indexOf(ops []model.Op, name string) int {
	for i, o := range ops {
		if o.Name == name {
			return i
		}
	}
	return -1
}

// TestOpsInvariants runs over every workload preset: ops are well formed
// and the kernel class matches the bits per weight.
func TestOpsInvariants(t *testing.T) {
	for _, name := range presets.WorkloadNames() {
		t.Run(name, func(t *testing.T) {
			w, err := presets.Workload(name)
			if err != nil {
				t.Fatal(err)
			}
			ops := w.Ops(w.Run.Ubatches() - 1)
			experts := 0
			for _, o := range ops {
				if !(o.Ops > 0) || o.ActBytes < 0 || o.WeightBytes < 0 || math.IsInf(o.Ops, 0) {
					t.Errorf("%s: ops %g act %g weights %g", o.Name, o.Ops, o.ActBytes, o.WeightBytes)
				}
				switch o.Kind {
				case model.Matmul:
					if o.WeightBytes <= 0 || o.Class == "" {
						t.Errorf("%s: matmul without weights or class", o.Name)
					}
				case model.ExpertMatmul:
					experts++
					if o.ExpertBytes*float64(w.Model.MoE.Experts) != o.WeightBytes {
						t.Errorf("%s: expert bytes %g x %d != %g", o.Name, o.ExpertBytes, w.Model.MoE.Experts, o.WeightBytes)
					}
				}
			}
			if want := 3 * (w.Model.Layers - w.Model.MoE.DenseLayers); experts != want {
				t.Errorf("%d expert matmuls, want %d", experts, want)
			}
		})
	}
}

func TestKernelClass(t *testing.T) {
	for _, tc := range []struct {
		bpw  float64
		want model.KernelClass
	}{
		{4.25, "q4"}, {4.5, "q4"}, {5.5, "q6"}, {6.5625, "q6"}, {8.5, "q8"}, {16, "f16"}, {32, "f32"},
	} {
		if got := model.KernelClassOf(tc.bpw); got != tc.want {
			t.Errorf("KernelClassOf(%g) = %s, want %s", tc.bpw, got, tc.want)
		}
	}
}

func TestOpKindString(t *testing.T) {
	for k, want := range map[model.OpKind]string{
		model.Matmul: "matmul", model.ExpertMatmul: "expert_matmul", model.AttentionScores: "attention", model.Scalar: "scalar",
	} {
		if got := k.String(); got != want {
			t.Errorf("%d: %s, want %s", k, got, want)
		}
	}
}

// TestMLAOps: a multi-head latent layer projects queries through its q
// LoRA when it has one, keys and values through the latent, and its
// scores read the latent cache; a prompt's scores grow with the depth.
func TestMLAOps(t *testing.T) {
	w := qwen35(t)
	w.Model.Pattern = "F"
	w.Model.Linear = nil
	w.Model.Attention = model.SoftmaxAttention{Heads: 16, KVHeads: 16, HeadDim: 192, ValueDim: 128, KVLoraRank: 512, QLoraRank: 1536, RopeDim: 64}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]int{"attn_q_a": {2048, 1536}, "attn_q_b": {1536, 16 * 192}, "attn_kv_a": {2048, 576},
		"attn_kv_b": {512, 16 * (128 + 128)}, "attn_output": {16 * 128, 2048}}
	got := map[string]model.Op{}
	for _, o := range w.TokenOps(1000) {
		if o.Layer == 0 {
			got[strings.TrimPrefix(o.Name, "blk.0.")] = o
		}
	}
	for name, io := range want {
		if o, ok := got[name]; !ok || o.In != io[0] || o.Out != io[1] {
			t.Errorf("%s: %+v, want %d -> %d", name, o, io[0], io[1])
		}
	}
	if _, ok := got["attn_q"]; ok {
		t.Error("a q LoRA layer also projects queries directly")
	}
	// 1001 positions of an f16 latent and rotary key.
	if sc := got["attn_scores"]; sc.ActBytes < 2*576*1001 || sc.Ops != 2*1*1001*16*(576+512) {
		t.Errorf("scores: %g bytes, %g ops", sc.ActBytes, sc.Ops)
	}
	bad := *w
	bad.Model.Attention.KVHeads = 4
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "model.attention.kv_heads") {
		t.Errorf("MLA with 4 KV heads: %v", err)
	}
	bad = *w
	bad.Model.Attention.KVLoraRank = 0
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "describe multi-head latent attention") {
		t.Errorf("rope and q LoRA without the latent: %v", err)
	}
}
