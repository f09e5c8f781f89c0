package calibrate

import (
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/blsim/blsim/calibrate/dispatch"
	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// FallbackLLC is the last-level cache Steps sizes the default workload
// for when neither /sys nor the processor tells (probe.HostLLC): large, so
// that the weights stay DRAM-bound on any host; the limits of Steps keep
// the time it costs bounded.
const FallbackLLC = 256 << 20

// Steps lists what a calibration measures: the microbenchmarks
// (MicroSteps) unless s.NoMicro, then the dispatcher grid
// (DispatcherSteps). A nil s.Workload is set first to the default: the
// synthetic-moe-calib preset sized to twice the last-level cache
// (probe.HostLLC: /sys, else the processor's CPUID; FallbackLLC when
// neither tells), with at most 1.5 GiB of weights (512 MiB when Quick).
func Steps(s *Settings) ([]Step, error) {
	if s.Workload == nil {
		llc, _, err := probe.HostLLC()
		if err != nil {
			llc = FallbackLLC
		}
		limit := int64(1536 << 20)
		if s.Quick {
			limit = 512 << 20
		}
		s.Workload = dispatch.CalibrationWorkload(llc, limit)
	}
	wyaml, err := model.MarshalWorkload(s.Workload)
	if err != nil {
		return nil, err
	}
	var steps []Step
	if !s.NoMicro {
		steps = append(steps, MicroSteps(s)...)
	}
	ds, err := DispatcherSteps(s, string(wyaml))
	if err != nil {
		return nil, err
	}
	return append(steps, ds...), nil
}

// CountDone is how many of steps done (measure.Done) already holds.
func CountDone(steps []Step, done map[string]bool) int {
	n := 0
	for _, s := range steps {
		if done[s.ID] {
			n++
		}
	}
	return n
}

// Header is the line to print before the steps run: "calibrate: big=4-7
// little=0-3; 46 steps (3 already measured); workload synthetic-moe-calib
// (48 layers); writing runs.jsonl", path being the measurements file and
// done what it holds already.
func Header(s *Settings, steps []Step, done map[string]bool, path string) string {
	names := make([]string, len(s.Engines))
	for i, e := range s.Engines {
		names[i] = e.Cluster.Name + "=" + topology.FormatCPUList(e.Cluster.CPUs)
	}
	return fmt.Sprintf("calibrate: %s; %d steps (%d already measured); workload %s (%d layers); writing %s",
		strings.Join(names, " "), len(steps), CountDone(steps, done), s.Workload.Name, s.Workload.Model.Layers, path)
}

// DispatcherFailures counts the dispatcher runs among ms and how many of
// them failed.
func DispatcherFailures(ms []measure.Measurement) (ran, failed int) {
	for _, m := range ms {
		if m.Kind != measure.Dispatcher {
			continue
		}
		ran++
		if !m.OK() {
			failed++
		}
	}
	return ran, failed
}

// Host is this machine as its measurements record it: the architecture,
// host name, kernel release and CPU model, and the cpufreq governors under
// root (the sysfs and procfs tree topology.Governors reads, "/" on a live
// machine). What cannot be read is left empty.
func Host(root string) *measure.Host {
	h := &measure.Host{Arch: runtime.GOARCH}
	h.Name, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	h.CPU = topology.CPUModel("/")
	if g, err := topology.Governors(root); err == nil && len(g) > 0 {
		h.Governors = g
	}
	return h
}
