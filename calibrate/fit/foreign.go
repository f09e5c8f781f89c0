package fit

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// Kernels says whose kernels the fitted throughputs ran, and so where the
// priors of the kernel rates come from.
type Kernels string

const (
	// KernelsAuto (the zero value) is KernelsForeign when any throughput
	// is a llama-bench run (calibrate --bench: the user's llama.cpp, a
	// fork, any dispatcher that prints llama-bench records), else
	// KernelsPrior.
	KernelsAuto Kernels = ""
	// KernelsPrior keeps the prior profile's kernel rates and their
	// uncertainty as priors: right when the runs are blsim's own
	// dispatcher, whose kernels the microbenchmarks timed.
	KernelsPrior Kernels = "prior"
	// KernelsForeign searches, per kernel class, the factor between the
	// benchmark's rates and the prior's over six orders of magnitude, and
	// fits each rate around its scaled value (PriorScaled): a foreign
	// dispatcher's kernels may be an order of magnitude faster or slower
	// than the ones the microbenchmarks timed.
	// What belongs to the machine (DRAM, the engines' bandwidth caps, the
	// futex, spin and spawn costs) keeps its prior.
	KernelsForeign Kernels = "foreign"
)

// ParseKernels reads "auto" (or ""), "prior" or "foreign".
func ParseKernels(s string) (Kernels, error) {
	switch Kernels(s) {
	case KernelsAuto, "auto":
		return KernelsAuto, nil
	case KernelsPrior, KernelsForeign:
		return Kernels(s), nil
	}
	return "", fmt.Errorf("%q is not a kernel source: auto, prior or foreign", s)
}

// resolve turns KernelsAuto into what the throughputs say.
func (k Kernels) resolve(obs []measure.Measurement) Kernels {
	if k != KernelsAuto {
		return k
	}
	for _, m := range obs {
		if m.Kind == measure.LlamaBench {
			return KernelsForeign
		}
	}
	return KernelsPrior
}

// MinScaledRelSigma is the narrowest relative width of a foreign kernel
// rate's prior around its scaled value.
const MinScaledRelSigma = 0.25

// PriorSource says where a free parameter's prior came from.
type PriorSource string

// Where priors come from.
const (
	// PriorMicrobenchmark is the median of the microbenchmarks in the
	// measurements that inform the parameter.
	PriorMicrobenchmark PriorSource = "microbenchmark"
	// PriorProfile is the prior profile's value and its uncertainty.
	PriorProfile PriorSource = "profile"
	// PriorDefault is the prior profile's value with Options.PriorRelSigma.
	PriorDefault PriorSource = "profile, default width"
	// PriorScaled is a kernel rate of a foreign dispatcher: the prior's
	// rate times the factor for its class that fits the runs best (searched
	// over six orders of magnitude), with the prior's relative width (at
	// least MinScaledRelSigma). The benchmark sets how fast each kernel
	// class runs; the hardware, as the microbenchmarks saw it, sets how the
	// engines compare.
	PriorScaled PriorSource = "scaled: the benchmark's own"
	// PriorRatio is a rate the runs cannot inform: the prior's ratio to
	// the rate it rides on (ParamFit.RidesOn), at that rate's fitted
	// value.
	PriorRatio PriorSource = "prior's ratio"
)

