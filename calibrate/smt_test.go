package calibrate

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
)

// TestSMTPath: on the sysfs tree of an SMT host (a Ryzen 7 6800H, whose
// siblings are cpuN and cpuN+8) calibrate runs the dispatcher and the
// microbenchmarks one thread a core (cpus 0-7), and times one and two
// threads on core 0 (cpu0, then cpu0 and cpu8) for the matmul kernel,
// the f32 kernel and a stream. From recorded timings of those steps
// (testdata/smt, hand-written: no host here has SMT) the prior's engine
// has 8 cores of two ways with their siblings, and the yields 2 x two /
// one - 1, each with a spread; a host without SMT gets none of it.
func TestSMTPath(t *testing.T) {
	topo, err := topology.Discover("topology/testdata/ryzen-7-6800h")
	if err != nil {
		t.Fatal(err)
	}
	engines := NewEngines(topo.Clusters)
	if len(engines) != 1 || topology.FormatCPUList(engines[0].Cluster.CPUs) != "0-7" {
		t.Fatalf("engines %+v: want one cluster calibrated on cpus 0-7", engines)
	}
	steps := MicroSteps(&Settings{Engines: engines})
	var ids []string
	for _, st := range steps {
		if strings.HasPrefix(st.ID, "smt/") {
			ids = append(ids, st.ID)
		}
		if strings.HasPrefix(st.ID, "stream/") && st.ID != "stream/cpu/0-7" {
			t.Errorf("stream step %s: want one thread a core, cpus 0-7", st.ID)
		}
	}
	if want := []string{"smt/matmul/cpu/0+8", "smt/attention/cpu/0+8", "smt/dram/cpu/0+8"}; !slices.Equal(ids, want) {
		t.Errorf("SMT steps %v, want %v", ids, want)
	}

	b, err := os.ReadFile("testdata/smt/ryzen-7-6800h.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]struct {
		Unit     string
		One, Two []float64
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	var ms []measure.Measurement
	want := map[string]float64{}
	for _, k := range []string{"matmul", "attention", "dram"} {
		r := rec[k]
		one, two := probe.Summarize(r.Unit, r.One), probe.Summarize(r.Unit, r.Two)
		m := SMTMeasurement("smt/"+k+"/cpu/0+8", "engines.cpu.smt_yield."+k, "cpu", one, two)
		m.Status = "ok"
		ms = append(ms, m)
		want[k] = 2*two.Median/one.Median - 1
	}
	want["scalar"] = want["attention"]
	s := Prior("ryzen", engines, ms, nil)
	if err := s.Validate(); err != nil {
		t.Fatalf("prior: %v", err)
	}
	e := s.Engines[0]
	if e.Cores != 8 || e.SMTWays != 2 || !slices.Equal(e.CPUs, []int{0, 1, 2, 3, 4, 5, 6, 7}) || !slices.Equal(e.SMTCPUs, []int{8, 9, 10, 11, 12, 13, 14, 15}) {
		t.Errorf("engine: %d cores of %d ways, cpus %v, siblings %v", e.Cores, e.SMTWays, e.CPUs, e.SMTCPUs)
	}
	got := map[string]float64{"matmul": e.SMTYield.Matmul, "attention": e.SMTYield.Attention, "scalar": e.SMTYield.Scalar, "dram": e.SMTYield.DRAM}
	for k, w := range want {
		if math.Abs(got[k]-w) > 1e-12 {
			t.Errorf("smt_yield.%s = %g, want %g", k, got[k], w)
		}
		if sd := s.Uncertainty["engines.cpu.smt_yield."+k]; !(sd >= 0.05 && sd < 0.3) {
			t.Errorf("smt_yield.%s: sd %g, want a measured spread (0.05 to 0.3)", k, sd)
		}
	}
	t.Logf("yields: matmul %.3f, attention %.3f, dram %.3f", want["matmul"], want["attention"], want["dram"])
	// Unmeasured (an older measurements file): the defaults, sd 0.3.
	if d := Prior("ryzen", engines, nil, nil); d.Engines[0].SMTYield.Scalar != smtDefault["scalar"] || d.Uncertainty["engines.cpu.smt_yield.matmul"] != 0.3 {
		t.Errorf("unmeasured: %+v, %v", d.Engines[0].SMTYield, d.Uncertainty)
	}
	// Without SMT: no steps, no yields.
	vm, err := topology.Discover("topology/testdata/x86-vm")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range MicroSteps(&Settings{Engines: NewEngines(vm.Clusters)}) {
		if strings.HasPrefix(st.ID, "smt/") {
			t.Errorf("x86-vm: SMT step %s", st.ID)
		}
	}
	if p := Prior("vm", NewEngines(vm.Clusters), nil, nil); p.Engines[0].SMTYield != nil || p.Engines[0].SMTWays != 0 {
		t.Errorf("x86-vm: %+v", p.Engines[0])
	}
}

// TestSMTStepsOnCapturedTrees: on the sysfs trees of real SMT hosts
// (hwloc's captures, topology/testdata) calibrate times one and two
// threads on the first core of each SMT cluster: on the Xeon, a cluster a
// socket, cpu0 and its sibling cpu16, and cpu8 and cpu24; the i7-1370P's P-core cpu0 and cpu1, and nothing on its
// E-cores, which have one thread each.
func TestSMTStepsOnCapturedTrees(t *testing.T) {
	for _, tc := range []struct {
		tree string
		want []string
	}{
		{"xeon-silver-4108", []string{"smt/matmul/cpu-s0/0+16", "smt/attention/cpu-s0/0+16", "smt/dram/cpu-s0/0+16",
			"smt/matmul/cpu-s1/8+24", "smt/attention/cpu-s1/8+24", "smt/dram/cpu-s1/8+24"}},
		{"i7-1370p", []string{"smt/matmul/big/0+1", "smt/attention/big/0+1", "smt/dram/big/0+1"}},
	} {
		topo, err := topology.Discover("topology/testdata/" + tc.tree)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, st := range MicroSteps(&Settings{Engines: NewEngines(topo.Clusters)}) {
			if strings.HasPrefix(st.ID, "smt/") {
				ids = append(ids, st.ID)
			}
		}
		if !slices.Equal(ids, tc.want) {
			t.Errorf("%s: SMT steps %v, want %v", tc.tree, ids, tc.want)
		}
	}
}
