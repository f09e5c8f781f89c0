package hfconfig

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// Preset is a model preset: a public config with its source, and the
// sizes published for some of its GGUF files, each with its source.
type Preset struct {
	Name        string      `yaml:"name"`
	Description string      `yaml:"description"`
	Source      string      `yaml:"source"`
	Published   []Published `yaml:"published"`
	// Config is read from the preset's config mapping (config.json's keys).
	Config *Config `yaml:"-"`
}

// Published is a published size of the model's GGUF under one scheme: a
// file size (GB, 1e9 bytes) or llama-bench's size column (tensor data, in
// GiB or MiB), and llama-bench's parameter count (billions, two places),
// where given.
type Published struct {
	Scheme  string  `yaml:"scheme"`
	GB      float64 `yaml:"gb"`
	GiB     float64 `yaml:"gib"`
	MiB     float64 `yaml:"mib"`
	ParamsB float64 `yaml:"params_b"`
	Source  string  `yaml:"source"`
}

// Bytes is the published size in bytes, and whether it is a whole file's
// (header and tokenizer included) rather than llama-bench's tensor data.
func (p Published) Bytes() (float64, bool) {
	switch {
	case p.GB > 0:
		return p.GB * 1e9, true
	case p.GiB > 0:
		return p.GiB * (1 << 30), false
	}
	return p.MiB * (1 << 20), false
}

// ParsePreset reads a model preset; name stands for it in errors.
func ParsePreset(b []byte, name string) (*Preset, error) {
	var root yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&root); err != nil {
		return nil, fmt.Errorf("%s: %s", name, oneLine(err.Error()))
	}
	var p Preset
	if err := root.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %s", name, oneLine(err.Error()))
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty", name)
	}
	cfg := child(root.Content[0], "config")
	if cfg == nil || cfg.Kind != yaml.MappingNode {
		return nil, &ConfigError{File: name, Key: "config", Msg: "missing: a model preset holds its config.json keys under config"}
	}
	c, err := decode(cfg, name)
	if err != nil {
		return nil, err
	}
	p.Config = c
	for i, pub := range p.Published {
		if bytes, _ := pub.Bytes(); bytes <= 0 || pub.Source == "" || pub.Scheme == "" {
			return nil, &ConfigError{File: name, Key: fmt.Sprintf("published[%d]", i), Msg: "needs a scheme, a size (gb, gib or mib) and a source"}
		}
	}
	if p.Name == "" || p.Source == "" {
		return nil, &ConfigError{File: name, Key: "name", Msg: "a model preset needs a name and the source of its config"}
	}
	return &p, nil
}
