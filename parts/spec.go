package parts

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/blsim/blsim/internal/units"
	"go.yaml.in/yaml/v3"
)

// A Cluster is one CPU cluster of a spec-sheet SoC: how many cores of
// which core part, at which clock, optionally named and with its CPU ids.
type Cluster struct {
	Name     string
	Cores    int
	Core     string // the core part's name
	ClockGHz float64
	CPUs     []int
}

var clusterRe = regexp.MustCompile(`^(?:([a-z][a-z0-9_-]*)=)?(\d+)x([a-z0-9][a-z0-9._-]*)@([0-9.]+)(?::([0-9,-]+))?$`)

// ParseCluster reads a cluster spec: [NAME=]COUNTxCORE@GHZ[:CPUS], as
// 4xcortex-a76@2.4, big=1xcortex-x4@3.25 or 4xcortex-a76@2.4:4-7. The
// core must be a known part; a malformed spec or an unknown core is a
// one-line error that shows the form or names the nearest cores.
func ParseCluster(s string) (Cluster, error) {
	form := "want [NAME=]COUNTxCORE@GHZ[:CPUS], e.g. 4xcortex-a76@2.4 or big=4xcortex-a76@2.4:4-7"
	m := clusterRe.FindStringSubmatch(strings.ToLower(strings.TrimSpace(s)))
	if m == nil {
		return Cluster{}, fmt.Errorf("cluster %q: %s", s, form)
	}
	c := Cluster{Name: m[1], Core: m[3]}
	var err error
	if c.Cores, err = strconv.Atoi(m[2]); err != nil || c.Cores < 1 || c.Cores > 1024 {
		return Cluster{}, fmt.Errorf("cluster %q: core count %s is outside [1, 1024]", s, m[2])
	}
	if c.ClockGHz, err = strconv.ParseFloat(m[4], 64); err != nil {
		return Cluster{}, fmt.Errorf("cluster %q: clock %q is not a number in GHz; %s", s, m[4], form)
	}
	if err := units.ClockRange.Check(c.ClockGHz); err != nil {
		return Cluster{}, fmt.Errorf("cluster %q: %v", s, err)
	}
	core, err := LookupCore(c.Core)
	if err != nil {
		return Cluster{}, fmt.Errorf("cluster %q: %v", s, err)
	}
	c.Core = core.Name
	if m[5] != "" {
		if c.CPUs, err = cpuList(m[5]); err != nil || len(c.CPUs) != c.Cores {
			return Cluster{}, fmt.Errorf("cluster %q: CPUs %q: want %d CPU ids, one per core (4-7 or 0,2,4,6)", s, m[5], c.Cores)
		}
	}
	return c, nil
}

// cpuList reads a Linux CPU list: 0-3,8,10-11.
func cpuList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad range %q", part)
			}
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}

// A DRAM is a spec sheet's memory: type, transfer rate and bus width.
type DRAM struct {
	Type    string
	MTs     float64
	BusBits int
}

var dramRe = regexp.MustCompile(`^([a-z0-9]+)-([0-9.]+)x(\d+)$`)

// ParseDRAM reads TYPE-MTSxBITS: lpddr4x-4224x64, ddr5-5600x128.
func ParseDRAM(s string) (DRAM, error) {
	form := "want TYPE-MTSxBITS, e.g. lpddr4x-4224x64 (type, MT/s, bus width in bits)"
	m := dramRe.FindStringSubmatch(strings.ToLower(strings.TrimSpace(s)))
	if m == nil {
		return DRAM{}, fmt.Errorf("dram %q: %s", s, form)
	}
	mem, err := LookupMemory(m[1])
	if err != nil {
		return DRAM{}, fmt.Errorf("dram %q: %v", s, err)
	}
	d := DRAM{Type: mem.Name}
	d.MTs, _ = strconv.ParseFloat(m[2], 64)
	if err := units.TransferRateRange.Check(d.MTs); err != nil {
		return DRAM{}, fmt.Errorf("dram %q: %v", s, err)
	}
	if d.BusBits, err = strconv.Atoi(m[3]); err != nil || d.BusBits < 8 || d.BusBits > 8192 {
		return DRAM{}, fmt.Errorf("dram %q: bus width %s bits is outside [8, 8192]", s, m[3])
	}
	if err := mem.CheckBus(d.BusBits, d.MTs); err != nil {
		return DRAM{}, fmt.Errorf("dram %q: %v", s, err)
	}
	return d, nil
}