// ForeignFree is the set of parameters a foreign dispatcher's grid can
// inform: for each engine that some throughput's plan uses, the rate of
// every kernel class (and the scalar rate) that takes at least 2% of the
// workloads' compute time at the prior's rates, its MUL_MAT_ID efficiency
// when one class runs both dense and expert matmuls (which the grid's
// ubatches then tell apart), its bandwidth cap and burst overlap (and its
// per-thread bandwidth when some plan runs fewer threads than it has
// cores); the
// sustained DRAM bandwidth; the wake costs.
func ForeignFree(s *model.SoC, obs []measure.Measurement, p *Predictor) []string {
	engines, fewerThreads := map[string]bool{}, map[string]bool{}
	for _, m := range obs {
		if m.Plan != nil {
			for i, e := range m.Plan.Engines {
				engines[e] = true
				if en, _, err := s.Engine(e); err == nil && i < len(m.Plan.Threads) && m.Plan.Threads[i] < en.Cores {
					fewerThreads[e] = true
				}
			}
		}
	}
	var out []string
	for _, e := range s.Engines {
		if !engines[e.Name] {
			continue
		}
		w := workMix(&e, obs, p)
		pre := "engines." + e.Name + "."
		// The table's keys the work runs at: classes, and GGML types
		// where the workloads name them (typeRates adds those).
		keys := make([]string, 0, len(e.KernelOpsPerCycle))
		for k := range e.KernelOpsPerCycle {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if w.share(k) >= 0.02 {
				out = append(out, pre+"kernel_ops_per_cycle."+k)
			}
		}
		if w.share(scalarClass) >= 0.02 {
			out = append(out, pre+"scalar_ops_per_cycle")
		}
		if w.both && !e.IsAccelerator() {
			out = append(out, pre+"moe_efficiency")
		}
		if !e.IsAccelerator() && shortWalks(&e, obs, p) {
			out = append(out, pre+"gemv_efficiency")
		}
		if e.GemvOverlap > 0 && !e.IsAccelerator() && oneTokenGraphs(obs, p) {
			out = append(out, pre+"gemv_overlap")
		}
		out = append(out, pre+"bandwidth_max_gb_s", pre+"mem_compute_overlap")
		if e.BandwidthPerThreadGBs > 0 && fewerThreads[e.Name] {
			out = append(out, pre+"bandwidth_per_thread_gb_s")
		}
		if !e.IsAccelerator() && threadSpread(e.Name, obs) {
			out = append(out, pre+"thread_scaling_loss")
		}
	}
	return append(out, "dram.sustained_gb_s", "handoff.futex_wake_us", "handoff.sleep_exit_us", "handoff.spin_wake_us")
}

// threadSpread says whether the throughputs run engine e at two thread
// counts or more, one of them above one: only then do they tell e's
// thread-scaling loss (n threads at n/(1+loss·(n-1)) times one) from its
// kernel rates and bandwidth.
func threadSpread(e string, obs []measure.Measurement) bool {
	seen := map[int]bool{}
	for i := range obs {
		if obs[i].Plan == nil {
			continue
		}
		for j, name := range obs[i].Plan.Engines {
			if name == e && j < len(obs[i].Plan.Threads) && obs[i].Plan.Threads[j] > 0 {
				seen[obs[i].Plan.Threads[j]] = true
			}
		}
	}
	return len(seen) >= 2
}

// shortWalks says whether some throughput walks weights for fewer tokens
// than e's token tile, where gemv_efficiency acts: a generated token, a
// ubatch shorter than the tile, or experts routed fewer tokens a ubatch
// (ubatch x top-k / experts) than the tile. Two such regimes, or one
// beside full tiles, tell the load cost from the kernel rate.
func shortWalks(e *model.Engine, obs []measure.Measurement, p *Predictor) bool {
	tile := float64(max(e.TokenTile, 2))
	for i := range obs {
		w, err := p.Workload(&obs[i])
		if err != nil {
			continue
		}
		run := WithRun(w, obs[i].Run).Run
		moe := w.Model.MoE
		perExpert := math.Inf(1)
		if moe.Experts > 0 && moe.TopK > 0 {
			perExpert = float64(min(run.Ubatch, max(run.PromptTokens, 1))*moe.TopK) / float64(moe.Experts)
		}
		if run.GenTokens > 0 || run.PromptTokens > 0 && (float64(min(run.Ubatch, run.PromptTokens)) < tile || perExpert < tile) {
			return true
		}
	}
	return false
}

// oneTokenGraphs says whether some throughput runs graphs of one token (a
// tg test, or a prompt ubatch of one), where gemv_overlap acts.
func oneTokenGraphs(obs []measure.Measurement, p *Predictor) bool {
	for i := range obs {
		w, err := p.Workload(&obs[i])
		if err != nil {
			continue
		}
		run := WithRun(w, obs[i].Run).Run
		if run.GenTokens > 0 || run.PromptTokens > 0 && min(run.Ubatch, run.PromptTokens) <= 1 {
			return true
		}
	}
	return false
}

