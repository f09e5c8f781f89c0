package runner

import (
	"fmt"
	"strings"

	"github.com/blsim/blsim/model"
	"go.yaml.in/yaml/v3"
)

// SplitWords maps the words of a fork's split knob to the split modes
// they mean (model.SplitModes).
type SplitWords map[string]model.Mode

// UnmarshalYAML reads a mapping of words to split modes; a mode that is
// not a split mode is an error naming its line, word and the split modes.
func (w *SplitWords) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: split_values: want a mapping of the knob's words to %s", n.Line, model.ModeList(model.SplitModes()))
	}
	out := SplitWords{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		m := model.Mode(v.Value)
		if v.Kind != yaml.ScalarNode || !m.IsSplit() {
			return fmt.Errorf("line %d: split_values.%s: %q is not a split mode (known: %s)", v.Line, k.Value, v.Value, strings.Join(splitModeNames(), ", "))
		}
		out[k.Value] = m
	}
	*w = out
	return nil
}

func splitModeNames() []string {
	var s []string
	for _, m := range model.SplitModes() {
		s = append(s, m.String())
	}
	return s
}
