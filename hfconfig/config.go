package hfconfig

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/blsim/blsim/internal/readfile"
	"github.com/blsim/blsim/internal/yamlx"
	"go.yaml.in/yaml/v3"
)

// Config is a model's hyperparameters under Hugging Face's config.json
// names. A nil field was not given.
type Config struct {
	Architectures []string `yaml:"architectures"`
	ModelType     string   `yaml:"model_type"`
	Layers        *int     `yaml:"num_hidden_layers"`
	Hidden        *int     `yaml:"hidden_size"`
	Heads         *int     `yaml:"num_attention_heads"`
	KVHeads       *int     `yaml:"num_key_value_heads"`
	HeadDim       *int     `yaml:"head_dim"`
	FFN           *int     `yaml:"intermediate_size"`
	Vocab         *int     `yaml:"vocab_size"`
	Tied          *bool    `yaml:"tie_word_embeddings"`
	// SlidingWindow is the window in tokens; UseSlidingWindow (Qwen2)
	// false turns it off; SlidingWindowPattern (Gemma 3) is the period of
	// its full-attention layers.
	SlidingWindow        *int  `yaml:"sliding_window"`
	UseSlidingWindow     *bool `yaml:"use_sliding_window"`
	SlidingWindowPattern *int  `yaml:"sliding_window_pattern"`
	// LocalExperts is Mixtral's name for the routed experts, Experts
	// Qwen's.
	LocalExperts *int `yaml:"num_local_experts"`
	Experts      *int `yaml:"num_experts"`
	TopK         *int `yaml:"num_experts_per_tok"`
	ExpertFFN    *int `yaml:"moe_intermediate_size"`
	SharedFFN    *int `yaml:"shared_expert_intermediate_size"`
	// DecoderSparseStep and MLPOnlyLayers (Qwen MoE) put dense FFNs
	// between the MoE layers; blsim models every layer routed.
	DecoderSparseStep *int  `yaml:"decoder_sparse_step"`
	MLPOnlyLayers     []int `yaml:"mlp_only_layers"`
	ContextLength     *int  `yaml:"max_position_embeddings"`
	// RopeScaling of type llama3 (Llama 3.1 and 3.2) adds llama.cpp's
	// rope_freqs tensor.
	RopeScaling map[string]any `yaml:"rope_scaling"`

	// File names the config in errors and notes.
	File string `yaml:"-"`
	// unused are the keys given that the workload does not depend on.
	unused []string
}

// usedKeys are the keys Config reads; other keys of a config.json are
// listed in a note as not used.
var usedKeys = map[string]bool{
	"architectures": true, "model_type": true, "num_hidden_layers": true, "hidden_size": true,
	"num_attention_heads": true, "num_key_value_heads": true, "head_dim": true, "intermediate_size": true,
	"vocab_size": true, "tie_word_embeddings": true, "sliding_window": true, "use_sliding_window": true,
	"sliding_window_pattern": true, "num_local_experts": true, "num_experts": true, "num_experts_per_tok": true,
	"moe_intermediate_size": true, "shared_expert_intermediate_size": true, "decoder_sparse_step": true,
	"mlp_only_layers": true, "max_position_embeddings": true, "rope_scaling": true,
}

// ConfigError is a key a config lacks or holds in a form blsim cannot
// use: one line naming the file and key.
type ConfigError struct {
	File, Key, Msg string
}

func (e *ConfigError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("%s: %s", e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, e.Key, e.Msg)
}

// Load reads a config.json (or the same keys as YAML) from path.
// Like every input it is read within readfile.YAMLLimit (a config.json is
// a few KB), and its nodes within yamlx's bounds.
func Load(path string) (*Config, error) {
	b, err := readfile.Read(path, readfile.YAMLLimit)
	if err != nil {
		return nil, fmt.Errorf("hfconfig: %w", err)
	}
	return Parse(b, path)
}

// Parse reads a config from JSON or YAML bytes; name stands for the file
// in errors. A config with a text_config (a multimodal model) is read
// from it, with the outer architectures kept when it has none.
func Parse(b []byte, name string) (*Config, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&root); err != nil {
		return nil, &ConfigError{File: name, Key: "(file)", Msg: "not a JSON or YAML config: " + oneLine(err.Error())}
	}
	if err := yamlx.Check(&root); err != nil {
		return nil, &ConfigError{File: name, Key: "(file)", Msg: err.Error()}
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, &ConfigError{File: name, Key: "(file)", Msg: "not a mapping of config keys"}
	}
	m := root.Content[0]
	c, err := decode(m, name)
	if err != nil {
		return nil, err
	}
	if tc := child(m, "text_config"); tc != nil && tc.Kind == yaml.MappingNode {
		inner, err := decode(tc, name+" text_config")
		if err != nil {
			return nil, err
		}
		if len(inner.Architectures) == 0 {
			inner.Architectures = c.Architectures
		}
		inner.File = name
		return inner, nil
	}
	return c, nil
}

func decode(m *yaml.Node, name string) (*Config, error) {
	c := &Config{File: name}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i].Value
		if !usedKeys[k] && k != "text_config" {
			c.unused = append(c.unused, k)
			continue
		}
		if usedKeys[k] {
			one := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{m.Content[i], m.Content[i+1]}}
			if err := one.Decode(c); err != nil {
				return nil, &ConfigError{File: name, Key: k, Msg: fmt.Sprintf("%s is not of the right kind (line %d): %s", shortValue(m.Content[i+1]), m.Content[i+1].Line, lastLine(err))}
			}
		}
	}
	sort.Strings(c.unused)
	return c, nil
}

func child(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func shortValue(n *yaml.Node) string {
	v := n.Value
	if n.Kind != yaml.ScalarNode {
		v = map[yaml.Kind]string{yaml.SequenceNode: "a list", yaml.MappingNode: "a mapping"}[n.Kind]
	}
	if len(v) > 40 {
		v = v[:37] + "..."
	}
	return fmt.Sprintf("%q", v)
}

func lastLine(err error) string {
	s := oneLine(err.Error())
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Override sets every field o gives (not nil, not empty) on c: flags
// given on the command line over a config file or preset.
func (c *Config) Override(o *Config) {
	if len(o.Architectures) > 0 {
		c.Architectures = o.Architectures
	}
	if o.ModelType != "" {
		c.ModelType = o.ModelType
	}
	for _, p := range []struct{ dst, src **int }{
		{&c.Layers, &o.Layers}, {&c.Hidden, &o.Hidden}, {&c.Heads, &o.Heads}, {&c.KVHeads, &o.KVHeads},
		{&c.HeadDim, &o.HeadDim}, {&c.FFN, &o.FFN}, {&c.Vocab, &o.Vocab}, {&c.SlidingWindow, &o.SlidingWindow},
		{&c.LocalExperts, &o.LocalExperts}, {&c.Experts, &o.Experts}, {&c.TopK, &o.TopK},
		{&c.ExpertFFN, &o.ExpertFFN}, {&c.SharedFFN, &o.SharedFFN},
	} {
		if *p.src != nil {
			*p.dst = *p.src
		}
	}
	if o.Tied != nil {
		c.Tied = o.Tied
	}
	if o.SlidingWindow != nil && *o.SlidingWindow > 0 {
		t := true
		c.UseSlidingWindow = &t
	}
	if o.LocalExperts != nil {
		c.Experts = nil
	}
	if o.Experts != nil {
		c.LocalExperts = nil
	}
}
