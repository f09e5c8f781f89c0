package runner

import (
	"fmt"
	"slices"

	"github.com/blsim/blsim/model/enum"
	"go.yaml.in/yaml/v3"
)

// ThreadCount is how a fork's records count n_threads.
type ThreadCount string

// How records count n_threads.
const (
	ThreadsAuto   ThreadCount = ""
	ThreadsBig    ThreadCount = "big"
	ThreadsTotal  ThreadCount = "total"
	ThreadsIgnore ThreadCount = "ignore"
)

// threadCounts are the ways a file may name (ThreadsAuto is the field left
// out or empty).
var threadCounts = []ThreadCount{ThreadsBig, ThreadsTotal, ThreadsIgnore}

func (c ThreadCount) String() string { return string(c) }

// Known says whether c is one of the ThreadCount constants.
func (c ThreadCount) Known() bool { return c == ThreadsAuto || slices.Contains(threadCounts, c) }

// UnmarshalYAML reads n_threads: big, total, ignore, or empty for auto; any
// other value is an error naming its line, the field and the known names.
func (c *ThreadCount) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: n_threads: want one word (known: %s, or empty for auto)", n.Line, enum.List(threadCounts))
	}
	if !ThreadCount(n.Value).Known() {
		return fmt.Errorf("line %d: n_threads: %q is not a thread count (known: %s, or empty for auto)", n.Line, n.Value, enum.List(threadCounts))
	}
	*c = ThreadCount(n.Value)
	return nil
}
