package model

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/blsim/blsim/internal/readfile"
	"github.com/blsim/blsim/internal/yamlx"
	"github.com/blsim/blsim/parts"
	"go.yaml.in/yaml/v3"
)

// ParseSoC reads a SoC profile strictly. name is used in errors (a file
// name or preset name).
func ParseSoC(data []byte, name string) (*SoC, error) {
	var s SoC
	if err := decodeStrict(data, name, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// ParseWorkload reads a workload strictly.
func ParseWorkload(data []byte, name string) (*Workload, error) {
	var w Workload
	if err := decodeStrict(data, name, &w); err != nil {
		return nil, err
	}
	return &w, nil
}

// LoadSoCFile reads a SoC profile from a file.
func LoadSoCFile(path string) (*SoC, error) {
	data, err := readfile.Read(path, readfile.YAMLLimit)
	if err != nil {
		return nil, fmt.Errorf("soc: %w", err)
	}
	return ParseSoC(data, path)
}

// LoadWorkloadFile reads a workload from a file.
func LoadWorkloadFile(path string) (*Workload, error) {
	data, err := readfile.Read(path, readfile.YAMLLimit)
	if err != nil {
		return nil, fmt.Errorf("workload: %w", err)
	}
	return ParseWorkload(data, path)
}

// MarshalSoC writes a profile as YAML (the form ParseSoC reads).
func MarshalSoC(s *SoC) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("soc %s: %w", s.Name, err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// MarshalWorkload writes a workload as YAML (the form ParseWorkload reads).
func MarshalWorkload(w *Workload) ([]byte, error) {
	b, err := yaml.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", w.Name, err)
	}
	return b, nil
}

type validator interface{ Validate() error }

// decodeStrict parses data into v: every key known, every required key
// present, every value of the right type and in range. Errors name the
// file, line and field.
func decodeStrict(data []byte, name string, v validator) error {
	root, err := parseRoot(data, name)
	if err != nil {
		return err
	}
	if _, soc := v.(*SoC); soc && NamesParts(root) {
		if err := parts.Fill(root, name, nil); err != nil {
			return err
		}
	}
	return decodeRoot(root, name, v)
}

// parseRoot reads one YAML document and returns its root node.
func parseRoot(data []byte, name string) (*yaml.Node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, &FieldError{File: name, Line: yamlErrLine(err), Msg: cleanYAMLErr(err)}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, &FieldError{File: name, Msg: "empty document"}
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		line := next.Line
		if err != nil {
			line = yamlErrLine(err)
		}
		return nil, &FieldError{File: name, Line: line, Msg: "a second YAML document (one file holds one)"}
	}
	if err := yamlx.Check(&doc); err != nil {
		ye := err.(*yamlx.Error)
		return nil, &FieldError{File: name, Line: ye.Line, Msg: ye.Msg}
	}
	return doc.Content[0], nil
}

// decodeRoot decodes a document's root node into v strictly and
// validates it; errors name the file, line and field.
func decodeRoot(root *yaml.Node, name string, v validator) error {
	if err := checkKeys(root, reflect.TypeOf(v).Elem(), ""); err != nil {
		err.File = name
		return err
	}
	if err := root.Decode(v); err != nil {
		return &FieldError{File: name, Line: yamlErrLine(err), Msg: cleanYAMLErr(err)}
	}
	if err := v.Validate(); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			fe.File = name
			fe.Line = root.Line
			// A value that is missing (linear_attention) is reported at
			// its nearest ancestor that is present.
			for p := fe.Path; p != ""; p = parentPath(p) {
				if n := lookup(root, p); n != nil {
					fe.Line = n.Line
					break
				}
			}
			return fe
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// checkKeys walks node against type t: unknown keys, missing required
// keys (those without omitempty), duplicate keys and wrong shapes.
func checkKeys(n *yaml.Node, t reflect.Type, path string) *FieldError {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	at := func(n *yaml.Node, p, format string, a ...any) *FieldError {
		return &FieldError{Line: n.Line, Path: p, Msg: fmt.Sprintf(format, a...)}
	}
	join := func(key string) string {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return at(n, path, "want a mapping of keys, got %s", nodeKind(n))
		}
		fields := map[string]reflect.StructField{}
		var order []string // the keys in the struct's order, for a deterministic first missing key
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if key := strings.Split(f.Tag.Get("yaml"), ",")[0]; key != "" && key != "-" {
				fields[key] = f
				order = append(order, key)
			}
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			f, ok := fields[k.Value]
			if !ok {
				return at(k, join(k.Value), "unknown key (known: %s)", knownKeys(fields))
			}
			if seen[k.Value] {
				return at(k, join(k.Value), "key given twice")
			}
			seen[k.Value] = true
			if err := checkKeys(val, f.Type, join(k.Value)); err != nil {
				return err
			}
		}
		for _, key := range order {
			if f := fields[key]; !seen[key] && !strings.Contains(f.Tag.Get("yaml"), "omitempty") {
				return at(n, join(key), "missing required key")
			}
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return at(n, path, "want a list, got %s", nodeKind(n))
		}
		for i, c := range n.Content {
			if err := checkKeys(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return at(n, path, "want a mapping, got %s", nodeKind(n))
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if seen[k.Value] {
				return at(k, join(k.Value), "key given twice")
			}
			seen[k.Value] = true
			// A key of a typed enum (a kernel class) is checked as its
			// values are.
			if err := k.Decode(reflect.New(t.Key()).Interface()); err != nil {
				return at(k, join(k.Value), "%s", cleanYAMLErr(err))
			}
			if err := checkKeys(n.Content[i+1], t.Elem(), join(k.Value)); err != nil {
				return err
			}
		}
	default:
		if n.Kind != yaml.ScalarNode {
			return at(n, path, "want a single value, got %s", nodeKind(n))
		}
		if n.Tag == "!!null" {
			return at(n, path, "missing value")
		}
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			// The YAML library would truncate 4.5 to 4.
			if n.ShortTag() == "!!float" {
				return at(n, path, "want a whole number, got %q", n.Value)
			}
		}
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			if u := keyUnit(path[strings.LastIndexAny(path, ".]")+1:]); u != "" && t.Kind() != reflect.String {
				return at(n, path, "want a number in %s (the key's unit), got %q", u, n.Value)
			}
			return at(n, path, "%s", cleanYAMLErr(err))
		}
	}
	return nil
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("the value %q", n.Value)
	}
	return "something else"
}