// defaultNames names n clusters in the order a spec sheet lists them,
// fastest first.
func defaultNames(n int) []string {
	switch n {
	case 1:
		return []string{"big"}
	case 2:
		return []string{"big", "little"}
	case 3:
		return []string{"big", "mid", "little"}
	case 4:
		return []string{"prime", "big", "mid", "little"}
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("c%d", i)
	}
	return out
}

// NewSoC writes the SoC file of a spec sheet: its clusters, memory and
// shared cache (KiB, 0 for none), naming parts for everything else. name
// is the SoC's name. (package model's NewSoC checks that it resolves.)
func NewSoC(name string, clusters []Cluster, dram DRAM, l3KiB float64) ([]byte, error) {
	if len(clusters) == 0 {
		return nil, fmt.Errorf("no cluster: give at least one --cluster COUNTxCORE@GHZ")
	}
	names := defaultNames(len(clusters))
	var desc []string
	doc := &yaml.Node{Kind: yaml.MappingNode}
	add := func(m *yaml.Node, k string, v any) {
		var n yaml.Node
		_ = n.Encode(v)
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &n)
	}
	add(doc, "schema", "blsim/soc/v1")
	add(doc, "name", name)
	engines := &yaml.Node{Kind: yaml.SequenceNode}
	seen := map[string]bool{}
	for i, c := range clusters {
		if c.Name == "" {
			c.Name = names[i]
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("cluster %d: name %q given twice (name clusters NAME=COUNTxCORE@GHZ)", i+1, c.Name)
		}
		seen[c.Name] = true
		e := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		add(e, "name", c.Name)
		add(e, "core", c.Core)
		add(e, "cores", c.Cores)
		add(e, "clock_ghz", c.ClockGHz)
		if c.CPUs != nil {
			add(e, "cpus", c.CPUs)
			e.Content[len(e.Content)-1].Style = yaml.FlowStyle
		}
		engines.Content = append(engines.Content, e)
		desc = append(desc, fmt.Sprintf("%dx %s @%g", c.Cores, c.Core, c.ClockGHz))
	}
	add(doc, "description", fmt.Sprintf("%s GHz, %s-%g x%d", strings.Join(desc, " + "), dram.Type, dram.MTs, dram.BusBits))
	if l3KiB > 0 {
		add(doc, "shared_cache_kib", l3KiB)
	}
	d := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	add(d, "type", dram.Type)
	add(d, "bus_bits", dram.BusBits)
	add(d, "mt_s", dram.MTs)
	add(doc, "dram", d)
	doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "engines"}, engines)
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	_ = enc.Close()
	return out.Bytes(), nil
}

// A SheetSpec is a spec sheet as blsim socs new takes it: clusters
// (ParseCluster), the memory (ParseDRAM) and the shared cache in MiB.
type SheetSpec struct {
	Name     string
	Clusters []string
	DRAM     string
	L3MiB    float64
}

// SoC is NewSoC of the spec; errors name the flag (--cluster, --dram,
// --l3-mib).
func (s SheetSpec) SoC() ([]byte, error) {
	var cs []Cluster
	for _, c := range s.Clusters {
		cl, err := ParseCluster(c)
		if err != nil {
			return nil, fmt.Errorf("--cluster: %w", err)
		}
		cs = append(cs, cl)
	}
	if s.DRAM == "" {
		return nil, fmt.Errorf("--dram: required, TYPE-MTSxBITS (e.g. lpddr4x-4224x64)")
	}
	d, err := ParseDRAM(s.DRAM)
	if err != nil {
		return nil, fmt.Errorf("--dram: %w", err)
	}
	if s.L3MiB < 0 || s.L3MiB > 4096 {
		return nil, fmt.Errorf("--l3-mib %g: outside [0, 4096] MiB", s.L3MiB)
	}
	return NewSoC(s.Name, cs, d, s.L3MiB*1024)
}
