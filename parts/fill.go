package parts

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/blsim/blsim/internal/units"
	"github.com/blsim/blsim/internal/yamlx"
	"github.com/blsim/blsim/model/enum"
	"go.yaml.in/yaml/v3"
)

// filler fills one SoC document in place from the parts it names,
// recording each value it adds in res (nil: record nothing).
type filler struct {
	root *yaml.Node
	file string
	res  *Resolution
}

// Fill fills in root, the mapping of a SoC document that names parts:
// the dram from its memory type, each engine that names a core from it,
// the handoff from the default runtime, each engine's shared cache from
// the chip's shared_cache_kib (which it then removes: it is no key of a
// SoC). A value the document gives is kept. Each value it adds is
// recorded in res (nil: none is). Errors are *FieldError.
func Fill(root *yaml.Node, file string, res *Resolution) error {
	f := &filler{root: root, file: file, res: res}
	dram := yamlx.Value(root, "dram")
	if dram != nil && dram.Kind == yaml.MappingNode && yamlx.Value(dram, "type") != nil {
		if err := f.dram(dram); err != nil {
			return err
		}
	}
	sustained, _ := number(yamlx.Value(dram, "sustained_gb_s"))
	peak, _ := number(yamlx.Value(dram, "peak_gb_s"))
	if engines := yamlx.Value(root, "engines"); engines != nil && engines.Kind == yaml.SequenceNode {
		for i, e := range engines.Content {
			if yamlx.Value(e, "core") != nil {
				if err := f.engine(e, i, sustained, peak); err != nil {
					return err
				}
			}
		}
	}
	f.handoff()
	// The chip's shared cache went to each engine; it is no key of the
	// SoC itself.
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "shared_cache_kib" {
			root.Content = append(root.Content[:i], root.Content[i+2:]...)
			break
		}
	}
	return nil
}

func (f *filler) fail(n *yaml.Node, path, format string, a ...any) error {
	line := 0
	if n != nil {
		line = n.Line
	}
	return &FieldError{File: f.file, Line: line, Path: path, Msg: fmt.Sprintf(format, a...)}
}

// put adds key to mapping m with value v unless m has it, recording the
// part's source for path.
func (f *filler) put(m *yaml.Node, key string, v any, path string, src Source, line int) {
	if yamlx.Value(m, key) != nil {
		return
	}
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		panic(err) // blsim's own values always encode
	}
	setLine(&n, line)
	if n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode {
		n.Style = yaml.FlowStyle
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: line}, &n)
	f.res.set(path, src)
}

func setLine(n *yaml.Node, line int) {
	n.Line = line
	for _, c := range n.Content {
		setLine(c, line)
	}
}

// dram fills peak_gb_s from the bus and rate, sustained_gb_s from the
// memory type's share and sharing.
func (f *filler) dram(d *yaml.Node) error {
	tn := yamlx.Value(d, "type")
	m, err := LookupMemory(tn.Value)
	if err != nil {
		return f.fail(tn, "dram.type", "%v", err)
	}
	line := tn.Line
	part := func(note string) Source { return Source{Layer: FromPart, Part: m.Name, Note: note} }
	peak, hasPeak := number(yamlx.Value(d, "peak_gb_s"))
	if !hasPeak {
		bus, okBus := number(yamlx.Value(d, "bus_bits"))
		mts, okMTs := number(yamlx.Value(d, "mt_s"))
		if !okBus || !okMTs {
			return f.fail(d, "dram", "type %s needs bus_bits and mt_s (the bus width in bits and the transfer rate in MT/s) for the peak, or peak_gb_s", m.Name)
		}
		if err := units.TransferRateRange.Check(mts); err != nil {
			return f.fail(yamlx.Value(d, "mt_s"), "dram.mt_s", "%v", err)
		}
		if bus < 8 || bus > 8192 || bus != math.Trunc(bus) {
			return f.fail(yamlx.Value(d, "bus_bits"), "dram.bus_bits", "%g is not a bus width in bits (8 to 8192)", bus)
		}
		if err := m.CheckBus(int(bus), mts); err != nil {
			path, n := "dram.mt_s", yamlx.Value(d, "mt_s")
			if int(bus)%m.ChannelBits != 0 {
				path, n = "dram.bus_bits", yamlx.Value(d, "bus_bits")
			}
			return f.fail(n, path, "%v", err)
		}
		peak = PeakGBs(int(bus), mts)
		f.put(d, "peak_gb_s", round3(peak), "dram.peak_gb_s",
			part(fmt.Sprintf("%g bits / 8 x %g MT/s = %.4g GB/s", bus, mts, peak)), line)
		peak = round3(peak)
	}
	ctrl := ""
	if c := yamlx.Value(d, "controller"); c != nil {
		ctrl = c.Value
	}
	share, from, err := m.Share(ctrl)
	if err != nil {
		return f.fail(yamlx.Value(d, "controller"), "dram.controller", "%v", err)
	}
	f.put(d, "sustained_gb_s", round3(peak*share), "dram.sustained_gb_s",
		part(fmt.Sprintf("%g x peak %g GB/s: %s", share, peak, m.Note(from))), line)
	f.put(d, "sharing", enum.ShareMaxMin, "dram.sharing", part("engines whose demand exceeds the sustained bandwidth share it max-min fairly (blsim's default)"), line)
	return nil
}

