// Package enum holds the model's string enums that the part library
// (package parts, below model) fills into SoC files too: engine kinds,
// DRAM sharing policies and kernel classes, each a type whose YAML
// decoder checks its value where it is parsed. Package model re-exports
// them as aliases (model.EngineKind is enum.EngineKind), so both packages
// name the same constants and no literal is written twice. Unmarshal,
// Unknown and List are the one check and message every enum of model
// and enum uses.
package enum

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Unmarshal decodes node n into *v, which must then be one of known;
// what names the enum in the error ("engine kind").
func Unmarshal[T interface {
	~string
	fmt.Stringer
}](n *yaml.Node, what string, known []T, v *T) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	if !slices.Contains(known, T(s)) {
		return Unknown(n, what, s, known)
	}
	*v = T(s)
	return nil
}

// Unknown is the error for a value s of node n that is not among known:
// a yaml.TypeError, which the decoders report with its line.
func Unknown[T fmt.Stringer](n *yaml.Node, what, s string, known []T) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %q is not %s %s (known: %s)",
		n.Line, s, article(what), what, List(known))}}
}

func article(s string) string {
	if strings.ContainsAny(s[:1], "aeiou") {
		return "an"
	}
	return "a"
}

// List joins the names of vs with commas.
func List[T fmt.Stringer](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return strings.Join(s, ", ")
}

// The YAML decoder finds each enum's UnmarshalYAML by reflection, on a
// field's address. Naming the decoders here makes that call visible to
// static analysis: x/tools deadcode (v0.52.0) does not follow a field
// typed by one of model's aliases to the pointer's methods, and reported
// them unreachable.
var _ = []yaml.Unmarshaler{new(EngineKind), new(Sharing), new(KernelClass)}

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
	return Unmarshal(n, "engine kind", EngineKinds, k)
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
	return Unmarshal(n, "sharing policy", Sharings, s)
}

// KernelClass is a matmul kernel class: weights of a range of bits per
// weight, whose throughput an engine lists (model.KernelClassOf).
type KernelClass string

// Kernel classes.
const (
	ClassQ4  KernelClass = "q4"  // below 5 bits per weight
	ClassQ6  KernelClass = "q6"  // 5 to 7
	ClassQ8  KernelClass = "q8"  // 7 to 9
	ClassF16 KernelClass = "f16" // 9 to 17
	ClassF32 KernelClass = "f32" // 17 and more
)

// KernelClasses are the classes an engine must list.
var KernelClasses = []KernelClass{ClassQ4, ClassQ6, ClassQ8, ClassF16, ClassF32}

func (c KernelClass) String() string { return string(c) }

// Known says whether c is one of KernelClasses.
func (c KernelClass) Known() bool { return slices.Contains(KernelClasses, c) }

// UnmarshalYAML reads a class, one of KernelClasses.
func (c *KernelClass) UnmarshalYAML(n *yaml.Node) error {
	return Unmarshal(n, "kernel class", KernelClasses, c)
}
