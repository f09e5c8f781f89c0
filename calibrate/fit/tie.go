package fit

import (
	"fmt"
	"strings"

	"github.com/blsim/blsim/internal/lm"
	"github.com/blsim/blsim/model"
)

// tiedSuffixes are the engine parameters that describe a core type and
// its place in the memory system, which two engines of one core type,
// clock and core count share: the fit takes them as one parameter each.
var tiedSuffixes = []string{"kernel_ops_per_cycle.", "gemv_efficiency", "mem_compute_overlap", "gemv_overlap", "bandwidth_max_gb_s", "bandwidth_per_thread_gb_s", "scalar_ops_per_cycle", "moe_efficiency"}

// twins maps each engine of s to the first engine before it that has the
// same core type (known, not empty), kind, clock and core count: the same
// cores, as on a host whose identical CPUs were named as two clusters to
// calibrate the dispatcher. Engines of different core types (big.LITTLE,
// Intel's P- and E-cores) are never twins.
func twins(s *model.SoC) map[string]string {
	out := map[string]string{}
	for i, e := range s.Engines {
		if e.CoreType == "" || e.IsAccelerator() {
			continue
		}
		for _, f := range s.Engines[:i] {
			if f.CoreType == e.CoreType && f.Kind == e.Kind && f.ClockGHz == e.ClockGHz && f.Cores == e.Cores {
				if _, isTwin := out[f.Name]; !isTwin {
					out[e.Name] = f.Name
					break
				}
			}
		}
	}
	return out
}

// tie is the fit's set of parameters with twin engines' shared ones
// merged (tw, from twins): a free parameter of a twin engine follows the same
// parameter of the engine it is a twin of, when that one is free too. It
// returns the leaders' indices (into free) in order, and for each
// follower's index the index of its leader. The leader's prior becomes the
// mean of the two priors, and its σ their mean σ.
func tie(tw map[string]string, free []string, priors []lm.Prior) (leaders []int, follows map[int]int) {
	index := map[string]int{}
	for i, p := range free {
		index[p] = i
	}
	follows = map[int]int{}
	for i, p := range free {
		if l, ok := leaderPath(p, tw); ok {
			if j, free := index[l]; free {
				follows[i] = j
				continue
			}
		}
		leaders = append(leaders, i)
	}
	// Average each leader's prior with its followers'.
	n := map[int]float64{}
	sum := map[int]lm.Prior{}
	for f, l := range follows {
		if _, ok := sum[l]; !ok {
			sum[l], n[l] = priors[l], 1
		}
		s := sum[l]
		s.Mean += priors[f].Mean
		s.Sigma += priors[f].Sigma
		sum[l], n[l] = s, n[l]+1
	}
	for l, s := range sum {
		priors[l] = lm.Prior{Mean: s.Mean / n[l], Sigma: s.Sigma / n[l]}
	}
	return leaders, follows
}

// leaderPath is the path a twin engine's parameter p follows.
func leaderPath(p string, tw map[string]string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "engines.")
	if !ok {
		return "", false
	}
	name, param, ok := strings.Cut(rest, ".")
	if !ok {
		return "", false
	}
	lead, ok := tw[name]
	if !ok {
		return "", false
	}
	for _, suf := range tiedSuffixes {
		if param == suf || (strings.HasSuffix(suf, ".") && strings.HasPrefix(param, suf)) {
			return "engines." + lead + "." + param, true
		}
	}
	return "", false
}

// tieNote says which engines were fitted as one core type, and how many
// parameters they share.
func tieNote(s *model.SoC, tw map[string]string, shared int) string {
	if shared == 0 {
		return ""
	}
	var pairs []string
	for _, e := range s.Engines {
		if l, ok := tw[e.Name]; ok {
			pairs = append(pairs, fmt.Sprintf("%s and %s are one core type (%s, %g GHz, %d cores)", l, e.Name, e.CoreType, e.ClockGHz, e.Cores))
		}
	}
	return fmt.Sprintf("%s: their kernel rates, overlap and bandwidth cap were fitted as one parameter each (%d shared)",
		strings.Join(pairs, "; "), shared)
}