// engine fills engine node e (index i) from its core part.
func (f *filler) engine(e *yaml.Node, i int, sustained, peak float64) error {
	cn := yamlx.Value(e, "core")
	c, err := LookupCore(cn.Value)
	if err != nil {
		return f.fail(cn, fmt.Sprintf("engines[%d].core", i), "%v", err)
	}
	name := engineName(e, i)
	p := "engines." + name + "."
	line := cn.Line
	part := func(note string) Source { return Source{Layer: FromPart, Part: c.Name, Note: note} }
	f.put(e, "kind", enum.KindCPU, p+"kind", part("a core part is a CPU cluster"), line)
	f.put(e, "core_type", c.Title, p+"core_type", part("the part's title"), line)
	if c.SMTWays > 1 {
		f.put(e, "smt_ways", c.SMTWays, p+"smt_ways", part(c.Note("smt_ways")), line)
		f.smtYield(e, c, p, line)
	}
	filled := map[string]float64{}
	for _, ev := range c.EngineValues() {
		if yamlx.Value(e, ev.Key) != nil {
			continue
		}
		n := copyNode(ev.Value)
		setLine(n, line)
		e.Content = append(e.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: ev.Key, Line: line}, n)
		f.res.set(p+ev.Key, part(ev.Note))
		if x, ok := number(ev.Value); ok {
			filled[ev.Key] = x
		}
	}
	repacked := c.RepackedTypes()
	if rn := yamlx.Value(e, "repacked_types"); rn != nil {
		repacked = nil
		_ = rn.Decode(&repacked) // a wrong shape is the model's error to report
	} else if len(repacked) > 0 {
		f.put(e, "repacked_types", repacked, p+"repacked_types",
			part(fmt.Sprintf("the types ggml repacks at load on a core with %s (Core.RepackedTypes: ggml-cpu repack.cpp)", strings.Join(c.Features, ", "))), line)
	}
	rates, notes := c.Rates(repacked)
	kn := yamlx.Value(e, "kernel_ops_per_cycle")
	if kn == nil {
		kn = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle, Line: line}
		e.Content = append(e.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "kernel_ops_per_cycle", Line: line}, kn)
	}
	if kn.Kind == yaml.MappingNode {
		for _, k := range sortedKeys(rates) {
			f.put(kn, k, rates[k], p+"kernel_ops_per_cycle."+k, part(notes[k]), line)
			filled["kernel_ops_per_cycle."+k] = rates[k]
		}
	}
	if c.RepackedGemvEfficiency > 0 && len(repacked) > 0 {
		gn := yamlx.Value(e, "gemv_efficiency_by_type")
		if gn == nil {
			gn = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle, Line: line}
			e.Content = append(e.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "gemv_efficiency_by_type", Line: line}, gn)
		}
		if gn.Kind == yaml.MappingNode {
			for _, t := range repacked {
				f.put(gn, t, c.RepackedGemvEfficiency, p+"gemv_efficiency_by_type."+t,
					part(c.Note("repacked_gemv_efficiency")), line)
			}
		}
	}
	f.put(e, "l2_kib_per_core", c.L2KiB, p+"l2_kib_per_core", part(c.Note("l2_kib")), line)
	if l3, ok := number(yamlx.Value(f.root, "shared_cache_kib")); ok {
		at := yamlx.Value(f.root, "shared_cache_kib").Line
		f.put(e, "shared_cache_kib", l3, p+"shared_cache_kib", Source{Layer: FromFile, Line: at, Note: "the chip's shared_cache_kib"}, at)
	} else {
		f.put(e, "shared_cache_kib", 0, p+"shared_cache_kib", part("no shared cache given (shared_cache_kib at the top of the file or in the engine)"), line)
	}
	if sustained > 0 {
		f.bandwidth(e, c, p, sustained, peak, line, filled)
	} else if yamlx.Value(e, "bandwidth_max_gb_s") == nil {
		// No sustained figure to derive the cap from: the model's
		// validation names the DRAM's missing or bad value, not this one.
		f.put(e, "bandwidth_max_gb_s", 0, p+"bandwidth_max_gb_s", part("no DRAM sustained bandwidth to take a share of"), line)
	}
	f.uncertainty(c, p, filled, line)
	return nil
}

