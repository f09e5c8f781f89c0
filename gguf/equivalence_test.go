package gguf

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// sameOps reports where two workloads' ops differ: the simulator sees a
// workload only through its ops, so equal ops are equal predictions.
func sameOps(t *testing.T, got, want *model.Workload) {
	t.Helper()
	if got.Run != want.Run {
		t.Fatalf("runs differ: %+v and %+v", got.Run, want.Run)
	}
	for u := 0; u < want.Run.Ubatches(); u++ {
		g, w := got.Ops(u), want.Ops(u)
		if len(g) != len(w) {
			t.Fatalf("ubatch %d: %d ops, want %d", u, len(g), len(w))
		}
		for i := range w {
			if !reflect.DeepEqual(g[i], w[i]) {
				t.Fatalf("ubatch %d op %d:\n got %+v\nwant %+v", u, i, g[i], w[i])
			}
		}
	}
}

// withoutTypes is the arch with Types cleared (hand-written workloads
// have none).
func withoutTypes(a model.Arch) model.Arch {
	a.Types = nil
	return a
}

// TestLlamaCppMoEFile: the random-weight GGUF that llama-bench timed for
// calibrate/fit/testdata/llamacpp maps to that directory's hand-written
// workload exactly, so --gguf gives the same predictions to the digit.
func TestLlamaCppMoEFile(t *testing.T) {
	const path = "/work/llama-data/moe-q8.gguf"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s absent (scripts/llamacpp/make_moe_gguf.py writes it)", path)
	}
	m, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); m.File.DataEnd != st.Size() || len(m.Notes) != 0 {
		t.Errorf("data ends at %d of %d bytes; notes %q", m.File.DataEnd, st.Size(), m.Notes)
	}
	got, err := m.Workload()
	if err != nil {
		t.Fatal(err)
	}
	want, err := model.LoadWorkloadFile("../calibrate/fit/testdata/llamacpp/workload.yaml")
	if err != nil {
		t.Skipf("the hand-written workload: %v", err)
	}
	// The hand-written workload also gives llama.cpp's graph node count,
	// which its log prints and a GGUF header does not hold.
	if want.Model.GraphNodes != 382 {
		t.Errorf("graph_nodes %d, want llama.cpp's 382", want.Model.GraphNodes)
	}
	want.Model.GraphNodes = 0
	if !reflect.DeepEqual(withoutTypes(got.Model), want.Model) {
		t.Fatalf("model\n got %+v\nwant %+v", got.Model, want.Model)
	}
	for c, ty := range got.Model.Types {
		if ty != "q8_0" {
			t.Errorf("%s is %s, want q8_0", c, ty)
		}
	}
	got.Run = want.Run
	sameOps(t, got, want)
}

// TestLlamaCppDenseFile: the larger random-weight GGUF (named dense-q8,
// in fact 8 experts all routed to) maps as its name in general.name says.
func TestLlamaCppDenseFile(t *testing.T) {
	const path = "/work/llama-data/dense-q8.gguf"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s absent", path)
	}
	m, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := m.Workload()
	if err != nil {
		t.Fatal(err)
	}
	a := w.Model
	if a.Layers != 12 || a.Hidden != 2048 || a.Vocab != 4096 || a.Attention != (model.SoftmaxAttention{Heads: 16, KVHeads: 4, HeadDim: 128}) ||
		a.MoE != (model.MoE{Experts: 8, TopK: 8, ExpertFFN: 2048}) || a.BitsPerWeight.ExpertsUp != 8.5 {
		t.Errorf("mapped %+v", a)
	}
}

// qwen35Builder is the header of Qwen3.5-35B-A3B as llama.cpp's qwen35moe
// loader lays it out, at the seed preset's quantisation: attention,
// Gated DeltaNet and shared expert Q8_0, routed gate/up Q4_K, routed down
// Q6_K, router f32, output Q6_K. Header only: the shapes are real.
func qwen35Builder() *builder {
	const d, layers, heads, kv, hd, E, K, ff, vocab = 2048, 40, 16, 2, 256, 256, 8, 512, 248320
	const kHeads, vHeads, state, inner = 16, 32, 128, 4096
	const f32, q8, q4k, q6k = Type(0), Type(8), Type(12), Type(14)
	p := "qwen35moe."
	b := newBuilder("qwen35moe").str("general.name", "Qwen3.5-35B-A3B").
		u32(p+"block_count", layers).u32(p+"embedding_length", d).
		u32(p+"attention.head_count", heads).u32(p+"attention.head_count_kv", kv).
		u32(p+"attention.key_length", hd).u32(p+"attention.value_length", hd).
		u32(p+"expert_count", E).u32(p+"expert_used_count", K).
		u32(p+"expert_feed_forward_length", ff).u32(p+"expert_shared_feed_forward_length", ff).
		u32(p+"ssm.conv_kernel", 4).u32(p+"ssm.state_size", state).u32(p+"ssm.group_count", kHeads).
		u32(p+"ssm.time_step_rank", vHeads).u32(p+"ssm.inner_size", inner).u32(p+"full_attention_interval", 4)
	b.tensor("token_embd.weight", q6k, d, vocab).tensor("output_norm.weight", f32, d).tensor("output.weight", q6k, d, vocab)
	for i := 0; i < layers; i++ {
		l := "blk." + strconv.Itoa(i) + "."
		b.tensor(l+"attn_norm.weight", f32, d).tensor(l+"post_attention_norm.weight", f32, d)
		if (i+1)%4 == 0 {
			b.tensor(l+"attn_q.weight", q8, d, 2*heads*hd).tensor(l+"attn_k.weight", q8, d, kv*hd).
				tensor(l+"attn_v.weight", q8, d, kv*hd).tensor(l+"attn_output.weight", q8, heads*hd, d).
				tensor(l+"attn_q_norm.weight", f32, hd).tensor(l+"attn_k_norm.weight", f32, hd)
		} else {
			b.tensor(l+"attn_qkv.weight", q8, d, 2*kHeads*state+inner).tensor(l+"attn_gate.weight", q8, d, inner).
				tensor(l+"ssm_conv1d.weight", f32, 4, 2*kHeads*state+inner).tensor(l+"ssm_dt.bias", f32, vHeads).
				tensor(l+"ssm_a", f32, vHeads).tensor(l+"ssm_beta.weight", q8, d, vHeads).tensor(l+"ssm_alpha.weight", q8, d, vHeads).
				tensor(l+"ssm_norm.weight", f32, state).tensor(l+"ssm_out.weight", q8, inner, d)
		}
		b.tensor(l+"ffn_gate_inp.weight", f32, d, E).
			tensor(l+"ffn_gate_exps.weight", q4k, d, ff, E).tensor(l+"ffn_up_exps.weight", q4k, d, ff, E).
			tensor(l+"ffn_down_exps.weight", q6k, ff, d, E).
			tensor(l+"ffn_gate_inp_shexp.weight", f32, d).
			tensor(l+"ffn_gate_shexp.weight", q8, d, ff).tensor(l+"ffn_up_shexp.weight", q8, d, ff).tensor(l+"ffn_down_shexp.weight", q8, ff, d)
	}
	return b
}