func knownKeys(fields map[string]reflect.StructField) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// lookup finds the node at a validation path such as
// "engines[1].kernel_ops_per_cycle.q4" or "uncertainty.engines.big.x"
// (map keys may themselves contain dots).
func lookup(n *yaml.Node, path string) *yaml.Node {
	for path != "" {
		if n.Kind == yaml.SequenceNode && path[0] == '[' {
			end := strings.IndexByte(path, ']')
			i, err := strconv.Atoi(path[1:end])
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil
			}
			n, path = n.Content[i], strings.TrimPrefix(path[end+1:], ".")
			continue
		}
		if n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		rest := ""
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			switch {
			case path == k:
				return n.Content[i]
			case strings.HasPrefix(path, k+"."):
				next, rest = n.Content[i+1], path[len(k)+1:]
			case strings.HasPrefix(path, k+"["):
				next, rest = n.Content[i+1], path[len(k):]
			}
		}
		if next == nil {
			return nil
		}
		n, path = next, rest
	}
	return n
}

// parentPath drops the last element of a validation path:
// "engines[1].clock_ghz" -> "engines[1]" -> "engines" -> "".
func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

var lineRe = regexp.MustCompile(`line (\d+)`)

func yamlErrLine(err error) int {
	if m := lineRe.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// cleanYAMLErr makes yaml.v3's multi-line messages one line.
func cleanYAMLErr(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "yaml: ")
	s = strings.ReplaceAll(s, "unmarshal errors:\n  ", "")
	s = lineRe.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "\n", "; ")
	return strings.TrimLeft(strings.TrimSpace(s), ": ")
}
