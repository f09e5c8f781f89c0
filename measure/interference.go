package measure

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// Interference is what else ran on the machine while a run was timed, as
// the kernel counts it (package calibrate/busy measures it): per CPU, the
// share of the run's wall time the run's own threads (blsim's and the
// benchmark's) were on it, the share other processes and the kernel were,
// and the share the hypervisor took (steal); and the share of the time some
// task waited for a CPU (/proc/pressure/cpu). Old measurement files have
// none: a nil *Interference means "not measured", never "quiet".
type Interference struct {
	// WallS is the run's wall time in seconds, re-runs not counted.
	WallS float64 `json:"wall_s"`
	// CPUs lists every CPU the kernel counted, in CPU order.
	CPUs []CPULoad `json:"cpus,omitempty"`
	// PressurePct is the share of the wall time, in percent, that at least
	// one runnable task waited for a CPU ("some" of /proc/pressure/cpu),
	// the run's own threads included; nil where the kernel has no PSI.
	PressurePct *float64 `json:"pressure_pct,omitempty"`
	// Used lists the CPUs the run was given (its pinned threads' CPUs),
	// when it was pinned; else the CPUs it ran on are those with OwnPct of
	// at least UsedPct.
	Used []int `json:"used,omitempty"`
	// Reruns counts the times the run was run again because it was
	// disturbed; the run recorded is the least disturbed of them.
	Reruns int `json:"reruns,omitempty"`
	// Disturbed says the run stayed disturbed (Worst above DisturbedPct)
	// after its re-runs.
	Disturbed bool `json:"disturbed,omitempty"`
}

// CPULoad is one CPU's time during a run, each in percent of the run's
// wall time.
type CPULoad struct {
	CPU int `json:"cpu"`
	// OwnPct is the run's own threads (blsim's and its benchmark's).
	OwnPct float64 `json:"own_pct"`
	// OtherPct is everything else the CPU was busy with: other processes,
	// kernel threads, interrupts.
	OtherPct float64 `json:"other_pct"`
	// StealPct is time the hypervisor gave the virtual CPU to another
	// guest.
	StealPct float64 `json:"steal_pct,omitempty"`
}

// A Source is who took a run's CPU from it: other processes (and the
// kernel), or the hypervisor, which gave the virtual CPU to another guest
// (steal). They call for different remedies: a process can be stopped, a
// host's other guests only waited out or left for dedicated CPUs.
type Source int

const (
	// Others are other processes, kernel threads and interrupts.
	Others Source = iota
	// Hypervisor is steal: the host running another guest on the CPU.
	Hypervisor
)

// String names the source as the fit's messages say it: "other
// processes" or "the hypervisor (steal)".
func (s Source) String() string {
	if s == Hypervisor {
		return "the hypervisor (steal)"
	}
	return "other processes"
}

// MarshalText writes "others" or "hypervisor".
func (s Source) MarshalText() ([]byte, error) {
	if s == Hypervisor {
		return []byte("hypervisor"), nil
	}
	return []byte("others"), nil
}

// UnmarshalText reads what MarshalText writes.
func (s *Source) UnmarshalText(b []byte) error {
	switch string(b) {
	case "others", "":
		*s = Others
	case "hypervisor":
		*s = Hypervisor
	default:
		return fmt.Errorf("interference source %q: want others or hypervisor", b)
	}
	return nil
}

// Who names who took CPUs from runs whose sources are srcs, as the fit's
// and calibrate's messages say it: "other processes", "the hypervisor
// (steal)", or "other processes and the hypervisor (steal)" (other
// processes when srcs is empty).
func Who(srcs []Source) string {
	var others, hyp bool
	for _, s := range srcs {
		others, hyp = others || s == Others, hyp || s == Hypervisor
	}
	switch {
	case hyp && others:
		return Others.String() + " and " + Hypervisor.String()
	case hyp:
		return Hypervisor.String()
	}
	return Others.String()
}

// Source is who took most of the CPU's time from the run: the hypervisor
// when its steal was more of it than other processes' time.
func (c CPULoad) Source() Source {
	if c.StealPct > c.OtherPct {
		return Hypervisor
	}
	return Others
}

// Thresholds of Interference.
const (
	// DisturbedPct is how much of a run's wall time another process (or
	// the hypervisor) may take on one of the run's CPUs before the run is
	// disturbed: beyond it, a pool that meets at barriers runs measurably
	// at the pace of the thread that shared its CPU.
	DisturbedPct = 5.0
	// SlackS is added to DisturbedPct's share as an absolute allowance for
	// the kernel's accounting, which counts CPU time in clock ticks
	// (10 ms) on each CPU: two ticks.
	SlackS = 0.02
	// UsedPct is the least share of the wall time the run's threads spent
	// on a CPU, when the run was not pinned, for that CPU to count as one
	// it ran on.
	UsedPct = 10.0
)

