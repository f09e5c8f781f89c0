package model

import (
	"fmt"
	"strings"

	"github.com/blsim/blsim/parts"
	"go.yaml.in/yaml/v3"
)

// A SoC file may name parts instead of writing every value: an engine's
// core (`core: cortex-a76`) and the DRAM's type (`dram: {type: lpddr4x,
// bus_bits: 64, mt_s: 4224}`). ParseSoC fills such a document in from
// package parts before it decodes it; ResolveSoC also says where each
// value came from.

// NamesParts says whether a SoC document's root mapping names a part
// (parts.NamesParts): ParseSoC then fills it in from them.
func NamesParts(root *yaml.Node) bool { return parts.NamesParts(root) }

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
