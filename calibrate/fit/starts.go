package fit

import (
	"math"
	"slices"

	"github.com/blsim/blsim/internal/lm"
	"github.com/blsim/blsim/model"
)

// CapStartShares are the fit's further starts, in a fit of blsim's own
// dispatcher runs (not a foreign benchmark's: recorded llama.cpp rounds of
// pp512 alone held out at 26.6% with them, 7.4% without), for the bandwidth caps
// (capStart): each a share of the value the first fit reached, a step of
// about three quarters apart, down to under half. Above every run's demand
// a cap moves no residual, so a fit that starts from a cap too high never
// learns from the runs that it is lower. On the 2-vCPU build machine the
// quick stream of two threads read 25-67 GB/s from one try to the next;
// over 24 recorded quick calibrations (calibrate/testdata/quick-vm-heldout,
// quick-vm-rounds/three-*, quick-vm-starts) these starts took the tries
// held out at most 5% from 7 to 17 (docs/busy-machine.md).
var CapStartShares = []float64{0.8, 0.6, 0.45}

// CapStartGain is how much lower a cap start's cost must be to win: a
// tenth. Where the runs do not tell the cap (one arithmetic intensity,
// as llama-bench's pp512 alone) a start below it can end a hair lower
// and predict other shapes far worse: recorded llama.cpp rounds held out
// at 26.6% where the first fit held out at 7.4%.
var CapStartGain = 0.9

// severalIntensities reports whether the runs of span have more than one
// arithmetic intensity (ubatches, or prompts and generated tokens): with
// one, the runs cannot tell a cap from the compute, and the cap starts
// are not made.
func severalIntensities(span model.Span) bool {
	n := len(span.Ubatches)
	if len(span.Gens) > 0 {
		n++
	}
	return n > 1
}

// capStart is x with every engine's bandwidth cap at share of its value
// (not below its lower bound); false when free has none. Sustained DRAM
// keeps its value: the stream of all engines at once measures it directly
// (MeasuredDirectly), and a cap below it binds first.
func capStart(free []string, x []float64, bounds []lm.Bound, share float64) ([]float64, bool) {
	x1 := slices.Clone(x)
	ok := false
	for i, p := range free {
		if hasSuffix(p, "bandwidth_max_gb_s") {
			x1[i] = math.Max(share*x1[i], bounds[i].Lower)
			ok = true
		}
	}
	return x1, ok
}

// LossStart is the thread-scaling loss the fit's second start takes
// (lossStart): the pool loss of the build machine's two vCPUs
// (docs/llamacpp-accuracy.md).
const LossStart = 0.2

// lossStart returns x0 with every free thread-scaling loss below
// LossStart raised to it, and whether there was one.
func lossStart(free []string, x0 []float64) ([]float64, bool) {
	x1 := slices.Clone(x0)
	ok := false
	for i, p := range free {
		if hasSuffix(p, "thread_scaling_loss") && x1[i] < LossStart {
			x1[i], ok = LossStart, true
		}
	}
	return x1, ok
}
