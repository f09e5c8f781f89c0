package hfconfig

import (
	"fmt"

	"github.com/blsim/blsim/gguf"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/quantize"
)

// Model is a model built from its config and a scheme: the header of the
// GGUF llama.cpp's converter and quantizer would write, and blsim's
// mapping of it.
type Model struct {
	Name   string
	Shape  *Shape
	Scheme quantize.Scheme
	// GGUF is the header, as package gguf reads a file's.
	GGUF *gguf.Model
	// Quant is the scheme's expansion: every tensor's type, the fallbacks.
	Quant   *quantize.Result
	Mapping *gguf.Mapping
}

// Workload is the mapped workload (its Run is gguf.DefaultRun).
func (m *Model) Workload() *model.Workload { return m.Mapping.Workload }

// Bytes is the tensor data the GGUF would hold: what llama-bench prints
// as the model's size.
func (m *Model) Bytes() int64 { return m.GGUF.DataBytes() }

// Params is the number of weights, as llama-bench prints them.
func (m *Model) Params() int64 {
	n := int64(0)
	for _, t := range m.GGUF.File.Tensors {
		n += t.Elements()
	}
	return n
}

// Notes are what the config, the expansion and the mapping noticed, one
// line each.
func (m *Model) Notes() []string {
	out := append([]string(nil), m.Shape.Notes...)
	out = append(out, m.Quant.Notes...)
	return append(out, m.Mapping.Notes...)
}

// Build lays the config out as llama.cpp's converter would, quantizes it
// with scheme s as llama.cpp's quantizer would, and maps the result to a
// workload named name. Errors are one line naming the config key, the
// scheme or the tensor.
func Build(c *Config, name string, s quantize.Scheme, o quantize.Options) (*Model, error) {
	sh, err := c.Shape()
	if err != nil {
		return nil, err
	}
	q, err := quantize.Expand(s, quantize.Model{Arch: sh.Arch, Layers: sh.Layers, Heads: sh.Heads, KVHeads: sh.KVHeads, Experts: sh.Experts},
		sh.tensors(), o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.label(), err)
	}
	f, err := gguf.NewFile(sh.keys(name), q.Tensors)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.label(), err)
	}
	label := fmt.Sprintf("%s %s (from its config)", name, s)
	gm, err := gguf.FromHeader(f, label)
	if err != nil {
		return nil, err
	}
	mp, err := gm.Map()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.label(), err)
	}
	return &Model{Name: name, Shape: sh, Scheme: s, GGUF: gm, Quant: q, Mapping: mp}, nil
}

func (c *Config) label() string {
	if c.File == "" {
		return "config"
	}
	return c.File
}