// TestSeedFromGGUF: the seed's model, read from a Qwen3.5-35B-A3B GGUF
// header at the preset's quantisation, is the qwen3.5-35b-a3b preset op
// for op, so the seed reproduces from the GGUF. (A real file keeps small
// tensors such as ssm_beta in f32 or bf16, which moves attention's bits
// off 8.5 by a little; the preset rounds that away.)
func TestSeedFromGGUF(t *testing.T) {
	m, err := qwen35Builder().model(t, "Qwen3.5-35B-A3B.gguf")
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Workload()
	if err != nil {
		t.Fatal(err)
	}
	want, err := presetWorkload("qwen3.5-35b-a3b")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withoutTypes(got.Model), want.Model) {
		t.Fatalf("model\n got %+v\nwant %+v\nlinear %+v vs %+v", got.Model, want.Model, got.Model.Linear, want.Model.Linear)
	}
	wantTypes := map[string]string{"attention": "q8_0", "experts_gate_up": "q4_k", "experts_down": "q6_k", "shared": "q8_0", "router": "f32", "output": "q6_k"}
	if !reflect.DeepEqual(got.Model.Types, wantTypes) {
		t.Errorf("types %v, want %v", got.Model.Types, wantTypes)
	}
	sameOps(t, got, want)
	// With its types, on the rk3588 preset (which has rates for them and
	// lists the repacked ones), every plan's figures are the preset's to
	// the bit: the types take the same rates as the classes did, and a
	// stock pool cuts the untyped preset's ops as the types say, since the
	// bits of each class are those of repacked types alone.
	soc, err := model.LoadSoCFile(filepath.Join("..", "presets", "socs", "rk3588.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if fb := model.KernelFallbacks(soc, got); len(fb) != 0 {
		t.Errorf("fallbacks %+v", fb)
	}
	for _, p := range []model.Plan{
		model.NewNative("big", 4, 50),
		model.NewPlan(model.TokenSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(0.12), 50),
		model.NewPlan(model.ExpertSplit, []string{"big", "little"}, []int{4, 4}, model.SharesOf(0.12), 0),
		model.NewPool([]string{"big", "little"}, []int{4, 4}, 50),
	} {
		a, err := sim.Run(soc, got, p)
		if err != nil {
			t.Fatal(err)
		}
		b, err := sim.Run(soc, want, p)
		if err != nil {
			t.Fatal(err)
		}
		if a.TPS != b.TPS {
			t.Errorf("%v: %.6g t/s from the GGUF, %.6g from the preset", p, a.TPS, b.TPS)
		}
	}
	if len(m.Notes) != 1 { // a header without data
		t.Errorf("notes %q", m.Notes)
	}
}

// TestWorkloadYAMLRoundTrip: a workload from a GGUF writes as YAML that
// the strict reader takes back unchanged, types included; hand-written
// YAML without types still loads.
func TestWorkloadYAMLRoundTrip(t *testing.T) {
	for _, tc := range fixtureWant {
		m := readFixture(t, tc.file)
		w, err := m.Workload()
		if err != nil {
			t.Fatal(err)
		}
		b, err := model.MarshalWorkload(w)
		if err != nil {
			t.Fatal(err)
		}
		back, err := model.ParseWorkload(b, tc.file+".yaml")
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.file, err, b)
		}
		if !reflect.DeepEqual(back, w) {
			t.Errorf("%s: round trip changed the workload\n got %+v\nwant %+v", tc.file, back, w)
		}
	}
	names, err := filepath.Glob(filepath.Join("..", "presets", "workloads", "*.yaml"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no preset workloads: %v", err)
	}
	untyped := 0
	for _, name := range names {
		w, err := model.LoadWorkloadFile(name)
		if err != nil {
			t.Errorf("preset %s: %v", name, err)
			continue
		}
		if w.Model.Types == nil {
			untyped++
		}
	}
	if untyped == 0 {
		t.Error("no preset without types: the hand-written form is not checked")
	}
}

// presetWorkload reads an embedded preset from its file (package presets
// reads GGUFs through this package, so its tests cannot import it).
func presetWorkload(name string) (*model.Workload, error) {
	w, err := model.LoadWorkloadFile(filepath.Join("..", "presets", "workloads", name+".yaml"))
	if err != nil {
		return nil, err
	}
	return w, nil
}
