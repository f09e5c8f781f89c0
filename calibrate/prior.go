package calibrate

import (
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"

	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// Engine is a cluster to calibrate, with the clock its rates are per cycle
// of (the cluster's max frequency, or 1 GHz where cpufreq is absent, so
// that ops per cycle read as GOPS).
type Engine struct {
	Cluster  topology.Cluster
	ClockGHz float64
}

// NewEngines turns clusters into engines. A cluster with SMT is
// calibrated one thread a core: its engine's CPUs are the cores' first
// hardware threads (topology.Cluster.CoreCPUs), and the siblings serve
// only the SMT steps, which time one and two threads on one core.
func NewEngines(cs []topology.Cluster) []Engine {
	out := make([]Engine, len(cs))
	for i, c := range cs {
		ghz := float64(c.MaxFreqKHz) / 1e6
		if ghz <= 0 {
			ghz = 1
		}
		if c.SMTWays > 1 {
			c.CPUs = append([]int(nil), c.CoreCPUs...)
		}
		out[i] = Engine{Cluster: c, ClockGHz: ghz}
	}
	return out
}

// measuredOn says whether the measurements were taken on arch (Go's
// GOARCH): the first one that records its host says; with none, this
// process's.
func measuredOn(ms []measure.Measurement, arch string) bool {
	for _, m := range ms {
		if m.Host != nil && m.Host.Arch != "" {
			return m.Host.Arch == arch
		}
	}
	return runtime.GOARCH == arch
}

// median returns the median of the ok microbenchmarks informing path and
// their largest CV; ok is false when none did.
func median(ms []measure.Measurement, path string) (v, cv float64, ok bool) {
	var vals []float64
	for _, m := range ms {
		if m.Param == path && m.OK() {
			vals = append(vals, m.Median)
			cv = math.Max(cv, m.CV)
		}
	}
	if len(vals) == 0 {
		return 0, 0, false
	}
	sort.Float64s(vals)
	return vals[len(vals)/2], cv, true
}

// Prior builds the profile a fit starts from: engines from the clusters,
// rates, bandwidths and handoff costs from the microbenchmarks in ms, and
// documented defaults where nothing was measured. Its uncertainty map gives
// measured values their spread (at least 10%) and defaults 50%.
//
// The handoff section describes the built-in dispatcher running workload
// w: a pool of more than one thread is handed every op (a wake at each, like
// a graph split), except the expert ops of a split plan, which the
// simulator hands off as split ops.
func Prior(name string, engines []Engine, ms []measure.Measurement, w *model.Workload) *model.SoC {
	s := &model.SoC{Schema: model.SoCSchema, Name: name,
		Description: "calibrated by blsim on this machine",
		DRAM:        model.DRAM{Sharing: model.ShareMaxMin}, Uncertainty: map[string]float64{}}
	set := func(path string, v *float64, def float64) {
		m, cv, ok := median(ms, path)
		if ok && m > 0 {
			*v = m
			s.Uncertainty[path] = m * math.Max(0.1, 3*cv)
			return
		}
		*v = def
		s.Uncertainty[path] = 0.5 * math.Abs(def)
	}
	maxBW := 0.0
	for _, en := range engines {
		c := en.Cluster
		e := model.Engine{Name: c.Name, Kind: model.KindCPU, CoreType: c.CoreType, Cores: len(c.CPUs), ClockGHz: en.ClockGHz,
			KernelOpsPerCycle: map[string]float64{}, MoEEfficiency: 1, ThreadScalingLoss: 0.02,
			L2KiBPerCore: float64(c.L2KiBPerCore), SharedCacheKiB: float64(c.SharedCacheKiB), CacheUsableFrac: 0.5,
			// ggml's generic MUL_MAT and MUL_MAT_ID, and the built-in
			// dispatcher, walk weight rows in tiles of 16 tokens.
			TokenTile: 16, ExpertTokenTile: 16, MemComputeOverlap: 0.3, GemvOverlap: 0.3, CPUs: append([]int(nil), c.CPUs...),
			// llama.cpp's x86 builds run a prompt's attention through
			// llamafile's sgemm by default.
			SgemmHeadBarriers: measuredOn(ms, "amd64")}
		p := "engines." + c.Name + "."
		var q4, q8, f32 float64
		set(p+"kernel_ops_per_cycle.q4", &q4, 1/en.ClockGHz)
		set(p+"kernel_ops_per_cycle.f32", &f32, 2/en.ClockGHz)
		// The dispatcher's q8 blocks run the same int8 dot as q4 without
		// unpacking nibbles: q4's rate when q8 was not measured (older
		// measurement files). q6 and f16 are not used by it.
		set(p+"kernel_ops_per_cycle.q8", &q8, q4)
		if _, _, ok := median(ms, p+"kernel_ops_per_cycle.q8"); !ok {
			s.Uncertainty[p+"kernel_ops_per_cycle.q8"] = s.Uncertainty[p+"kernel_ops_per_cycle.q4"]
		}
		e.KernelOpsPerCycle[string(model.ClassQ4)], e.KernelOpsPerCycle[string(model.ClassQ6)], e.KernelOpsPerCycle[string(model.ClassQ8)] = q4, q4, q8
		// f16: attention's products as llama.cpp runs them, where
		// measured; else (older measurement files) the f32 rate.
		f16 := f32
		set(p+"kernel_ops_per_cycle.f16", &f16, f32)
		e.KernelOpsPerCycle[string(model.ClassF16)], e.KernelOpsPerCycle[string(model.ClassF32)] = f16, f32
		// The rest of llama.cpp's attention path, where measured: with the
		// softmax's rate the engine runs attention as llama.cpp does
		// (model.Engine.AttentionWork).
		for _, k := range model.AttentionRateKeys {
			if m, cv, ok := median(ms, p+"kernel_ops_per_cycle."+k); ok && m > 0 {
				e.KernelOpsPerCycle[k] = m
				s.Uncertainty[p+"kernel_ops_per_cycle."+k] = m * math.Max(0.1, 3*cv)
			}
		}
		// By GGML type: the dispatcher's Q4_0 and Q8_0 blocks are its q4
		// and q8 kernels.
		e.KernelOpsPerCycle["q4_0"], e.KernelOpsPerCycle["q8_0"] = q4, q8
		s.Uncertainty[p+"kernel_ops_per_cycle.q4_0"] = s.Uncertainty[p+"kernel_ops_per_cycle.q4"]
		s.Uncertainty[p+"kernel_ops_per_cycle.q8_0"] = s.Uncertainty[p+"kernel_ops_per_cycle.q8"]
		// A one-token walk's share of the tile rate, when measured below 1.
		if g, cv, ok := median(ms, p+"gemv_efficiency"); ok && g > 0 && g < 1 {
			e.GemvEfficiency = g
			s.Uncertainty[p+"gemv_efficiency"] = g * math.Max(0.1, 3*cv)
		}
		// The norms, where measured; else half the f32 rate (older files).
		set(p+"scalar_ops_per_cycle", &e.ScalarOpsPerCycle, f32/2)
		set(p+"bandwidth_max_gb_s", &e.BandwidthMaxGBs, 5)
		// What a core loses while the cluster's other cores compute too
		// (scalingSteps), where measured above zero; else 0.02.
		set(p+"thread_scaling_loss", &e.ThreadScalingLoss, 0.02)
		// The shared cache as measured (llcSteps): what it holds, and
		// its read rate, with which the simulator keeps weights in it
		// between graphs. Unmeasured: half of it, and no keeping.
		if m, cv, ok := median(ms, p+"llc_bandwidth_gb_s"); ok && m > 0 {
			e.LLCBandwidthGBs = m
			s.Uncertainty[p+"llc_bandwidth_gb_s"] = m * math.Max(0.1, 3*cv)
			set(p+"cache_usable_frac", &e.CacheUsableFrac, 0.5)
		}
		if m, cv, ok := median(ms, p+"bandwidth_per_thread_gb_s"); ok && m > 0 && len(c.CPUs) > 1 {
			e.BandwidthPerThreadGBs = math.Min(m, e.BandwidthMaxGBs)
			s.Uncertainty[p+"bandwidth_per_thread_gb_s"] = m * math.Max(0.1, 3*cv)
		}
		if c.SMTWays > 1 {
			smtPrior(s, &e, c, ms)
		}
		maxBW = math.Max(maxBW, e.BandwidthMaxGBs)
		s.Uncertainty[p+"mem_compute_overlap"] = 0.3
		// A graph of one token's, fitted where the grid runs one (TokenShape).
		s.Uncertainty[p+"gemv_overlap"] = 0.3
		s.Engines = append(s.Engines, e)
	}
	set("dram.sustained_gb_s", &s.DRAM.SustainedGBs, maxBW)
	// Nothing here measures the bus's peak: take the sustained figure
	// plus the usual 25% controller overhead, and at least each engine's cap.
	s.DRAM.PeakGBs = math.Max(1.25*s.DRAM.SustainedGBs, maxBW)
	s.DRAM.SustainedGBs = math.Min(s.DRAM.SustainedGBs, s.DRAM.PeakGBs)
	h := &s.Handoff
	set("handoff.spin_wake_us", &h.SpinWakeUS, 1)
	h.SignalUS = h.SpinWakeUS
	set("handoff.futex_wake_us", &h.FutexWakeUS, 50)
	set("handoff.sleep_exit_us", &h.SleepExitUS, 10)
	h.SleepExitAfterUS = sleepExitAfterUS(ms)
	if h.SleepExitAfterUS > 0 {
		h.SleepExitByIdle = sleepExitByIdle(ms)
	}
	set("handoff.spin_window_us_per_poll", &h.SpinWindowUSPerPoll, 1)
	set("handoff.join_us", &h.JoinUS, 1)
	set("handoff.timeslice_us", &h.TimesliceUS, 0) // 0: model.DefaultTimesliceUS
	h.BackgroundCPUs, _ = BackgroundCPUs(engines, ms)
	// The built-in dispatcher keeps a persistent driver per pool and has no
	// repacked fast path to forfeit.
	h.GatherUS = 5
	if len(engines[0].Cluster.CPUs) > 1 && w != nil {
		perLayer, experts := 0, 0
		for _, op := range w.Ops(0) {
			if op.Layer == 0 {
				perLayer++
				if op.Kind == model.ExpertMatmul {
					experts++
				}
			}
		}
		h.GraphSplitsPerLayer, h.SplitAbsorbsGraphSplits, h.GraphSplitGapUS = perLayer, experts, h.SignalUS
	}
	return s
}

// BackgroundCPUs is the host's other work the calibration's runs met
// (model.Handoff.BackgroundCPUs): the median, over the throughput runs
// that recorded what else ran (measure.Interference), of the CPU time other
// processes, the kernel and the hypervisor took on the engines' CPUs, SMT
// siblings included, in CPUs; capped at model.MaxBackgroundCPUs. runs is
// how many runs it is the median of; with none (files older than the
// record, or runs of another machine's) it is 0, a host with nothing else
// running. Calibrate re-runs a disturbed run and keeps the least disturbed
// try, so the figure is the least the host's other work took, not its
// average.
func BackgroundCPUs(engines []Engine, ms []measure.Measurement) (cpus float64, runs int) {
	var on []int
	for _, en := range engines {
		on = append(on, en.Cluster.CPUs...)
		on = append(on, en.Cluster.SMTCPUs...)
	}
	var vals []float64
	for i := range ms {
		if m := &ms[i]; m.IsThroughput() && m.Interference != nil && len(m.Interference.CPUs) > 0 {
			vals = append(vals, m.Interference.OthersCPUs(on))
		}
	}
	if len(vals) == 0 {
		return 0, 0
	}
	sort.Float64s(vals)
	mid := vals[len(vals)/2]
	if len(vals)%2 == 0 {
		mid = (vals[len(vals)/2-1] + mid) / 2
	}
	return math.Min(mid, model.MaxBackgroundCPUs), len(vals)
}

// sleepExitAfterUS is the idle, in µs, after which the futex_wake_idle
// step measured the sleep exit (its idle_ms knob; the median over its
// records): model.Handoff.SleepExitAfterUS. 0 (any idle pays it all)
// where no record says.
func sleepExitAfterUS(ms []measure.Measurement) float64 {
	var idle []float64
	for _, m := range ms {
		if m.Param != "handoff.sleep_exit_us" || !m.OK() {
			continue
		}
		if v, err := strconv.ParseFloat(m.Knobs["idle_ms"], 64); err == nil && v > 0 {
			idle = append(idle, 1000*v)
		}
	}
	if len(idle) == 0 {
		return 0
	}
	slices.Sort(idle)
	return idle[len(idle)/2]
}

// sleepExitByIdle is the share of the sleep exit paid after the
// futex_wake_idle step's shorter idles (shortIdles): the wake after each,
// less the wake at once, over the wake after 10 ms less the wake at once,
// held to [0, 1] (a wake after 100 µs can be quicker than one at once),
// from the step's first record that has them all (model.Handoff.
// SleepExitByIdle). nil where no record has them (files recorded before
// the step measured them): the charge is then linear in the idle.
func sleepExitByIdle(ms []measure.Measurement) []model.IdleShare {
	num := func(m *measure.Measurement, k string) (float64, bool) {
		v, err := strconv.ParseFloat(m.Knobs[k], 64)
		return v, err == nil && v > 0
	}
	for i := range ms {
		m := &ms[i]
		if m.Param != "handoff.sleep_exit_us" || !m.OK() {
			continue
		}
		now, ok1 := num(m, "wake_now_us")
		idle, ok2 := num(m, "wake_idle_us")
		if !ok1 || !ok2 || idle <= now {
			continue
		}
		var out []model.IdleShare
		for _, s := range shortIdles {
			v, ok := num(m, s.knob)
			if !ok {
				out = nil
				break
			}
			out = append(out, model.IdleShare{IdleUS: s.us, Share: min(1, max(0, (v-now)/(idle-now)))})
		}
		if out != nil {
			return out
		}
	}
	return nil
}
