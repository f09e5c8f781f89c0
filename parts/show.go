package parts

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Annotate sets the line comment of each value under root, a resolved
// SoC's YAML, to its source in res, and heads the document with how to
// read them.
func Annotate(root *yaml.Node, res *Resolution) {
	annotate(root, "", res)
	root.HeadComment = fmt.Sprintf("%s, resolved: each value's source is its comment (part NAME: the part's source;\nfile line N: the file's own comment; calibration: a fit's provenance).", res.File)
}

// annotate sets each value's line comment under node n (at path) from res.
func annotate(n *yaml.Node, path string, res *Resolution) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := join(path, k.Value)
			if v.Kind == yaml.ScalarNode || v.Kind == yaml.SequenceNode && k.Value != "engines" {
				if p == "schema" || p == "name" {
					continue
				}
				if v.Kind == yaml.SequenceNode {
					v.Style = yaml.FlowStyle
				}
				if src, ok := res.Sources[p]; ok {
					if v.Kind == yaml.SequenceNode {
						v.LineComment = clip(src.String(), 160)
					} else {
						k.LineComment = clip(src.String(), 160)
					}
				}
				continue
			}
			annotate(v, p, res)
		}
	case yaml.SequenceNode:
		for i, e := range n.Content {
			annotate(e, join(path, engineName(e, i)), res)
		}
	}
}

// clip shortens s to at most n bytes at a word boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	if i := strings.LastIndexByte(s, ' '); i > n/2 {
		s = s[:i]
	}
	return s + " ..."
}

// Data is the YAML of the part named name (a core, a memory type or a
// runtime, or an alias of one), with its sources as comments.
func Data(name string) ([]byte, error) {
	l := lib()
	key := normalise(name)
	for _, f := range []struct {
		dir   string
		names map[string]bool
	}{
		{"cores", set(l.cores, l.coreAlias)},
		{"memory", set(l.memories, l.memAlias)},
		{"runtimes", set(l.runtimes, nil)},
	} {
		if !f.names[key] {
			continue
		}
		if n, ok := l.coreAlias[key]; ok && f.dir == "cores" {
			key = n
		}
		if n, ok := l.memAlias[key]; ok && f.dir == "memory" {
			key = n
		}
		return fs.ReadFile(files, f.dir+"/"+key+".yaml")
	}
	all := append(append(l.coreNames(), sortedKeys(l.memories)...), sortedKeys(l.runtimes)...)
	alias := maps.Clone(l.coreAlias)
	maps.Copy(alias, l.memAlias)
	all = append(all, slices.Sorted(maps.Keys(l.memAlias))...)
	return nil, fmt.Errorf("unknown part %q (%s)", name, nearestText(key, all, alias, "parts", len(l.cores)+len(l.memories)+len(l.runtimes)))
}

func set[V any](m map[string]V, aliases map[string]string) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	for k := range aliases {
		out[k] = true
	}
	return out
}

// Names lists every part: cores, memory types and runtimes.
func Names() []string {
	l := lib()
	return append(append(sortedKeys(l.cores), sortedKeys(l.memories)...), sortedKeys(l.runtimes)...)
}

// Describe is one line on the part named name: a core's vendor name,
// ISA, features, pipeline, SMT ways, SIMD and int8 throughput, where its
// kernel rates come from; a memory type's channel and rates.
func Describe(name string) (string, error) {
	l := lib()
	if c, ok := l.cores[name]; ok {
		pipe, kern := "in-order", "kernel rates its own"
		if c.OutOfOrder {
			pipe = "out-of-order"
		}
		if c.Reference != "" {
			kern = "kernel rates derived from " + c.Reference
		}
		if c.Measured != nil {
			kern += " (measured: " + strings.Join(measuredKeys(c.Measured), ", ") + ")"
		}
		i8mm := ""
		if c.I8MMOpsPerCycle > 0 {
			i8mm = fmt.Sprintf(" (i8mm %g)", c.I8MMOpsPerCycle)
		}
		smt := ""
		if c.SMTWays > 1 {
			smt = fmt.Sprintf(" (a second thread adds: matmul %+g, attention %+g, scalar %+g, dram %+g)",
				c.SMTYield["matmul"], c.SMTYield["attention"], c.SMTYield["scalar"], c.SMTYield["dram"])
		}
		return fmt.Sprintf("core: %s, %s %s [%s], %s, SMT %d%s, %dx%d-bit SIMD, int8 %g ops/cycle%s, %s",
			c.Title, c.Arch, c.ISA, strings.Join(c.Features, " "), pipe, c.SMTWays, smt, c.SIMDPipes, c.SIMDBits, c.Int8OpsPerCycle, i8mm, kern), nil
	}
	if m, ok := l.memories[name]; ok {
		return fmt.Sprintf("memory: %s, %d-bit channels, %g-%g MT/s, sustains %g of peak", m.Title, m.ChannelBits, m.MTs[0], m.MTs[1], m.SustainedShare), nil
	}
	if r, ok := l.runtimes[name]; ok {
		return "runtime: " + r.Title, nil
	}
	_, err := Data(name)
	return "", err
}

// measuredKeys names a core's measured rates: repacked q4_0, generic q8_0.
func measuredKeys(m *Kernels) []string {
	var out []string
	for _, t := range sortedKeys(m.Repacked) {
		out = append(out, "repacked "+t)
	}
	for _, t := range sortedKeys(m.Generic) {
		out = append(out, "generic "+t)
	}
	return out
}
