package predict

import (
	"fmt"
	"strings"

	"github.com/blsim/blsim/model"
)

// warnings are the values of r's SoC and request that cannot matter to
// the prediction, each once, and the GGML types of the workload's weights
// that an engine has no kernel rate for.
func warnings(r *resolved) []Warning {
	s := r.SoC
	var ws []Warning
	if s.DRAM.PeakGBs > 0 {
		ws = append(ws, Warning{Path: "dram.peak_gb_s", Text: fmt.Sprintf(
			"%.4g GB/s does not enter the prediction: it only bounds sustained_gb_s and the engines' caps; DRAM time comes from dram.sustained_gb_s (%.4g GB/s) and each engine's bandwidth_max_gb_s",
			s.DRAM.PeakGBs, s.DRAM.SustainedGBs)})
	}
	if r.Workload.Model.MoE.Experts == 0 {
		ws = append(ws, Warning{Path: "model.moe.experts", Text: fmt.Sprintf(
			"%s is dense: it has no routed-expert ops, so a split moves no work and every split predicts native plus the dispatcher's handoff",
			r.Workload.Name)})
	}
	if r.noToken {
		ws = append(ws, Warning{Path: "split", Text: fmt.Sprintf(
			"%s has graphs of one token, which a token split cannot divide between engines: only the expert split is predicted",
			testName(r.Workload.Run))})
	}
	names := make([]string, len(r.engines))
	for i, e := range r.engines {
		names[i] = e.Name
	}
	ws = append(ws, fallbackWarnings(s, r.Workload, names)...)
	for i, e := range r.engines {
		if r.defaults[i] && e.Cores > r.Threads[i] {
			ws = append(ws, Warning{Path: "engines." + e.Name + ".cores", Text: fmt.Sprintf(
				"%d cores, but the prediction runs %d threads on %s (the default, min(4, cores)); give its thread count to use more",
				e.Cores, r.Threads[i], e.Name)})
		}
	}
	for _, e := range r.engines {
		if e.LLCBandwidthGBs > 0 && e.CacheUsableFrac*e.SharedCacheKiB <= 0 {
			ws = append(ws, Warning{Path: "engines." + e.Name + ".llc_bandwidth_gb_s", Text: fmt.Sprintf(
				"%.4g GB/s does not enter the prediction: %s has no usable shared cache (shared_cache_kib %g, cache_usable_frac %g), so it keeps no weights between graphs",
				e.LLCBandwidthGBs, e.Name, e.SharedCacheKiB, e.CacheUsableFrac)})
		}
	}
	// The engines' caps together, at their thread counts: above them, a
	// faster memory system changes nothing.
	sum, binding := 0.0, ""
	var caps []string
	for i, e := range r.engines {
		if !e.UsesSharedDRAM() {
			continue
		}
		c := e.BandwidthGBs(r.Threads[i])
		sum += c
		caps = append(caps, fmt.Sprintf("%s %.1f", e.Name, c))
		if i == 0 && c < s.DRAM.SustainedGBs {
			binding = fmt.Sprintf("; native is held by engines.%s.bandwidth_max_gb_s (%.1f GB/s at %s)", e.Name, c, threadsText(r.Threads[0]))
		}
	}
	if len(caps) > 0 && s.DRAM.SustainedGBs > sum {
		ws = append(ws, Warning{Path: "dram.sustained_gb_s", Text: fmt.Sprintf(
			"%.4g GB/s is above what the engines pull even together (%s = %.1f GB/s): their bandwidth caps bind, not DRAM%s (a prediction takes the caps as written; the what-if grid's DRAM axis scales them with DRAM)",
			s.DRAM.SustainedGBs, strings.Join(caps, " + "), sum, binding)})
	}
	return ws
}

func threadsText(n int) string {
	if n == 1 {
		return "1 thread"
	}
	return fmt.Sprintf("%d threads", n)
}

// fallbackWarnings are the GGML types of w's weights that the named
// engines of s have no kernel rate for, one warning each: the prediction
// and the thread sweep both say them.
func fallbackWarnings(s *model.SoC, w *model.Workload, names []string) []Warning {
	var ws []Warning
	for _, f := range model.KernelFallbacks(s, w, names...) {
		ws = append(ws, Warning{Path: "engines." + f.Engine + ".kernel_ops_per_cycle", Text: fmt.Sprintf(
			"no rate for %s, a type of the workload's weights: %s's %g ops/cycle used, its nearest class; add %s to the table, or calibrate it (blsim calibrate --bench with --gguf)",
			f.Type, f.Class, f.OpsPerCycle, f.Type)})
	}
	return ws
}
