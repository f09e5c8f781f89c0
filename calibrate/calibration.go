package calibrate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
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
	steps, _, err := stepsOf(s)
	return steps, err
}

// stepsOf is Steps, and what holds the dispatcher's weights
// (dispatcherSteps).
func stepsOf(s *Settings) ([]Step, *resident, error) {
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
		return nil, nil, err
	}
	var steps []Step
	if !s.NoMicro {
		steps = append(steps, MicroSteps(s)...)
	}
	ds, res, err := dispatcherSteps(s, string(wyaml))
	if err != nil {
		return nil, nil, err
	}
	return append(steps, ds...), res, nil
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

// ErrMemory: the memory available cannot hold what the calibration is
// about to build (CheckMemory).
var ErrMemory = errors.New("not enough memory available")

// MemoryHeadroomBytes is what the process holds besides the weights and
// the microbenchmarks' streams: the Go runtime, the pools, activations,
// the measurements. Derived: a full calibration on the 2-vCPU build VM
// peaked at 2.13 GiB (VmHWM) at its largest step, the at-once step's two
// copies of 1.02 GiB of weights, so 0.09 GiB besides; about doubled
// (docs/busy-machine.md, the full calibration's memory).
const MemoryHeadroomBytes = 256 << 20

// MemoryNeed is the most the steps not in done keep resident at once,
// MemoryHeadroomBytes included, and what that is: the at-once step's two
// copies of the workload's weights, one workload's weights (the dispatcher
// grid holds one at a time: resident), a microbenchmark's stream
// (probe.DefaultWorkingSet), or the stream of all engines at once (that
// working set shared among its CPUs: TogetherWorkingSet). What a step dropped is back with the system
// before the next one starts (measureSteps).
func MemoryNeed(s *Settings, steps []Step, done map[string]bool) (int64, string, error) {
	need, what := int64(0), ""
	take := func(b int64, w string) {
		if b > need {
			need, what = b, w
		}
	}
	sizes := map[string]int64{}
	size := func(w *model.Workload) (int64, error) {
		if b, ok := sizes[w.Name]; ok {
			return b, nil
		}
		b, err := dispatch.WeightBytes(w)
		sizes[w.Name] = b
		return b, err
	}
	var stream *model.Workload
	for _, st := range steps {
		if done[st.ID] {
			continue
		}
		switch {
		case strings.HasPrefix(st.ID, "atonce/"):
			b, err := size(s.Workload)
			if err != nil {
				return 0, "", err
			}
			take(2*b, fmt.Sprintf("the at-once step's two copies of %s's %s of weights", s.Workload.Name, GiB(b)))
		case st.predict != nil:
			w := s.Workload
			if !strings.HasPrefix(st.ID, "dispatcher/"+w.Name+"/") {
				if stream == nil {
					stream = StreamWorkload(s.Workload, StreamMaxBytes)
				}
				if stream == nil || !strings.HasPrefix(st.ID, "dispatcher/"+stream.Name+"/") {
					return 0, "", fmt.Errorf("calibrate: step %s runs neither %s nor its f32 variant", st.ID, w.Name)
				}
				w = stream
			}
			b, err := size(w)
			if err != nil {
				return 0, "", err
			}
			take(b, fmt.Sprintf("the weights of %s", w.Name))
		case strings.HasPrefix(st.ID, "stream_contended/"):
			// Every CPU streams its share of the working set at once.
			n := len(st.cpus)
			each := TogetherWorkingSet(microWorkingSet(s), n)
			take(int64(n)*each, fmt.Sprintf("the stream of all engines at once: %d CPUs × %s", n, GiB(each)))
		case strings.HasPrefix(st.ID, "stream") || strings.HasPrefix(st.ID, "smt/"):
			take(microWorkingSet(s), "a microbenchmark's stream")
		}
	}
	return need + MemoryHeadroomBytes, what, nil
}

// CheckMemory refuses (ErrMemory, in one line naming the sizes) a
// calibration whose steps not in done need more memory at once
// (MemoryNeed) than MemAvailable in the meminfo file under root (a
// procfs tree, "/" on a live machine) says the system can give without
// swapping: one that swapped would time the swap. A meminfo file that
// cannot be read returns a warning instead: the need is not checked.
func CheckMemory(s *Settings, steps []Step, done map[string]bool, root string) (warning string, err error) {
	need, what, err := MemoryNeed(s, steps, done)
	if err != nil || need <= MemoryHeadroomBytes {
		return "", err
	}
	path := filepath.Join(root, "proc", "meminfo")
	avail, err := MemAvailable(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("calibrate: %s: no such file: the %s the calibration needs at once is not checked against the memory available", path, GiB(need)), nil
	}
	if err != nil {
		return "", err
	}
	if need > avail {
		return "", fmt.Errorf("calibrate: %w: the calibration needs %s at once (%s, and %s for the process), %s has MemAvailable %s: close other programs, or calibrate with --quick (at most 512 MiB of weights)",
			ErrMemory, GiB(need), what, GiB(MemoryHeadroomBytes), path, GiB(avail))
	}
	return "", nil
}

// MemAvailable is the MemAvailable line of a meminfo file, in bytes.
func MemAvailable(path string) (int64, error) { return kBField(path, "MemAvailable") }

// PeakRSS is the most this process has held resident (VmHWM of
// /proc/self/status), in bytes.
func PeakRSS() (int64, error) { return kBField("/proc/self/status", "VmHWM") }

// kBField is the line "FIELD: N kB" of a procfs file (meminfo, status),
// in bytes; an error names the file, and the line of a malformed one, or
// says the file has none.
func kBField(path, field string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for i, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, field+":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("%s:%d: %s: %q, want a number of kB", path, i+1, field, strings.TrimSpace(rest))
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb < 0 {
			return 0, fmt.Errorf("%s:%d: %s: %q is not a number of kB", path, i+1, field, f[0])
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("%s: no %s line", path, field)
}

// microWorkingSet is the streaming microbenchmarks' working set, as
// MicroSteps sizes it.
func microWorkingSet(s *Settings) int64 {
	if s.MicroBudget > 0 {
		return probe.DefaultWorkingSet(s.probeSettings().MaxWorkingSetBytes)
	}
	return probe.DefaultWorkingSet(0)
}

// GiB is b bytes as "1.23 GiB".
func GiB(b int64) string { return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30)) }
