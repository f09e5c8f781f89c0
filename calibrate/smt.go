package calibrate

import (
	"fmt"
	"math"

	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// SMT: on a cluster whose cores run two (or more) hardware threads,
// calibrate times one thread on a core's first hardware thread and two on
// it and its sibling, for the matmul kernel (the dispatcher's q4 tile),
// attention's f16 products and a DRAM stream. What the second thread adds is the
// engine's SMT yield (model.SMTYield): two threads' total over one's,
// less one. The f16 attention products stand for attention's and the scalar ops'
// float loops. A cluster without SMT has no such steps.

// smtKinds are the SMT steps: the yield each sets, and what it times.
var smtKinds = []struct {
	yield, label string
	kernel       probe.Kernel
	stream       bool
}{
	{"matmul", "q4 kernel", probe.KernelQ4Q8Tile, false},
	{"attention", "f16 attention products", probe.KernelF16Attn, false},
	{"dram", "stream read", 0, true},
}

// smtSteps lists the SMT steps of cluster c (one thread a core in
// c.CPUs, its siblings in c.SMTCPUs), timed on its first core.
func smtSteps(c topology.Cluster, ps *probe.Settings) []Step {
	if c.SMTWays < 2 || len(c.CoreCPUs) == 0 {
		return nil
	}
	pair := c.Siblings(c.CoreCPUs[0])[:2]
	var steps []Step
	for _, k := range smtKinds {
		id := fmt.Sprintf("smt/%s/%s/%d+%d", k.yield, c.Name, pair[0], pair[1])
		param := "engines." + c.Name + ".smt_yield." + k.yield
		steps = append(steps, Step{ID: id, Label: fmt.Sprintf("SMT, %s, %s: 1 and 2 threads on one core", k.label, c.Name), run: func() (measure.Measurement, error) {
			rate := func(cpus []int) (probe.Stats, error) {
				if k.stream {
					st, err := probe.StreamRead(cpus, len(cpus), probe.DefaultWorkingSet(ps.MaxWorkingSetBytes), ps)
					st.Median /= float64(len(cpus)) // per thread, as KernelThroughput gives
					return st, err
				}
				return probe.KernelThroughput(cpus, len(cpus), k.kernel, ps)
			}
			one, err := rate(pair[:1])
			if err != nil {
				return measure.Measurement{}, err
			}
			two, err := rate(pair)
			if err != nil {
				return measure.Measurement{}, err
			}
			return SMTMeasurement(id, param, c.Name, one, two), nil
		}})
	}
	return steps
}

// SMTMeasurement is the yield of a second hardware thread from one
// thread's rate alone on a core (one) and each of two threads' on it and
// its sibling (two, per thread): 2 x two / one - 1. Its CV is the
// ratio's, both spreads together.
func SMTMeasurement(id, param, engine string, one, two probe.Stats) measure.Measurement {
	y := 2*two.Median/one.Median - 1
	return measure.Measurement{ID: id, Kind: measure.Kernel, Param: param, Engine: engine, Unit: "share",
		Median: y, CV: math.Hypot(one.CV, two.CV),
		Knobs: map[string]string{"one_thread": fmt.Sprintf("%.4g", one.Median), "two_threads_each": fmt.Sprintf("%.4g", two.Median), "unit": one.Unit}}
}

// smtDefault is the yield the prior takes where the calibration did not
// measure one, with a standard deviation of 0.3: none for the matmul
// kernels and the stream (one thread fills the core's pipes and fill
// buffers, as on the cores whose parts give it), a little for the rest.
var smtDefault = map[string]float64{"matmul": 0, "attention": 0, "scalar": 0.1, "dram": 0}

// smtPrior gives engine e (of cluster c, with SMT) its cores, their
// siblings and its SMT yields: measured (smtSteps), clamped to
// model.SMTYieldRange, with a standard deviation of (1+y) x 3 CV, at
// least 0.05; the scalar yield is the f32 kernel's (attention) when
// measured; unmeasured, smtDefault.
func smtPrior(s *model.SoC, e *model.Engine, c topology.Cluster, ms []measure.Measurement) {
	e.CPUs, e.SMTWays, e.SMTCPUs = append([]int(nil), c.CPUs...), c.SMTWays, append([]int(nil), c.SMTCPUs...)
	e.Cores = len(e.CPUs)
	y := &model.SMTYield{}
	p := "engines." + c.Name + ".smt_yield."
	for _, k := range []string{"matmul", "attention", "scalar", "dram"} {
		from := k
		if k == "scalar" {
			from = "attention"
		}
		v, cv, ok := median(ms, p+from)
		sd := 0.3
		if ok {
			v = math.Max(model.SMTYieldRange[0], math.Min(model.SMTYieldRange[1], v))
			sd = math.Max(0.05, (1+v)*3*cv)
		} else {
			v = smtDefault[k]
		}
		switch k {
		case "matmul":
			y.Matmul = v
		case "attention":
			y.Attention = v
		case "scalar":
			y.Scalar = v
		case "dram":
			y.DRAM = v
		}
		s.Uncertainty[p+k] = sd
	}
	e.SMTYield = y
}