// typeRates returns prior with a kernel rate for every GGML type the
// throughputs' workloads name for their weights (Arch.Types, as a GGUF
// gives them) on every engine the runs use, where the prior has none: the
// rate of the type's nearest class, which the fit then frees as the type's
// own (ForeignFree frees the keys the work runs at), one note each. It
// returns prior itself when nothing is added.
func typeRates(prior *model.SoC, obs []measure.Measurement, p *Predictor) (*model.SoC, []string) {
	used := map[string]bool{}
	engines := map[string]bool{}
	for i := range obs {
		if obs[i].Plan != nil {
			for _, e := range obs[i].Plan.Engines {
				engines[e] = true
			}
		}
		w, err := p.Workload(&obs[i])
		if err != nil {
			continue
		}
		for _, t := range w.Model.Types {
			if _, ok := model.GGMLTypeBits(t); ok && !model.KernelClass(t).Known() {
				used[t] = true
			}
		}
	}
	types := make([]string, 0, len(used))
	for t := range used {
		types = append(types, t)
	}
	sort.Strings(types)
	var s *model.SoC
	var notes []string
	for i := range prior.Engines {
		e := &prior.Engines[i]
		if !engines[e.Name] || e.IsAccelerator() {
			continue
		}
		for _, t := range types {
			if _, ok := e.KernelOpsPerCycle[t]; ok {
				continue
			}
			if s == nil {
				s = prior.Clone()
			}
			v, _ := e.KernelRate("", t)
			bits, _ := model.GGMLTypeBits(t)
			s.Engines[i].KernelOpsPerCycle[t] = v
			notes = append(notes, fmt.Sprintf("engines.%s.kernel_ops_per_cycle.%s: the workload's type, with no rate in the prior: starts at %s's %.4g (its nearest class) and is fitted as its own",
				e.Name, t, model.KernelClassOf(bits), v))
		}
	}
	if s == nil {
		return prior, nil
	}
	return s, notes
}

// scalarClass is the key of the scalar ops in a mix.
const scalarClass = "scalar"

// mix is how an engine's compute time at the prior's rates divides among
// kernel classes (and scalar work) over some workloads.
type mix struct {
	seconds map[string]float64
	total   float64
	// both says a class carries at least 2% of the time both as dense and
	// as expert matmuls.
	both bool
}

func (m mix) share(class string) float64 {
	if m.total == 0 {
		return 0
	}
	return m.seconds[class] / m.total
}

// workMix is e's compute-time mix over the throughputs' workloads, each
// op costed at e's prior rate (one thread: the mix, not the time, counts).
func workMix(e *model.Engine, obs []measure.Measurement, p *Predictor) mix {
	m := mix{seconds: map[string]float64{}}
	dense, expert := map[string]float64{}, map[string]float64{}
	seen := map[string]bool{}
	rate := func(key string) float64 {
		if key == scalarClass {
			return math.Max(e.ScalarGOPS(1), 1e-9)
		}
		return math.Max(e.MatmulGOPS(key, 1), 1e-9)
	}
	for i := range obs {
		w, err := p.Workload(&obs[i])
		if err != nil {
			continue
		}
		w = WithRun(w, obs[i].Run)
		key := fmt.Sprintf("%p|%d|%d|%d|%d", w, w.Run.PromptTokens, w.Run.Ubatch, w.Run.Depth, w.Run.GenTokens)
		if seen[key] {
			continue
		}
		seen[key] = true
		add := func(op *model.Op, times float64) {
			if op.Kind == model.AttentionScores {
				// By the rate each part of llama.cpp's attention runs at.
				for _, wk := range e.AttentionWork(op) {
					key := e.AttentionKey(wk.Key)
					t := times * wk.Ops / rate(key)
					m.seconds[key] += t
					m.total += t
				}
				return
			}
			class := e.RateKey(op.Class, w.TensorType(op))
			if op.Kind == model.Scalar || op.Class == "" {
				class = scalarClass
			}
			t := times * op.Ops / rate(class)
			switch op.Kind {
			case model.Matmul:
				dense[class] += t
			case model.ExpertMatmul:
				t /= math.Max(e.MoEEfficiency, 1e-3)
				expert[class] += t
			}
			m.seconds[class] += t
			m.total += t
		}
		for u := range w.Run.Ubatches() {
			for _, op := range w.Ops(u) {
				add(&op, 1)
			}
		}
		if n := w.Run.GenTokens; n > 0 {
			// The generated tokens, at the depth halfway through them.
			for _, op := range w.TokenOps(w.Run.Depth + w.Run.PromptTokens + n/2) {
				add(&op, float64(n))
			}
		}
	}
	for c := range dense {
		if m.total > 0 && dense[c]/m.total >= 0.02 && expert[c]/m.total >= 0.02 {
			m.both = true
		}
	}
	return m
}

