package model

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The model's enums are typed: a value read from YAML is checked once,
// where it is parsed (each type's UnmarshalYAML), and the code compares
// the constants. A value outside its list is an error that names the
// file, line and key (ParseSoC) and the known names.

// unmarshalName decodes node n into *v, which must then be one of known;
// what names the enum in the error ("engine kind").
func unmarshalName[T interface {
	~string
	fmt.Stringer
}](n *yaml.Node, what string, known []T, v *T) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	if !slices.Contains(known, T(s)) {
		return unknownName(n, what, s, known)
	}
	*v = T(s)
	return nil
}

// unknownName is the error for a value s of node n that is not among
// known: a yaml.TypeError, which the decoders report with its line.
func unknownName[T fmt.Stringer](n *yaml.Node, what, s string, known []T) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %q is not %s %s (known: %s)",
		n.Line, s, article(what), what, nameList(known))}}
}

func article(s string) string {
	if strings.ContainsAny(s[:1], "aeiou") {
		return "an"
	}
	return "a"
}

// nameList joins the names of vs with commas.
func nameList[T fmt.Stringer](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return strings.Join(s, ", ")
}

// EngineKind says what an engine is: a CPU cluster or an accelerator.
type EngineKind string

// Engine kinds.
const (
	// KindCPU is a CPU cluster run by a ggml-style thread pool.
	KindCPU EngineKind = "cpu"
	// KindNPU is an accelerator the dispatcher submits jobs to: it runs
	// only the ops it lists, pays a per-submit latency and a per-op setup
	// instead of a pool wake, and may need its weights in its own format.
	KindNPU EngineKind = "npu"
)

// EngineKinds are the known engine kinds.
var EngineKinds = []EngineKind{KindCPU, KindNPU}

func (k EngineKind) String() string { return string(k) }

// Known says whether k is one of EngineKinds.
func (k EngineKind) Known() bool { return slices.Contains(EngineKinds, k) }

// UnmarshalYAML reads a kind, one of EngineKinds.
func (k *EngineKind) UnmarshalYAML(n *yaml.Node) error {
	return unmarshalName(n, "engine kind", EngineKinds, k)
}

// Sharing is how the DRAM system divides its sustained bandwidth among
// engines whose demand together exceeds it.
type Sharing string

// Sharing policies.
const (
	// ShareMaxMin is max-min fairness: the smallest demands are met first,
	// the rest share what is left equally (water-filling).
	ShareMaxMin Sharing = "maxmin"
	// ShareProportional scales every demand down by the same factor.
	ShareProportional Sharing = "proportional"
)

// Sharings are the known sharing policies.
var Sharings = []Sharing{ShareMaxMin, ShareProportional}

func (s Sharing) String() string { return string(s) }

// Known says whether s is one of Sharings.
func (s Sharing) Known() bool { return slices.Contains(Sharings, s) }

// UnmarshalYAML reads a policy, one of Sharings.
func (s *Sharing) UnmarshalYAML(n *yaml.Node) error {
	return unmarshalName(n, "sharing policy", Sharings, s)
}
