package parts

import (
	"fmt"
	"strings"

	"github.com/blsim/blsim/internal/yamlx"
	"go.yaml.in/yaml/v3"
)

// Layer is where a resolved value came from.
type Layer string

// The layers, lowest first: a file's value overrides its part's, and a
// calibration's (a fitted profile's measured values) the file's.
const (
	FromPart        Layer = "part"
	FromFile        Layer = "file"
	FromCalibration Layer = "calibration"
	// FromDefault: neither the file nor a part gives the value; it is the
	// model's default for an optional key (0, or absent).
	FromDefault Layer = "default"
)

// A Source is where one value of a resolved SoC came from.
type Source struct {
	Layer Layer `json:"layer"`
	// Part names the part for a part's value (cortex-a76, lpddr4x,
	// llama.cpp).
	Part string `json:"part,omitempty"`
	// Line is the file's line for a file's value.
	Line int `json:"line,omitempty"`
	// Note is the source the part or the file gives for the value (its
	// comment), or how a part's value was derived.
	Note string `json:"note,omitempty"`
}

func (s Source) String() string {
	var b strings.Builder
	b.WriteString(string(s.Layer))
	if s.Part != "" {
		b.WriteString(" " + s.Part)
	}
	if s.Line > 0 {
		fmt.Fprintf(&b, " line %d", s.Line)
	}
	if s.Note != "" {
		b.WriteString(": " + s.Note)
	}
	return b.String()
}

// A Resolution records where every value of a resolved SoC came from, by
// path: dram.peak_gb_s, engines.big.kernel_ops_per_cycle.q4_k,
// engines.big.repacked_types, handoff.futex_wake_us, uncertainty.KEY.
type Resolution struct {
	File    string
	Sources map[string]Source
}

// Of is the source of the value at path; a path nothing recorded is an
// optional key left at the model's default.
func (r *Resolution) Of(path string) Source {
	if s, ok := r.Sources[path]; ok {
		return s
	}
	return Source{Layer: FromDefault}
}

func (r *Resolution) set(path string, s Source) {
	if r != nil {
		r.Sources[path] = s
	}
}

// NewResolution is an empty resolution of the file name.
func NewResolution(name string) *Resolution {
	return &Resolution{File: name, Sources: map[string]Source{}}
}

// Set records path's source.
func (r *Resolution) Set(path string, s Source) { r.set(path, s) }

// A FieldError is a part named wrong, or a spec-sheet value it cannot
// use, with the file, line and field: one line.
type FieldError struct {
	File string
	Line int
	Path string
	Msg  string
}

func (e *FieldError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File + ":")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "%d:", e.Line)
	}
	if b.Len() > 0 {
		b.WriteString(" ")
	}
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// RecordFile records every value of node n (at path, "" for a
// document's root) as the file's, with its line and comment.
func RecordFile(n *yaml.Node, path string, res *Resolution) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := join(path, k.Value)
			if v.Kind == yaml.ScalarNode || v.Kind == yaml.SequenceNode && k.Value != "engines" {
				res.set(p, Source{Layer: FromFile, Line: v.Line, Note: comment(k, v)})
				continue
			}
			RecordFile(v, p, res)
		}
	case yaml.SequenceNode: // engines
		for i, e := range n.Content {
			RecordFile(e, join(path, engineName(e, i)), res)
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// engineName is an engine node's name, or [i] without one.
func engineName(e *yaml.Node, i int) string {
	if n := yamlx.Value(e, "name"); n != nil && n.Kind == yaml.ScalarNode {
		return n.Value
	}
	return fmt.Sprintf("[%d]", i)
}

// NamedPath turns a validation path (engines[1].clock_ghz) into a named
// one (engines.little.clock_ghz).
func NamedPath(root *yaml.Node, path string) string {
	rest, ok := strings.CutPrefix(path, "engines[")
	if !ok {
		return path
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return path
	}
	var i int
	if _, err := fmt.Sscan(rest[:end], &i); err != nil {
		return path
	}
	engines := yamlx.Value(root, "engines")
	if engines == nil || i < 0 || i >= len(engines.Content) {
		return path
	}
	return "engines." + engineName(engines.Content[i], i) + rest[end+1:]
}

// NamesParts says whether a SoC document's root mapping names a part: a
// core in an engine or a type in its dram; or gives the chip's
// shared_cache_kib at the top, which only the part resolver reads (it
// gives each engine that leaves it out, and is not a key of the SoC).
func NamesParts(root *yaml.Node) bool {
	if root == nil || root.Kind != yaml.MappingNode {
		return false
	}
	if yamlx.Value(root, "shared_cache_kib") != nil {
		return true
	}
	if d := yamlx.Value(root, "dram"); d != nil && yamlx.Value(d, "type") != nil {
		return true
	}
	if e := yamlx.Value(root, "engines"); e != nil && e.Kind == yaml.SequenceNode {
		for _, n := range e.Content {
			if yamlx.Value(n, "core") != nil {
				return true
			}
		}
	}
	return false
}
