package calibrate

import (
	"fmt"
	"math"

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
		one, err := probe.KernelThroughput(c.CPUs[:1], 1, probe.KernelQ8Q8Tile, ps)
		if err != nil {
			return measure.Measurement{}, err
		}
		all, err := probe.KernelThroughput(c.CPUs, len(c.CPUs), probe.KernelQ8Q8Tile, ps)
		if err != nil {
			return measure.Measurement{}, err
		}
		return ScalingMeasurement(id, param, c.Name, len(c.CPUs), one, all), nil
	}})}
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
