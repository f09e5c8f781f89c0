package model

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A SoC file may name parts instead of writing every value: an engine's
// core (`core: cortex-a76`) and the DRAM's type (`dram: {type: lpddr4x,
// bus_bits: 64, mt_s: 4224}`). Package parts holds the library of parts and
// fills such a document in; it registers itself here (RegisterPartResolver)
// so that ParseSoC and LoadSoCFile read either kind of file in any program
// that links it (package presets does).

// PartResolver fills in, in place, the values a SoC document (its root
// mapping) leaves to the parts it names. name is the file or preset name,
// for errors.
type PartResolver func(root *yaml.Node, name string) error

var partResolver PartResolver

// RegisterPartResolver installs the resolver ParseSoC calls on a document
// that names parts. Package parts calls it from its init function.
func RegisterPartResolver(r PartResolver) { partResolver = r }

// NamesParts says whether a SoC document's root mapping names a part: a
// core in an engine or a type in its dram; or gives the chip's
// shared_cache_kib at the top, which only the part resolver reads (it
// gives each engine that leaves it out, and is not a key of the SoC).
func NamesParts(root *yaml.Node) bool {
	if root == nil || root.Kind != yaml.MappingNode {
		return false
	}
	if mapValue(root, "shared_cache_kib") != nil {
		return true
	}
	if d := mapValue(root, "dram"); d != nil && mapValue(d, "type") != nil {
		return true
	}
	if e := mapValue(root, "engines"); e != nil && e.Kind == yaml.SequenceNode {
		for _, n := range e.Content {
			if mapValue(n, "core") != nil {
				return true
			}
		}
	}
	return false
}

// mapValue is the value node of key in mapping n, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// ParseSoCNode reads a SoC document into its root node (one YAML document
// of a mapping), without decoding it: package parts fills it in and then
// calls DecodeSoC. Errors name the file and line.
func ParseSoCNode(data []byte, name string) (*yaml.Node, error) {
	root, err := parseRoot(data, name)
	if err != nil {
		return nil, err
	}
	return root, nil
}

// DecodeSoC decodes a complete SoC document's root node strictly, as
// ParseSoC does, without calling the part resolver.
func DecodeSoC(root *yaml.Node, name string) (*SoC, error) {
	var s SoC
	if err := decodeRoot(root, name, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// spec checks the spec-sheet values of a SoC: the DRAM's bus and rate.
func (c *checker) spec(s *SoC) {
	d := s.DRAM
	if d.BusBits != 0 {
		c.integer("dram.bus_bits", d.BusBits, 8, 8192)
	}
	if d.MTs != 0 {
		c.in("dram.mt_s", d.MTs, TransferRateRange)
	}
}

// smt checks engine e's SMT ways and sibling CPUs (path prefix p); seen
// holds the CPU ids of every engine so far, cpus included.
func (c *checker) smt(p string, e *Engine, seen map[int]string) {
	if e.IsAccelerator() {
		if e.SMTWays != 0 || e.SMTCPUs != nil {
			c.fail(p+"smt_ways", "only for CPU clusters")
		}
		if e.Core != "" {
			c.fail(p+"core", "only for CPU clusters: an accelerator is written out, not named from the core parts")
		}
		return
	}
	c.integer(p+"smt_ways", e.SMTWays, 0, 8)
	if e.SMTCPUs == nil {
		return
	}
	ways := max(e.SMTWays, 1)
	switch {
	case ways == 1:
		c.fail(p+"smt_cpus", "given, but smt_ways is %d: siblings need two ways or more", ways)
	case e.CPUs == nil:
		c.fail(p+"smt_cpus", "given without cpus: list each core's first CPU in cpus, its siblings here")
	case len(e.SMTCPUs) != len(e.CPUs)*(ways-1):
		c.fail(p+"smt_cpus", "%d ids; want %d (smt_ways-1 = %d per core of cpus, %d cores)", len(e.SMTCPUs), len(e.CPUs)*(ways-1), ways-1, len(e.CPUs))
	}
	for i, id := range e.SMTCPUs {
		path := fmt.Sprintf("%ssmt_cpus[%d]", p, i)
		switch other, dup := seen[id]; {
		case id < 0 || id >= 4096:
			c.fail(path, "%d is not a CPU id (0..4095)", id)
		case dup && other == e.Name:
			c.fail(path, "CPU %d listed twice", id)
		case dup:
			c.fail(path, "CPU %d is also engine %s's", id, other)
		}
		seen[id] = e.Name
	}
}

// unitHint is the hint a value out of range gets when it is in range in
// the unit a thousand times smaller or larger (a clock in MHz, a rate in
// GT/s): "" otherwise.
func unitHint(r Range, v float64) string {
	prefix := map[string][2]string{
		"GHz":  {"MHz", "kHz"},
		"GB/s": {"MB/s", "TB/s"},
		"MT/s": {"kT/s", "GT/s"},
	}[r.Unit]
	switch {
	case prefix[0] != "" && v > r.Max && v/1000 >= r.Min && v/1000 <= r.Max:
		return fmt.Sprintf(" (in %s? %g %s is %g %s: write it in %s)", prefix[0], v, prefix[0], v/1000, r.Unit, r.Unit)
	case prefix[1] != "" && v > 0 && v < r.Min && v*1000 >= r.Min && v*1000 <= r.Max:
		return fmt.Sprintf(" (in %s? %g %s is %g %s: write it in %s)", prefix[1], v, prefix[1], v*1000, r.Unit, r.Unit)
	}
	return ""
}

// specOnly are the numeric keys of a spec sheet that are not parameters
// of the model (Params, Get): the DRAM's bus and rate, a core's SMT ways.
var specOnly = map[string]bool{"bus_bits": true, "mt_s": true, "smt_ways": true}

// keyUnit is the unit a YAML key's suffix names (clock_ghz: GHz), for the
// error of a value written with a unit or in words.
func keyUnit(key string) string {
	for _, u := range []struct{ suffix, unit string }{
		{"_ghz", "GHz"}, {"_gb_s", "GB/s"}, {"_us", "µs"}, {"_kib", "KiB"},
		{"_mib", "MiB"}, {"mt_s", "MT/s"}, {"_bits", "bits"}, {"_pct", "%"},
	} {
		if strings.HasSuffix(key, u.suffix) {
			return u.unit
		}
	}
	return ""
}