// isKernelRate reports whether path is an engine's kernel rate or scalar
// rate: what the dispatcher's own code sets, not the machine.
func isKernelRate(path string) bool {
	return strings.Contains(path, ".kernel_ops_per_cycle.") || strings.HasSuffix(path, ".scalar_ops_per_cycle")
}

// classOf is the kernel class a kernel-rate path sets ("q4", "f16"), or
// "scalar" for a scalar rate.
func classOf(path string) string {
	if strings.HasSuffix(path, ".scalar_ops_per_cycle") {
		return scalarClass
	}
	return path[strings.LastIndex(path, ".")+1:]
}

// kernelScales finds, for each kernel class among the free rates (and the
// scalar rate), the factor by which to scale every engine's rate of that
// class so that the prior predicts the throughputs best (least squares of
// the log ratio), searching a log grid from 1/1000 to 1000 class by class,
// twice over. Where the runs cannot tell (a flat cost), the factor closest
// to 1 is kept.
func kernelScales(prior *model.SoC, free []string, follows []follower, obs []measure.Measurement, p *Predictor) map[string]float64 {
	scales := map[string]float64{}
	var classes []string
	for _, path := range free {
		if c := classOf(path); isKernelRate(path) && scales[c] == 0 {
			scales[c] = 1
			classes = append(classes, c)
		}
	}
	cost := func() float64 {
		s := prior.Clone()
		for _, path := range free {
			if isKernelRate(path) {
				v, _ := s.Get(path)
				_ = s.Set(path, v*scales[classOf(path)])
			}
		}
		for _, f := range follows {
			// At the prior's ratio to its leader, scaled with it.
			v, _ := prior.Get(f.leader)
			_ = s.Set(f.path, f.ratio*v*scales[classOf(f.leader)])
		}
		sum, n := 0.0, 0
		for i := range obs {
			v, err := p.Predict(s, &obs[i])
			if err != nil || v <= 0 {
				continue
			}
			d := math.Log(v / obs[i].Median)
			sum += d * d
			n++
		}
		if n == 0 {
			return math.Inf(1)
		}
		return sum / float64(n)
	}
	for pass := 0; pass < 2; pass++ {
		for _, c := range classes {
			type pt struct{ s, c float64 }
			var pts []pt
			for k := -30; k <= 30; k++ {
				scales[c] = math.Pow(10, float64(k)/10)
				pts = append(pts, pt{scales[c], cost()})
			}
			best := pts[0]
			for _, q := range pts {
				if q.c < best.c {
					best = q
				}
			}
			if math.IsInf(best.c, 1) {
				scales[c] = 1
				continue
			}
			// Of the points as good as the best within the noise (5% of
			// the cost, or a 1% rms error), the one nearest 1: where
			// the runs cannot tell, the prior stands.
			sort.SliceStable(pts, func(i, j int) bool { return math.Abs(math.Log(pts[i].s)) < math.Abs(math.Log(pts[j].s)) })
			for _, q := range pts {
				if q.c <= best.c+math.Max(0.05*best.c, 1e-4) {
					best = q
					break
				}
			}
			for k := -10; k <= 10; k++ {
				scales[c] = best.s * math.Pow(10, float64(k)/100)
				if v := cost(); v < best.c {
					best = pt{scales[c], v}
				}
			}
			scales[c] = best.s
		}
	}
	return scales
}
