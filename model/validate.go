package model

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/blsim/blsim/internal/units"
	"github.com/blsim/blsim/model/enum"
)

// FieldError is a value that is out of range, named by its path in the
// YAML document ("engines[1].clock_ghz") and, when loaded from a file, the
// file and line.
type FieldError struct {
	File string
	Line int
	Path string
	Msg  string
}

func (e *FieldError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(":")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "%d:", e.Line)
	}
	if b.Len() > 0 {
		b.WriteString(" ")
	}
	if e.Path != "" {
		// A key may hold a newline ("a\nb": 1); the error stays one line.
		if strings.ContainsAny(e.Path, "\r\n") {
			b.WriteString(strconv.Quote(e.Path))
		} else {
			b.WriteString(e.Path)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// checker collects the first range error of a document.
type checker struct{ err *FieldError }

func (c *checker) fail(path, format string, a ...any) {
	if c.err == nil {
		c.err = &FieldError{Path: path, Msg: fmt.Sprintf(format, a...)}
	}
}

// num checks lo <= v <= hi and that v is a finite number.
func (c *checker) num(path string, v, lo, hi float64) {
	switch {
	case !finite(v):
		c.fail(path, "%g is not a finite number", v)
	case v < lo && lo == 0:
		c.fail(path, "%g is negative", v)
	case v < lo || v > hi:
		c.fail(path, "%g is outside [%g, %g]", v, lo, hi)
	}
}

// in checks v against a physical range.
func (c *checker) in(path string, v float64, r Range) {
	if !finite(v) {
		c.fail(path, "%g is not a finite number", v)
		return
	}
	if v < 0 {
		c.fail(path, "%g is negative", v)
		return
	}
	if err := r.Check(v); err != nil {
		c.fail(path, "%v", err)
	}
}

// hinted is num with a hint appended when v fails it: the reading of v
// in another unit that would be in range (hint gives it, or "").
func (c *checker) hinted(path string, v, lo, hi float64, hint func(v float64) string) {
	before := c.err
	c.num(path, v, lo, hi)
	if before == nil && c.err != nil {
		c.err.Msg += hint(v)
	}
}

// frac checks a fraction in [lo, 1]. A value in [2, 100] reads as a
// percentage, and the error says so; a value in (1, 2) is a share past
// its end (an overlap of 1.5), not a percentage under 2, and the error
// says what 1 means instead.
func (c *checker) frac(path string, v, lo float64) {
	c.hinted(path, v, lo, 1, func(v float64) string {
		switch {
		case v >= 2 && v <= 100:
			return fmt.Sprintf(" (a fraction, not a percentage: %g%% is %g)", v, v/100)
		case v > 1 && v < 2:
			return " (a share: 1 is all of it, the most there is)"
		}
		return ""
	})
}

// kib checks a cache size in KiB against [0, hi]: a value that is in
// range read as bytes gets that hint.
func (c *checker) kib(path string, v, hi float64) {
	if finite(v) && v > hi {
		hint := ""
		if v/1024 <= hi {
			hint = fmt.Sprintf(" (in bytes? %.0f B is %g KiB: write it in KiB)", v, v/1024)
		}
		c.fail(path, "%.0f KiB is above %.0f KiB, the largest cache blsim takes%s", v, hi, hint)
		return
	}
	c.num(path, v, 0, hi)
}

func (c *checker) integer(path string, v, lo, hi int) {
	if v < lo || v > hi {
		if v < 0 && lo >= 0 {
			c.fail(path, "%d is negative", v)
			return
		}
		c.fail(path, "%d is outside [%d, %d]", v, lo, hi)
	}
}

func (c *checker) nonEmpty(path, v string) {
	if strings.TrimSpace(v) == "" {
		c.fail(path, "must not be empty")
	}
}

// Validate checks every value of the SoC for range and consistency.
func (s *SoC) Validate() error {
	c := &checker{}
	if s.Schema != SoCSchema {
		c.fail("schema", "%q is not %q", s.Schema, SoCSchema)
	}
	c.nonEmpty("name", s.Name)
	c.spec(s)
	d := s.DRAM
	c.in("dram.peak_gb_s", d.PeakGBs, BandwidthRange)
	c.in("dram.sustained_gb_s", d.SustainedGBs, BandwidthRange)
	if c.err == nil && d.SustainedGBs > d.PeakGBs {
		c.fail("dram.sustained_gb_s", "%g exceeds peak_gb_s %g", d.SustainedGBs, d.PeakGBs)
	}
	if !d.Sharing.Known() {
		c.fail("dram.sharing", "%q is not a sharing policy (known: %s)", d.Sharing, enum.List(Sharings))
	}
	if len(s.Engines) == 0 {
		c.fail("engines", "at least one engine is needed")
	}
	if len(s.Engines) > MaxEngines {
		c.fail("engines", "%d engines: at most %d", len(s.Engines), MaxEngines)
		return c.err
	}
	names := map[string]bool{}
	seenCPU := map[int]string{}
	cpuCores := 0
	for i := range s.Engines {
		e := &s.Engines[i]
		p := fmt.Sprintf("engines[%d].", i)
		c.nonEmpty(p+"name", e.Name)
		if names[e.Name] {
			c.fail(p+"name", "engine %q listed twice", e.Name)
		}
		names[e.Name] = true
		if !e.Kind.Known() {
			c.fail(p+"kind", "%q is not an engine kind (known: %s)", e.Kind, enum.List(EngineKinds))
		}
		c.integer(p+"cores", e.Cores, 1, CPUCoresRange.Max)
		if e.Kind == KindCPU {
			cpuCores += e.Cores
		}
		c.in(p+"clock_ghz", e.ClockGHz, ClockRange)
		for j, g := range e.ClockGHzByBusyCores {
			c.in(fmt.Sprintf("%sclock_ghz_by_busy_cores[%d]", p, j), g, ClockRange)
		}
		for _, k := range KernelClasses {
			v, ok := e.KernelOpsPerCycle[string(k)]
			if !ok {
				c.fail(p+"kernel_ops_per_cycle", "missing kernel class %q", k)
				continue
			}
			c.in(p+"kernel_ops_per_cycle."+string(k), v, KernelRateRange)
		}
		for k, v := range e.KernelOpsPerCycle {
			switch _, typ := ggmlTypeBits[k]; {
			case typ && !isClass(k), contains(AttentionRateKeys, k):
				c.in(p+"kernel_ops_per_cycle."+k, v, KernelRateRange)
			case !isClass(k):
				c.fail(p+"kernel_ops_per_cycle."+k, "unknown kernel class or GGML type (want a class, %s, an attention rate, %s, or a GGML type: %s)",
					enum.List(KernelClasses), strings.Join(AttentionRateKeys, ", "), strings.Join(GGMLTypes(), ", "))
			}
		}
		c.frac(p+"moe_efficiency", e.MoEEfficiency, 0.01)
		c.frac(p+"gemv_efficiency", e.GemvEfficiency, 0)
		for _, k := range slices.Sorted(maps.Keys(e.GemvEfficiencyByType)) {
			if _, typ := ggmlTypeBits[k]; !typ {
				c.fail(p+"gemv_efficiency_by_type."+k, "unknown GGML type (q4_0, q4_k, iq4_xs, ...)")
				continue
			}
			c.frac(p+"gemv_efficiency_by_type."+k, e.GemvEfficiencyByType[k], 0.01)
		}
		c.frac(p+"gemv_overlap", e.GemvOverlap, 0)
		switch {
		case e.IndependentThreadLoads != 0 && e.IndependentThreadLoads != 1:
			c.fail(p+"independent_thread_loads", "%g: want 0 (lockstep) or 1 (independent)", e.IndependentThreadLoads)
		case e.IndependentThreadLoads == 1 && e.BandwidthPerThreadGBs <= 0:
			c.fail(p+"independent_thread_loads", "needs bandwidth_per_thread_gb_s, each thread's stream rate")
		case e.IndependentThreadLoads == 1 && e.IsAccelerator():
			c.fail(p+"independent_thread_loads", "CPU clusters only")
		}
		c.in(p+"scalar_ops_per_cycle", e.ScalarOpsPerCycle, KernelRateRange)
		c.frac(p+"thread_scaling_loss", e.ThreadScalingLoss, 0)
		c.in(p+"bandwidth_max_gb_s", e.BandwidthMaxGBs, BandwidthRange)
		if c.err == nil && e.BandwidthMaxGBs > d.PeakGBs && e.UsesSharedDRAM() {
			c.fail(p+"bandwidth_max_gb_s", "%g exceeds dram.peak_gb_s %g", e.BandwidthMaxGBs, d.PeakGBs)
		}
		c.hinted(p+"bandwidth_per_thread_gb_s", e.BandwidthPerThreadGBs, 0, BandwidthRange.Max, func(v float64) string { return units.Hint(BandwidthRange, v) })
		c.kib(p+"l2_kib_per_core", e.L2KiBPerCore, 1<<16)
		c.kib(p+"shared_cache_kib", e.SharedCacheKiB, 3<<19)
		c.frac(p+"cache_usable_frac", e.CacheUsableFrac, 0)
		c.num(p+"llc_bandwidth_gb_s", e.LLCBandwidthGBs, 0, 100000)
		c.integer(p+"token_tile", e.TokenTile, 1, 4096)
		c.integer(p+"expert_token_tile", e.ExpertTokenTile, 1, 4096)
		c.frac(p+"mem_compute_overlap", e.MemComputeOverlap, 0)
		c.repacked(p, e)
		c.cpus(p, e, seenCPU)
		c.smt(p, e, seenCPU)
		c.smtYield(p, e)
		c.accelerator(p, e)
	}
	if cpuCores > CPUCoresRange.Max {
		c.fail("engines", "%d CPU cores in all: at most %d (one ggml pool runs at most %d threads, and a thread sweep runs one over two clusters)", cpuCores, CPUCoresRange.Max, MaxPoolThreads)
	}
	h := s.Handoff
	for _, f := range []struct {
		path string
		v    float64
	}{
		{"handoff.signal_us", h.SignalUS}, {"handoff.spin_wake_us", h.SpinWakeUS},
		{"handoff.futex_wake_us", h.FutexWakeUS}, {"handoff.sleep_exit_us", h.SleepExitUS},
		{"handoff.sleep_exit_after_us", h.SleepExitAfterUS},
		{"handoff.spin_window_us_per_poll", h.SpinWindowUSPerPoll}, {"handoff.spawn_us", h.SpawnUS},
		{"handoff.join_us", h.JoinUS}, {"handoff.gather_us", h.GatherUS},
		{"handoff.graph_split_gap_us", h.GraphSplitGapUS}, {"handoff.timeslice_us", h.TimesliceUS},
	} {
		c.num(f.path, f.v, 0, 1e6)
	}
	prev := 0.0
	for i, p := range h.SleepExitByIdle {
		path := fmt.Sprintf("handoff.sleep_exit_by_idle[%d]", i)
		switch {
		case h.SleepExitAfterUS <= 0:
			c.fail(path, "a share of the sleep exit by idle needs sleep_exit_after_us, the idle at which all of it is paid")
		case !(p.IdleUS > prev && p.IdleUS < h.SleepExitAfterUS):
			c.fail(path+".idle_us", "%g µs: want idles in increasing order, above 0 and below sleep_exit_after_us (%g)", p.IdleUS, h.SleepExitAfterUS)
		case !(p.Share >= 0 && p.Share <= 1):
			c.fail(path+".share", "%g outside [0, 1] (a share of sleep_exit_us: 1 is all of it)", p.Share)
		}
		prev = max(prev, p.IdleUS)
	}
	c.num("handoff.forfeit_pct", h.ForfeitPct, 0, 90)
	c.num("handoff.background_cpus", h.BackgroundCPUs, 0, MaxBackgroundCPUs)
	c.integer("handoff.graph_splits_per_layer", h.GraphSplitsPerLayer, 0, 1000)
	c.integer("handoff.split_absorbs_graph_splits", h.SplitAbsorbsGraphSplits, 0, h.GraphSplitsPerLayer)
	for path, sigma := range s.Uncertainty {
		if _, err := s.Get(path); err != nil {
			c.fail("uncertainty."+path, "%v", err)
		}
		c.num("uncertainty."+path, sigma, 0, 1e9)
	}
	if c.err != nil {
		return c.err
	}
	return nil
}

// accelerator checks the accelerator-only fields of engine e (path prefix
// p): required and in range for kind npu, absent for a CPU cluster.
func (c *checker) accelerator(p string, e *Engine) {
	if e.Kind == KindCPU {
		for _, f := range []struct {
			key string
			set bool
		}{
			{"submit_us", e.SubmitUS != 0}, {"setup_us_per_op", e.SetupUSPerOp != 0},
			{"ops", e.Ops != nil}, {"split_modes", e.SplitModes != nil}, {"shares_dram", e.SharesDRAM != nil},
			{"convert_bytes_per_weight_byte", e.ConvertBytesPerWeightByte != nil},
		} {
			if f.set {
				c.fail(p+f.key, "only for accelerator engines (kind npu); a CPU cluster runs every op and wakes its pool instead")
			}
		}
		return
	}
	if e.RepackedTypes != nil {
		c.fail(p+"repacked_types", "only for CPU clusters: an accelerator runs its own kernels, not ggml's CPU ones")
	}
	if !(e.SubmitUS > 0) {
		c.fail(p+"submit_us", "required for kind %s: the per-submit latency, positive, in µs", e.Kind)
	}
	c.num(p+"submit_us", e.SubmitUS, 0, 1e6)
	c.num(p+"setup_us_per_op", e.SetupUSPerOp, 0, 1e6)
	if len(e.Ops) == 0 {
		c.fail(p+"ops", "required for kind %s: the op kinds it runs (%s)", e.Kind, strings.Join(OpKindNames(), ", "))
	}
	seen := map[OpKind]bool{}
	for i, o := range e.Ops {
		if !slices.Contains(OpKinds, o) {
			c.fail(fmt.Sprintf("%sops[%d]", p, i), "%q is not an op kind (known: %s)", o, enum.List(OpKinds))
		}
		if seen[o] {
			c.fail(fmt.Sprintf("%sops[%d]", p, i), "%q listed twice", o)
		}
		seen[o] = true
	}
	if e.SplitModes != nil && len(e.SplitModes) == 0 {
		c.fail(p+"split_modes", "empty; leave it out for both token and expert")
	}
	for i, m := range e.SplitModes {
		if !m.IsSplit() {
			c.fail(fmt.Sprintf("%ssplit_modes[%d]", p, i), "%q is not %s", m, ModeList(splitModes))
		}
	}
	if e.SharesDRAM == nil {
		c.fail(p+"shares_dram", "required for kind %s: true when it streams from the SoC's DRAM", e.Kind)
	}
	for k, v := range e.ConvertBytesPerWeightByte {
		if !k.Known() {
			c.fail(p+"convert_bytes_per_weight_byte."+string(k), "%q is not a kernel class (known: %s)", k, enum.List(KernelClasses))
		}
		c.num(p+"convert_bytes_per_weight_byte."+string(k), v, 0, 16)
	}
}

// Validate checks every value of the workload for range and consistency.
func (w *Workload) Validate() error {
	c := &checker{}
	if w.Schema != WorkloadSchema {
		c.fail("schema", "%q is not %q", w.Schema, WorkloadSchema)
	}
	c.nonEmpty("name", w.Name)
	m := &w.Model
	c.integer("model.layers", m.Layers, 1, 1000)
	if m.Pattern == "" {
		c.fail("model.pattern", "must not be empty")
	}
	hasL, hasS := false, false
	for _, r := range m.Pattern {
		switch r {
		case 'F':
		case 'S':
			hasS = true
		case 'L':
			hasL = true
		default:
			c.fail("model.pattern", "unknown layer kind %q (want F, S or L)", r)
		}
	}
	c.integer("model.hidden", m.Hidden, 16, 1<<17)
	c.integer("model.vocab", m.Vocab, 1, 1<<22)
	a := m.Attention
	c.integer("model.attention.heads", a.Heads, 1, 1024)
	c.integer("model.attention.kv_heads", a.KVHeads, 1, a.Heads)
	c.integer("model.attention.head_dim", a.HeadDim, 1, 4096)
	c.integer("model.attention.sliding_window", a.SlidingWindow, 0, 1<<24)
	c.integer("model.attention.value_dim", a.ValueDim, 0, 4096)
	c.integer("model.attention.kv_lora_rank", a.KVLoraRank, 0, 1<<16)
	c.integer("model.attention.q_lora_rank", a.QLoraRank, 0, 1<<16)
	if a.MLA() {
		c.integer("model.attention.rope_dim", a.RopeDim, 1, a.HeadDim-1)
		if a.KVHeads != a.Heads {
			c.fail("model.attention.kv_heads", "%d with multi-head latent attention (kv_lora_rank %d): want heads, %d", a.KVHeads, a.KVLoraRank, a.Heads)
		}
		if a.QGate {
			c.fail("model.attention.q_gate", "true with multi-head latent attention, which has no query gate")
		}
	} else if a.QLoraRank > 0 || a.RopeDim > 0 {
		c.fail("model.attention.kv_lora_rank", "0, but q_lora_rank or rope_dim is set: they describe multi-head latent attention")
	}
	if hasS && a.SlidingWindow == 0 {
		c.fail("model.attention.sliding_window", "pattern has S layers but no window")
	}
	if hasL {
		if m.Linear == nil {
			c.fail("model.linear_attention", "pattern has L layers but linear_attention is missing")
		} else {
			l := m.Linear
			c.integer("model.linear_attention.in_proj_out", l.InProjOut, 1, 1<<20)
			c.integer("model.linear_attention.out_proj_in", l.OutProjIn, 1, 1<<20)
			c.integer("model.linear_attention.value_heads", l.ValueHeads, 1, 4096)
			c.integer("model.linear_attention.key_dim", l.KeyDim, 1, 4096)
			c.integer("model.linear_attention.value_dim", l.ValueDim, 1, 4096)
			c.integer("model.linear_attention.conv_kernel", l.ConvKernel, 0, 64)
		}
	}
	e := m.MoE
	// A dense model has no experts: every layer's FFN is dense_ffn wide.
	if dense := e.Experts == 0 && e.TopK == 0 && e.ExpertFFN == 0 && e.DenseLayers == m.Layers; !dense {
		c.integer("model.moe.experts", e.Experts, 1, 1<<16)
		c.integer("model.moe.top_k", e.TopK, 1, e.Experts)
		c.integer("model.moe.expert_ffn", e.ExpertFFN, 1, 1<<18)
	}
	c.integer("model.moe.shared_experts", e.SharedExperts, 0, 64)
	c.integer("model.moe.shared_ffn", e.SharedFFN, 0, 1<<18)
	if e.SharedExperts > 0 && e.SharedFFN == 0 {
		c.fail("model.moe.shared_ffn", "shared_experts is %d but shared_ffn is 0", e.SharedExperts)
	}
	c.integer("model.moe.dense_layers", e.DenseLayers, 0, m.Layers)
	c.integer("model.moe.dense_ffn", e.DenseFFN, 0, 1<<18)
	if e.DenseLayers > 0 && e.DenseFFN == 0 {
		c.fail("model.moe.dense_ffn", "dense_layers is %d but dense_ffn is 0", e.DenseLayers)
	}
	c.num("model.moe.router_skew", e.RouterSkew, 0, 3)
	for _, name := range tensorClasses {
		v, _ := m.BitsPerWeight.Of(name)
		c.num("model.bits_per_weight."+name, v, 1, 32)
	}
	for _, k := range slices.Sorted(maps.Keys(m.Types)) {
		v := m.Types[k]
		switch {
		case !contains(tensorClasses, k):
			c.fail("model.types."+k, "unknown tensor class (want one of %s, as under bits_per_weight)", strings.Join(tensorClasses, ", "))
		case !typeName.MatchString(v):
			c.fail("model.types."+k, "%q is not a GGML type name (lower case: q4_k, q8_0, f16)", v)
		}
	}
	if err := w.Run.Check(); err != nil && c.err == nil {
		fe := err.(*FieldError)
		c.fail("run."+fe.Path, "%s", fe.Msg)
	}
	c.integer("model.graph_nodes", m.GraphNodes, 0, 1<<24)
	if c.err == nil && m.GraphNodes > 0 {
		if n := len(w.TokenOps(0)); m.GraphNodes < n {
			c.fail("model.graph_nodes", "%d, but blsim times %d ops a graph of this model, and llama.cpp's graph has a node for each (its log at load: \"graph nodes = N\")", m.GraphNodes, n)
		}
	}
	if c.err != nil {
		return c.err
	}
	return nil
}

// typeName is the form of a GGML type's name in ggml's lower case.
var typeName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,15}$`)

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
