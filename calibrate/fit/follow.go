package fit

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// A follower is a kernel rate of a foreign fit that the fit does not
// search: the runs cannot tell its work from another class's, so it
// keeps the prior's ratio to the rate of its engine that does most of the
// compute among those fitted (its leader), with no free factor of its own.
// Its value is ratio times the leader's, and its σ the leader's relative
// σ and the prior's relative width of the ratio together.
type follower struct {
	path, leader string
	ratio        float64
	// relWidth is the prior's relative width of the follower's rate (at
	// least MinScaledRelSigma), which the fitted σ keeps: the runs say
	// nothing about the ratio.
	relWidth float64
	// why is the reason: a gap's line, or that the rate does too little of
	// the work to be searched.
	why string
}

// followers splits a foreign fit's free kernel rates from those that
// follow (see follower), for every engine some throughput uses. The
// leader of the matmuls is the free rate doing most of the compute; the
// leader of attention is its f16 products' rate where the fit frees it,
// else the matmuls'. Followers:
//
//   - with a GapAttention (one prompt length and depth), the f16 rate
//     (unless weights of the workloads are f16), to the matmuls';
//   - the softmax, whose elements grow with the products' ops (one a
//     token, position and head for 4·d ops), to attention's;
//   - flash attention, unless some run uses it and the fit frees it, to
//     attention's;
//   - a token's attention products (f16_gemv), unless the runs generate
//     two lengths, to attention's;
//   - every other rate (and the scalar rate) the runs use that the fit
//     does not free, because it does too little of the work, to the
//     matmuls'.
//
// An engine with no free rate to lead has no followers. It returns the
// followers and free without them.
func followers(prior *model.SoC, free []string, obs []measure.Measurement, p *Predictor, gaps []Gap, span model.Span) ([]follower, []string) {
	used := map[string]bool{}
	flash := false
	for _, m := range obs {
		if m.Plan != nil {
			for _, e := range m.Plan.Engines {
				used[e] = true
			}
		}
		flash = flash || m.Run != nil && m.Run.FlashAttn
	}
	isFree := map[string]bool{}
	for _, f := range free {
		isFree[f] = true
	}
	attnGap := gapLine(gaps, GapAttention)
	var out []follower
	for i := range prior.Engines {
		e := &prior.Engines[i]
		if !used[e.Name] || e.IsAccelerator() {
			continue
		}
		pre := "engines." + e.Name + "."
		rate := func(k string) string { return pre + "kernel_ops_per_cycle." + k }
		w := workMix(e, obs, p)
		f16 := string(model.ClassF16)
		attention := map[string]bool{f16: !weightKeys(e, obs, p)[f16], model.RateSoftmax: true, model.RateFlashAttn: true, model.RateF16Gemv: true}
		// The matmuls' leader.
		lead, best := "", -1.0
		for _, k := range mapKeys(e.KernelOpsPerCycle) {
			if isFree[rate(k)] && !attention[k] && w.share(k) > best {
				lead, best = rate(k), w.share(k)
			}
		}
		if lead == "" {
			continue
		}
		attnLead := lead
		if isFree[rate(f16)] && attention[f16] && attnGap == "" {
			attnLead = rate(f16)
		}
		leaders := map[string]string{}
		why := map[string]string{}
		set := func(k, leader, reason string) { leaders[k], why[k] = leader, reason }
		if attnGap != "" && attention[f16] {
			set(f16, lead, attnGap)
		}
		set(model.RateSoftmax, attnLead, "the softmax's elements grow with attention's products (one a token, position and head for 4·head_dim ops): the runs cannot tell them apart")
		if attnGap != "" {
			why[model.RateSoftmax] = attnGap
		}
		if !flash || !isFree[rate(model.RateFlashAttn)] || attnGap != "" {
			reason := "no run uses flash attention"
			if flash {
				reason = attnGap
				if reason == "" {
					reason = "too little of the work to be searched"
				}
			}
			set(model.RateFlashAttn, attnLead, reason)
		}
		if len(span.Gens) < 2 {
			reason := gapLine(gaps, GapDecode)
			if reason == "" {
				reason = "fewer than two generated lengths: a token's attention cannot be told from its weights' walks"
			}
			set(model.RateF16Gemv, attnLead, reason)
		}
		for _, k := range mapKeys(e.KernelOpsPerCycle) {
			if why[k] == "" && !isFree[rate(k)] && w.share(k) > 0 {
				set(k, lead, "too little of the work to be searched")
			}
		}
		add := func(path, leader, reason string) {
			v, err := prior.Get(path)
			lv, lerr := prior.Get(leader)
			if err != nil || lerr != nil || v <= 0 || lv <= 0 {
				return
			}
			rel := MinScaledRelSigma
			if s := prior.Uncertainty[path]; s > 0 {
				rel = math.Max(rel, s/v)
			}
			out = append(out, follower{path: path, leader: leader, ratio: v / lv, relWidth: rel, why: reason})
		}
		for _, k := range mapKeys(e.KernelOpsPerCycle) {
			if why[k] != "" {
				add(rate(k), leaders[k], why[k])
			}
		}
		if path := pre + "scalar_ops_per_cycle"; !isFree[path] && w.share(scalarClass) > 0 {
			add(path, lead, "too little of the work to be searched")
		}
	}
	// A follower of a follower (attention's leader following the
	// matmuls') follows its leader's leader, at the product of the ratios.
	idx := map[string]int{}
	for i, f := range out {
		idx[f.path] = i
	}
	for i := range out {
		for range 3 {
			j, ok := idx[out[i].leader]
			if !ok {
				break
			}
			out[i].leader, out[i].ratio = out[j].leader, out[i].ratio*out[j].ratio
		}
	}
	following := map[string]bool{}
	for _, f := range out {
		following[f.path] = true
	}
	var rest []string
	for _, f := range free {
		if !following[f] {
			rest = append(rest, f)
		}
	}
	return out, rest
}

// gapLine is the line of gaps' gap of kind, or "".
func gapLine(gaps []Gap, kind string) string {
	for _, g := range gaps {
		if g.Kind == kind {
			return g.Line
		}
	}
	return ""
}

// weightKeys are the kernel-table keys e runs the throughputs' weight
// matmuls at.
func weightKeys(e *model.Engine, obs []measure.Measurement, p *Predictor) map[string]bool {
	out := map[string]bool{}
	seen := map[*model.Workload]bool{}
	for i := range obs {
		w, err := p.Workload(&obs[i])
		if err != nil || seen[w] {
			continue
		}
		seen[w] = true
		for _, op := range w.TokenOps(0) {
			if op.Kind == model.Matmul || op.Kind == model.ExpertMatmul {
				out[e.RateKey(op.Class, w.TensorType(&op))] = true
			}
		}
	}
	return out
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// followNotes are the fit's notes on its followers: one per leader and
// reason, naming the rates that keep the prior's ratio to it.
func followNotes(fs []follower) []string {
	type key struct{ leader, why string }
	by := map[key][]string{}
	var order []key
	for _, f := range fs {
		k := key{f.leader, f.why}
		if _, ok := by[k]; !ok {
			order = append(order, k)
		}
		by[k] = append(by[k], f.path[strings.LastIndex(f.path, ".")+1:])
	}
	var out []string
	for _, k := range order {
		out = append(out, fmt.Sprintf("%s keep the prior's ratio to %s, with no factor of their own and the prior's width (%s)",
			strings.Join(by[k], ", "), k.leader, k.why))
	}
	return out
}
