package calibrate

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

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
// little=0-3; 46 steps (3 already measured): 17 microbenchmarks, about
// 45s, and 29 dispatcher runs (the time they take is told once the
// microbenchmarks are in: Announce); workload synthetic-moe-calib (48
// layers); writing runs.jsonl", path being the measurements file and done
// what it holds already.
func Header(s *Settings, steps []Step, done map[string]bool, path string) string {
	names := make([]string, len(s.Engines))
	for i, e := range s.Engines {
		names[i] = e.Cluster.Name + "=" + topology.FormatCPUList(e.Cluster.CPUs)
	}
	micro, grid := 0, 0
	for _, st := range steps {
		if st.predict != nil {
			grid++
		} else {
			micro++
		}
	}
	parts := ""
	if micro > 0 {
		parts = fmt.Sprintf(": %d microbenchmarks, about %v, and %d dispatcher runs (their time once the microbenchmarks are in)",
			micro, microTime(s, micro).Round(time.Second), grid)
	}
	return fmt.Sprintf("calibrate: %s; %d steps (%d already measured)%s; workload %s (%d layers); writing %s",
		strings.Join(names, " "), len(steps), CountDone(steps, done), parts, s.Workload.Name, s.Workload.Model.Layers, path)
}

// microTime is about how long n microbenchmarks of s take: each runs for
// its budget, and half as long again to set up, warm up and take a second
// measurement where it needs one.
func microTime(s *Settings, n int) time.Duration {
	return time.Duration(float64(n) * 1.5 * float64(s.probeSettings().Budget))
}

// Announce is the line to print once the microbenchmarks are in: "the
// dispatcher grid: 185 runs, about 2m50s at the rates the
// microbenchmarks measured (up to 5m40s with the extra repeats of noisy
// runs)", predicted by prior (Prior of what they
// measured) for the dispatcher steps of steps that done does not hold; ""
// when there are none, or prior cannot run one of them.
func Announce(steps []Step, done map[string]bool, prior *model.SoC) string {
	n := 0
	var total time.Duration
	for _, st := range steps {
		if st.predict == nil || done[st.ID] {
			continue
		}
		d, ok := st.predict(prior)
		if !ok {
			return ""
		}
		total += d
		n++
	}
	if n == 0 {
		return ""
	}
	// Extra repeats (Repeats) take at most as long again.
	return fmt.Sprintf("the dispatcher grid: %d runs, about %v at the rates the microbenchmarks measured (up to %v with the extra repeats of noisy runs)",
		n, total.Round(time.Second), (2 * total).Round(time.Second))
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
