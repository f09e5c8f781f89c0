// Package yamlx bounds the work a YAML document can ask of its reader.
// A file is small (readfile.YAMLLimit), but aliases can make a few KB
// expand to millions of nodes, and the YAML library checks a mapping's
// keys for duplicates pairwise, so one mapping of 60,000 keys takes
// seconds. Check refuses both, in one line, before anything is decoded.
package yamlx

import (
	"bytes"
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// The bounds, set from the real files: the largest preset profile
// (rk3588-npu) has 293 nodes and at most 22 keys in one mapping; a fitted
// profile adds an uncertainty map of a few hundred keys at most.
const (
	// MaxNodes is the most nodes a document may have with its aliases
	// expanded.
	MaxNodes = 100_000
	// MaxKeys is the most keys one mapping may have.
	MaxKeys = 1000
)

// ErrTooLarge is wrapped by Check's errors.
var ErrTooLarge = errors.New("over the YAML bounds")

// Error is a document past a bound: the line of the node at fault and why.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Unwrap returns ErrTooLarge.
func (e *Error) Unwrap() error { return ErrTooLarge }

// Check walks the document n, each alias counted as what it expands to,
// and fails when the expansion passes MaxNodes or a mapping has more than
// MaxKeys keys. The error is an *Error naming the line of the mapping or
// the node whose expansion passed the bound.
func Check(n *yaml.Node) error {
	c := counter{memo: map[*yaml.Node]int{}, open: map[*yaml.Node]bool{}}
	_, err := c.count(n)
	return err
}

type counter struct {
	memo map[*yaml.Node]int
	open map[*yaml.Node]bool
}

// count is the expanded size of n.
func (c *counter) count(n *yaml.Node) (int, error) {
	if n == nil {
		return 0, nil
	}
	if v, ok := c.memo[n]; ok {
		return v, nil
	}
	if c.open[n] {
		return 0, &Error{n.Line, "an alias that contains itself"}
	}
	c.open[n] = true
	defer delete(c.open, n)
	if n.Kind == yaml.MappingNode && len(n.Content)/2 > MaxKeys {
		return 0, &Error{n.Line, fmt.Sprintf("a mapping of %d keys, over the limit of %d", len(n.Content)/2, MaxKeys)}
	}
	total := 1
	kids := n.Content
	if n.Kind == yaml.AliasNode {
		kids = []*yaml.Node{n.Alias}
	}
	for _, k := range kids {
		v, err := c.count(k)
		if err != nil {
			return 0, err
		}
		total += v
		if total > MaxNodes {
			return 0, &Error{n.Line, fmt.Sprintf("expands to more than %d nodes with its aliases expanded, over the limit", MaxNodes)}
		}
	}
	c.memo[n] = total
	return total, nil
}

// CheckBytes parses data's documents into nodes, without decoding them,
// and Checks each. A syntax error is left for the decoder to report, in
// its words; nil means data is within the bounds (or not YAML at all).
func CheckBytes(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			return nil // io.EOF, or a syntax error the decoder will name
		}
		if err := Check(&doc); err != nil {
			return err
		}
	}
}

// Value is the value of key in mapping node m, nil when m is not a mapping
// or has no such key.
func Value(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