// smtYield fills the engine's SMT yields the file leaves out from the
// core's, each with its source.
func (f *filler) smtYield(e *yaml.Node, c *Core, p string, line int) {
	y := yamlx.Value(e, "smt_yield")
	if y == nil {
		y = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle, Line: line}
		e.Content = append(e.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "smt_yield", Line: line}, y)
	}
	if y.Kind != yaml.MappingNode {
		return // the model's error to report
	}
	for _, k := range SMTYieldKeys {
		f.put(y, k, c.SMTYield[k], p+"smt_yield."+k, Source{Layer: FromPart, Part: c.Name, Note: c.Note("smt_yield." + k)}, line)
	}
}

// bandwidth fills the engine's per-thread and cluster DRAM caps from the
// core's stream and cluster share and the DRAM's sustained figure.
func (f *filler) bandwidth(e *yaml.Node, c *Core, p string, sustained, peak float64, line int, filled map[string]float64) {
	part := func(note string) Source { return Source{Layer: FromPart, Part: c.Name, Note: note} }
	perThread, given := number(yamlx.Value(e, "bandwidth_per_thread_gb_s"))
	if !given {
		perThread = round3(math.Min(c.StreamGBs, sustained))
		f.put(e, "bandwidth_per_thread_gb_s", perThread, p+"bandwidth_per_thread_gb_s",
			part(fmt.Sprintf("one core's stream %g GB/s (%s), at most the DRAM's sustained %g", c.StreamGBs, c.Note("stream_gb_s"), sustained)), line)
		filled["bandwidth_per_thread_gb_s"] = perThread
	}
	cores, _ := number(yamlx.Value(e, "cores"))
	capGBs := c.ClusterDRAMShare * sustained
	if peak > 0 {
		capGBs = math.Min(capGBs, peak)
	}
	if cores > 0 {
		capGBs = math.Min(capGBs, cores*perThread)
	}
	capGBs = round3(capGBs)
	f.put(e, "bandwidth_max_gb_s", capGBs, p+"bandwidth_max_gb_s",
		part(fmt.Sprintf("least of %g x sustained %g GB/s (%s) and %g cores x %g GB/s", c.ClusterDRAMShare, sustained, c.Note("cluster_dram_share"), cores, perThread)), line)
	filled["bandwidth_max_gb_s"] = capGBs
}

// uncertainty adds the part's relative uncertainty of each value it gave
// the engine, unless the file gives that value or its uncertainty.
func (f *filler) uncertainty(c *Core, p string, filled map[string]float64, line int) {
	if len(c.Uncertainty) == 0 {
		return
	}
	u := yamlx.Value(f.root, "uncertainty")
	for _, k := range sortedKeys(c.Uncertainty) {
		v, ok := filled[k]
		if !ok || v == 0 {
			continue
		}
		if u == nil {
			u = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
			f.root.Content = append(f.root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "uncertainty", Line: line}, u)
		}
		key := p[len("engines."):] + k
		f.put(u, "engines."+key, round3(c.Uncertainty[k]*v), "uncertainty.engines."+key,
			Source{Layer: FromPart, Part: c.Name, Note: fmt.Sprintf("%g of the value: %s", c.Uncertainty[k], c.Note("uncertainty."+k))}, line)
	}
}

// handoff fills the handoff's missing keys from the default runtime.
func (f *filler) handoff() {
	r := lib().runtimes[DefaultRuntime]
	h := yamlx.Value(f.root, "handoff")
	if h == nil {
		h = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		f.root.Content = append(f.root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "handoff"}, h)
	}
	if h.Kind != yaml.MappingNode {
		return
	}
	for j := 0; j+1 < len(r.Handoff.Content); j += 2 {
		k, v := r.Handoff.Content[j], r.Handoff.Content[j+1]
		if yamlx.Value(h, k.Value) != nil {
			continue
		}
		kc, vc := copyNode(k), copyNode(v)
		setLine(kc, h.Line)
		setLine(vc, h.Line)
		h.Content = append(h.Content, kc, vc)
		f.res.set("handoff."+k.Value, Source{Layer: FromPart, Part: r.Name, Note: r.Note("handoff." + k.Value)})
	}
}

func copyNode(n *yaml.Node) *yaml.Node {
	c := *n
	c.HeadComment, c.LineComment, c.FootComment = "", "", ""
	c.Content = nil
	for _, k := range n.Content {
		c.Content = append(c.Content, copyNode(k))
	}
	return &c
}

// number is a scalar node's numeric value.
func number(n *yaml.Node) (float64, bool) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return 0, false
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	return v, err == nil
}
