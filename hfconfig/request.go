package hfconfig

import (
	"fmt"
	"strings"

	"github.com/blsim/blsim/quantize"
	"github.com/spf13/pflag"
)

// Flags are the hyperparameters a command line gives (--layers,
// --hidden...), each over the config's or preset's key of the same
// meaning.
type Flags struct {
	fs                                                  *pflag.FlagSet
	arch                                                string
	layers, hidden, heads, kvHeads, headDim, ffn, vocab int
	experts, topK, expertFFN, window                    int
	tied                                                bool
}

// AddFlags registers the hyperparameter flags on fs.
func AddFlags(fs *pflag.FlagSet) *Flags {
	f := &Flags{fs: fs}
	fs.StringVar(&f.arch, "arch", "", "architecture: a Hugging Face class or model_type (LlamaForCausalLM, qwen2) or llama.cpp's name (llama, phi3)")
	for _, v := range []struct {
		p          *int
		name, help string
	}{
		{&f.layers, "layers", "layers (num_hidden_layers)"}, {&f.hidden, "hidden", "hidden width (hidden_size)"},
		{&f.heads, "heads", "attention heads (num_attention_heads)"}, {&f.kvHeads, "kv-heads", "KV heads (num_key_value_heads)"},
		{&f.headDim, "head-dim", "a head's width (head_dim)"}, {&f.ffn, "ffn", "FFN width (intermediate_size; a Mixtral's expert width)"},
		{&f.vocab, "vocab", "vocabulary (vocab_size)"}, {&f.experts, "experts", "routed experts (num_experts)"},
		{&f.topK, "top-k", "experts a token routes to (num_experts_per_tok)"}, {&f.expertFFN, "expert-ffn", "an expert's FFN width (moe_intermediate_size)"},
		{&f.window, "sliding-window", "sliding window in tokens (sliding_window)"},
	} {
		fs.IntVar(v.p, v.name, 0, v.help)
	}
	fs.BoolVar(&f.tied, "tied", false, "the output head is the token embedding (tie_word_embeddings)")
	return f
}

// overrides is the config the flags given make: only those set.
func (f *Flags) overrides() *Config {
	o := &Config{}
	if f == nil || f.fs == nil {
		return o
	}
	if f.fs.Changed("arch") {
		o.Architectures = []string{f.arch}
	}
	for name, p := range map[string]struct {
		dst **int
		v   int
	}{
		"layers": {&o.Layers, f.layers}, "hidden": {&o.Hidden, f.hidden}, "heads": {&o.Heads, f.heads},
		"kv-heads": {&o.KVHeads, f.kvHeads}, "head-dim": {&o.HeadDim, f.headDim}, "ffn": {&o.FFN, f.ffn},
		"vocab": {&o.Vocab, f.vocab}, "experts": {&o.Experts, f.experts}, "top-k": {&o.TopK, f.topK},
		"expert-ffn": {&o.ExpertFFN, f.expertFFN}, "sliding-window": {&o.SlidingWindow, f.window},
	} {
		if f.fs.Changed(name) {
			v := p.v
			*p.dst = &v
		}
	}
	if f.fs.Changed("tied") {
		t := f.tied
		o.Tied = &t
	}
	return o
}

// Request is what `blsim workloads new` asks for: a model preset or a
// config file (or neither: every key from the flags), the flags over it,
// the scheme and whether the file had an importance matrix.
type Request struct {
	Preset     string
	ConfigFile string
	Flags      *Flags
	Scheme     string
	Imatrix    bool
	// Name is the workload's name (default: the preset's, the config
	// file's, or "model").
	Name string
}

// AddRequestFlags registers a Request's flags on fs: the hyperparameters
// (AddFlags), --config, --scheme, --imatrix and --name.
func AddRequestFlags(fs *pflag.FlagSet) *Request {
	r := &Request{Flags: AddFlags(fs)}
	fs.StringVar(&r.ConfigFile, "config", "", "a Hugging Face config.json (or its keys as YAML); the flags above override its keys")
	fs.StringVar(&r.Scheme, "scheme", "Q4_K_M", "llama.cpp's quantization scheme: "+strings.Join(quantize.Names(), " "))
	fs.BoolVar(&r.Imatrix, "imatrix", false, "the GGUF was quantized with an importance matrix (needed by IQ1/IQ2 and Q2_K_S; changes a few rules)")
	fs.StringVar(&r.Name, "name", "", "the workload's name (default: the preset's or the config file's)")
	return r
}

// Build resolves the request (presets by name through preset) and builds
// the model.
func (r Request) Build(preset func(string) (*Preset, error)) (*Model, error) {
	if r.Preset != "" && r.ConfigFile != "" {
		return nil, fmt.Errorf("give a model preset or --config, not both")
	}
	s, err := quantize.Parse(r.Scheme)
	if err != nil {
		return nil, fmt.Errorf("--scheme: %w", err)
	}
	c := &Config{File: "the flags"}
	name := "model"
	switch {
	case r.Preset != "":
		p, err := preset(r.Preset)
		if err != nil {
			return nil, err
		}
		c, name = p.Config, p.Name
	case r.ConfigFile != "":
		if c, err = Load(r.ConfigFile); err != nil {
			return nil, err
		}
		name = strings.TrimSuffix(baseName(r.ConfigFile), ".json")
	}
	c.Override(r.Flags.overrides())
	if r.Name != "" {
		name = r.Name
	}
	return Build(c, name, s, quantize.Options{Imatrix: r.Imatrix})
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// SizeLine says the model's size as llama-bench prints it and in bytes.
func (m *Model) SizeLine() string {
	b := float64(m.Bytes())
	return fmt.Sprintf("%s %s: %d bytes of tensors (%.2f GiB, %.2f MiB, %.3f GB), %.2f B parameters; a GGUF file adds its header and tokenizer",
		m.Name, m.Scheme, m.Bytes(), b/(1<<30), b/(1<<20), b/1e9, float64(m.Params())/1e9)
}
