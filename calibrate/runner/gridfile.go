package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/blsim/blsim/internal/readfile"
	"github.com/blsim/blsim/internal/yamlx"
	"go.yaml.in/yaml/v3"
)

// GridFile is a grid read from YAML, with the run settings it may carry.
//
//	command: llama-bench -m model.gguf -p 512 -n 0 -o jsonl   # or a list of words
//	env:
//	  ORK_MOE_BIGLITTLE: 1
//	  ORK_BL_LITTLE_FRAC: "0.05:0.30:0.05"   # a string: read by ParseValues
//	  ORK_BL_POLL: [0, 50]                    # a list: taken verbatim
//	  ORK_BL_SPLIT: [token, expert]
//	args:
//	  -t: 4
//	timeout_s: 600
//	warmup: 1
//	retries: 1
//	rounds: 3          # passes over the grid
//	shuffle: true      # each round in an order of its own
//	holdout: [ORK_BL_LITTLE_FRAC=0.15]   # points to hold out of the fit (blsim calibrate)
//
// Unknown keys are errors. Axes keep the order of the file. A scalar is
// read by ParseValues, so "0,50" and "0.05:0.30:0.05" work as on the
// command line; the items of a list are values as written, which is how to
// pass a value holding ',' or ':'.
type GridFile struct {
	Grid Grid
	// Timeout per run; 0 if the file does not say.
	Timeout time.Duration
	// Warmup, Retries, Rounds and Shuffle as in Config.
	Warmup  int
	Retries int
	Rounds  int
	Shuffle bool
	// Holdout holds the patterns of the points a fit holds out (run like
	// the others; blsim calibrate reads them).
	Holdout []string
}

type gridYAML struct {
	Command  commandYAML `yaml:"command"`
	Env      axesYAML    `yaml:"env"`
	Args     axesYAML    `yaml:"args"`
	TimeoutS *float64    `yaml:"timeout_s"`
	Warmup   int         `yaml:"warmup"`
	Retries  int         `yaml:"retries"`
	Rounds   int         `yaml:"rounds"`
	Shuffle  bool        `yaml:"shuffle"`
	Holdout  []string    `yaml:"holdout"`
}

type commandYAML []string

func (c *commandYAML) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		words, err := SplitCommand(n.Value)
		if err != nil {
			return fmt.Errorf("line %d: %v", n.Line, err)
		}
		*c = words
		return nil
	case yaml.SequenceNode:
		var words []string
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: command words must be strings", item.Line)
			}
			words = append(words, item.Value)
		}
		*c = words
		return nil
	}
	return fmt.Errorf("line %d: command must be a string or a list of words", n.Line)
}

type axesYAML []Axis

func (a *axesYAML) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: want a mapping of knob names to values", n.Line)
	}
	var axes []Axis
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: knob names must be strings", k.Line)
		}
		ax := Axis{Name: k.Value}
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag != "!!null":
			vals, err := ParseValues(v.Value)
			if err != nil {
				return fmt.Errorf("line %d: %s: %v", v.Line, k.Value, err)
			}
			ax.Values = vals
		case v.Kind == yaml.SequenceNode:
			for _, item := range v.Content {
				if item.Kind != yaml.ScalarNode || item.Tag == "!!null" {
					return fmt.Errorf("line %d: %s: values must be scalars", item.Line, k.Value)
				}
				ax.Values = append(ax.Values, item.Value)
			}
		default:
			return fmt.Errorf("line %d: %s: want a value, a range string or a list", v.Line, k.Value)
		}
		axes = append(axes, ax)
	}
	*a = axes
	return nil
}

// ParseGridFile reads a grid file; name is used in errors. The grid's
// command may be empty (it can come from --bench); Grid.Validate checks the
// rest once the command is known.
func ParseGridFile(data []byte, name string) (*GridFile, error) {
	if err := yamlx.CheckBytes(data); err != nil {
		return nil, fmt.Errorf("grid %s: %w", name, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var y gridYAML
	if err := dec.Decode(&y); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("grid %s: empty file", name)
		}
		return nil, fmt.Errorf("grid %s: %s", name, yamlOneLine(err))
	}
	gf := &GridFile{
		Grid:    Grid{Command: y.Command, Env: y.Env, Args: y.Args},
		Warmup:  y.Warmup,
		Retries: y.Retries,
		Rounds:  y.Rounds,
		Shuffle: y.Shuffle,
		Holdout: y.Holdout,
	}
	if y.TimeoutS != nil {
		t := *y.TimeoutS
		if !(t > 0) || math.IsInf(t, 0) || t > 1e6 {
			return nil, fmt.Errorf("grid %s: timeout_s %g must be a positive number of seconds", name, t)
		}
		gf.Timeout = time.Duration(t * float64(time.Second))
	}
	if y.Warmup < 0 || y.Retries < 0 || y.Rounds < 0 {
		return nil, fmt.Errorf("grid %s: warmup, retries and rounds must not be negative", name)
	}
	for _, h := range y.Holdout {
		if strings.TrimSpace(h) == "" {
			return nil, fmt.Errorf("grid %s: holdout: an empty pattern", name)
		}
	}
	for _, a := range gf.Grid.Env {
		if err := checkEnvName(a.Name); err != nil {
			return nil, fmt.Errorf("grid %s: env: %v", name, err)
		}
	}
	for _, a := range gf.Grid.Args {
		if err := checkArgName(a.Name); err != nil {
			return nil, fmt.Errorf("grid %s: args: %v", name, err)
		}
	}
	return gf, nil
}

// yamlOneLine is a YAML decoding error on one line: the library lists
// unmarshal errors one per line.
func yamlOneLine(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	s = strings.ReplaceAll(s, "unmarshal errors:\n  ", "")
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// LoadGridFile reads the grid file at path.
func LoadGridFile(path string) (*GridFile, error) {
	data, err := readfile.Read(path, readfile.YAMLLimit)
	if err != nil {
		return nil, fmt.Errorf("grid: %w", err)
	}
	return ParseGridFile(data, path)
}
