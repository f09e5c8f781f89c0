package calibrate

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
)

// Thread scaling: a core runs a kernel slower while the cluster's other
// cores run it too. Laptop and phone cores drop from their one-core turbo
// clock to their all-core clock; a virtual machine's vCPUs may share
// physical cores with each other or with other tenants' work; cores share
// a cluster's cache and its power budget. The model's
// engines.NAME.thread_scaling_loss says how much: n threads on n cores run
// at n/(1+loss·(n-1)) times one thread's rate (model.Engine.ThreadRate).
// On a cluster of two or more cores calibrate times the q8 tile kernel on
// the first core alone and on every core at once, side by side in one
// step, and sets the loss from the two. Without the step the prior keeps
// its 0.02: a cluster whose cores lose a sixth of their rate together
// (this repository's 2-vCPU build machine) was then over-predicted by
// 23-29% at two threads (docs/llamacpp-accuracy.md).

// scalingSteps lists the thread-scaling step of cluster c: none for a
// cluster of one core.
func scalingSteps(c topology.Cluster, ps *probe.Settings) []Step {
	if len(c.CPUs) < 2 {
		return nil
	}
	id := "scaling/q8x4x2/" + c.Name + "/" + topology.FormatCPUList(c.CPUs)
	param := "engines." + c.Name + ".thread_scaling_loss"
	return []Step{on(c.CPUs, Step{ID: id, Label: fmt.Sprintf("thread scaling, %s: q8 kernel on 1 and %d cores", c.Name, len(c.CPUs)), run: func() (measure.Measurement, error) {
		// ScalingPairs pairs, each at its share of the budget, one core
		// then all: a slow spell of the host falls on both halves of a
		// pair, or on one pair of several.
		pp := *ps
		pp.Budget = ps.Budget / ScalingPairs
		var ones, alls []probe.Stats
		for range ScalingPairs {
			one, err := probe.KernelThroughput(c.CPUs[:1], 1, probe.KernelQ8Q8Tile, &pp)
			if err != nil {
				return measure.Measurement{}, err
			}
			all, err := probe.KernelThroughput(c.CPUs, len(c.CPUs), probe.KernelQ8Q8Tile, &pp)
			if err != nil {
				return measure.Measurement{}, err
			}
			ones, alls = append(ones, one), append(alls, all)
		}
		return ScalingOfPairs(id, param, c.Name, len(c.CPUs), ones, alls), nil
	}})}
}

// ScalingPairs is how many one-core and all-core timings, interleaved,
// the thread-scaling step takes; the loss is the median of the pairs'.
// One pair (a core alone, then all, each the whole budget) gave losses
// from 0 to 0.995 in 16 quiet quick calibrations of one 2-vCPU VM (AMD
// EPYC family 25, 2026-12-03), whose 512-token prompts ran at two threads
// 1.60-2.06 times their one-thread rate (a loss of 0-0.25).
const ScalingPairs = 5

// ScalingOfPairs is the thread-scaling loss of n cores from interleaved
// pairs of timings (ones[i] a thread alone, alls[i] each of n together,
// ScalingMeasurement each): the median of the pairs' losses, its samples
// the pairs' losses and its CV the median pair's.
func ScalingOfPairs(id, param, engine string, n int, ones, alls []probe.Stats) measure.Measurement {
	pairs := make([]measure.Measurement, len(ones))
	for i := range ones {
		pairs[i] = ScalingMeasurement(id, param, engine, n, ones[i], alls[i])
	}
	byLoss := slices.Clone(pairs)
	slices.SortStableFunc(byLoss, func(a, b measure.Measurement) int { return cmp.Compare(a.Median, b.Median) })
	m := byLoss[(len(byLoss)-1)/2]
	m.Samples = nil
	for _, p := range pairs {
		m.Samples = append(m.Samples, p.Median)
	}
	if len(pairs) > 1 {
		losses := measure.Measurement{Samples: m.Samples}
		losses.Summarize()
		m.Median = losses.Median
		m.Knobs["pairs"] = fmt.Sprint(len(pairs))
	}
	return m
}

// ScalingMeasurement is the thread-scaling loss of n cores from one
// thread's kernel rate alone (one) and each thread's with all n running
// (all, per thread): n/(1+loss·(n-1)) = n·all/one, so loss =
// (one/all - 1)/(n-1), kept within [0, 1] (a core alone that runs slower
// than its share of all is noise, not a gain). Its CV is the ratio's.
func ScalingMeasurement(id, param, engine string, n int, one, all probe.Stats) measure.Measurement {
	loss := 0.0
	if all.Median > 0 && n > 1 {
		loss = min(1, max(0, (one.Median/all.Median-1)/float64(n-1)))
	}
	return measure.Measurement{ID: id, Kind: measure.Kernel, Param: param, Engine: engine, Unit: "share",
		Median: loss, CV: math.Hypot(one.CV, all.CV),
		Knobs: map[string]string{"one_thread": fmt.Sprintf("%.4g", one.Median), "all_threads_each": fmt.Sprintf("%.4g", all.Median),
			"threads": fmt.Sprint(n), "unit": one.Unit}}
}