// Worst is the CPU the run used whose time other processes and the
// hypervisor took most of, and that share in percent of the wall time; -1
// and 0 when the run used none.
func (in *Interference) Worst() (cpu int, pct float64) {
	c, ok := in.worstLoad()
	if !ok {
		return -1, 0
	}
	return c.CPU, c.OtherPct + c.StealPct
}

// WorstSource is who took Worst's share of Worst's CPU (Others when the
// run used none).
func (in *Interference) WorstSource() Source {
	c, _ := in.worstLoad()
	return c.Source()
}

// worstLoad is the load of Worst's CPU; false when the run used none.
func (in *Interference) worstLoad() (CPULoad, bool) {
	var w CPULoad
	found := false
	for _, c := range in.CPUs {
		if !in.uses(c) {
			continue
		}
		if !found || c.OtherPct+c.StealPct > w.OtherPct+w.StealPct {
			w, found = c, true
		}
	}
	return w, found
}

// OthersCPUs is the CPU time other processes, the kernel and the
// hypervisor (steal) took on the given CPUs over the run, in CPUs: the sum
// of their OtherPct and StealPct over 100 (0.19: a fifth of one CPU's
// time). CPUs the record does not list count nothing; nil cpus takes
// every CPU it lists.
func (in *Interference) OthersCPUs(cpus []int) float64 {
	sum := 0.0
	for _, c := range in.CPUs {
		if cpus == nil || slices.Contains(cpus, c.CPU) {
			sum += c.OtherPct + c.StealPct
		}
	}
	return sum / 100
}

// uses reports whether the run ran on c.
func (in *Interference) uses(c CPULoad) bool {
	if len(in.Used) > 0 {
		for _, u := range in.Used {
			if u == c.CPU {
				return true
			}
		}
		return false
	}
	return c.OwnPct >= UsedPct
}

// Over reports whether the run was disturbed beyond the thresholds: on a
// CPU it used, other processes and the hypervisor took more than
// DisturbedPct of its wall time plus SlackS.
func (in *Interference) Over() bool {
	return in != nil && len(in.OverCPUs()) > 0
}

// Describe says what disturbed the run, as "another process on cpu0 for
// 41% of the run" (and the steal, when there was any), or "" when nothing
// did beyond the thresholds.
func (in *Interference) Describe() string {
	if !in.Over() {
		return ""
	}
	var parts []string
	loads := append([]CPULoad(nil), in.CPUs...)
	sort.SliceStable(loads, func(i, j int) bool {
		return loads[i].OtherPct+loads[i].StealPct > loads[j].OtherPct+loads[j].StealPct
	})
	for _, c := range loads {
		if !in.over(c) {
			continue
		}
		if c.Source() == Others {
			parts = append(parts, fmt.Sprintf("another process on cpu%d for %.0f%% of the run", c.CPU, c.OtherPct))
		} else {
			parts = append(parts, fmt.Sprintf("the hypervisor on cpu%d for %.0f%% of the run (steal)", c.CPU, c.StealPct))
		}
	}
	return strings.Join(parts, ", ")
}

// OverCPUs lists the CPUs the run used on which others took more than
// the thresholds allow.
func (in *Interference) OverCPUs() []int {
	var out []int
	for _, c := range in.CPUs {
		if in.over(c) {
			out = append(out, c.CPU)
		}
	}
	return out
}

// over reports whether c is a CPU the run used on which others took more
// than the thresholds allow.
func (in *Interference) over(c CPULoad) bool {
	return in.uses(c) && (c.OtherPct+c.StealPct)/100*in.WallS > DisturbedPct/100*in.WallS+SlackS
}

// Note is what a run's progress line says of the other processes: "" for
// a run they left alone at the first try (or not measured), "; re-run 2
// times" for one a re-run cleared, "; disturbed: another process on cpu0
// for 41% of the run (re-run 2 times)" for one they disturbed to the end.
func (in *Interference) Note() string {
	if in == nil {
		return ""
	}
	again := ""
	switch {
	case in.Reruns == 1:
		again = "re-run once"
	case in.Reruns > 1:
		again = fmt.Sprintf("re-run %d times", in.Reruns)
	}
	if in.Disturbed {
		if again != "" {
			again = " (" + again + ")"
		}
		return "; disturbed: " + in.Describe() + again
	}
	if again != "" {
		return "; " + again
	}
	return ""
}

// Validate checks an interference record read from a file.
func (in *Interference) Validate() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v < 0 }
	if bad(in.WallS) {
		return fmt.Errorf("interference: wall_s %g is not a non-negative number", in.WallS)
	}
	if in.PressurePct != nil && bad(*in.PressurePct) {
		return fmt.Errorf("interference: pressure_pct %g is not a non-negative number", *in.PressurePct)
	}
	if in.Reruns < 0 {
		return fmt.Errorf("interference: reruns %d is negative", in.Reruns)
	}
	for _, c := range in.CPUs {
		if c.CPU < 0 || bad(c.OwnPct) || bad(c.OtherPct) || bad(c.StealPct) {
			return fmt.Errorf("interference: cpu %d: shares must be non-negative numbers", c.CPU)
		}
	}
	return nil
}
