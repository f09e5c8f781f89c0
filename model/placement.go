package model

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// Placement is the policy that puts a pool's threads on CPUs: the OS
// scheduler's, for `-t N` without a mask (or with --cpu-mask and
// --cpu-strict 0, within the mask), or llama.cpp's own with --cpu-strict 1.
// docs/threads.md gives each one's public source.
type Placement string

// The placement policies.
const (
	// PlaceLinux is the Linux scheduler (CFS, then EEVDF): a task that
	// wakes goes to an idle core before an idle SMT sibling
	// (select_idle_core, SD_SHARE_CPUCAPACITY), on hybrid x86 the
	// higher-priority cores first (ITMT's asym packing: P-cores, then
	// E-cores, then the P-cores' siblings, whose priority
	// sched_set_itmt_core_prio lowers), and on asymmetric Arm clusters the
	// cores with the capacity for a busy thread (misfit migration to the
	// biggest cpu_capacity). Its time slice is about 4 ms (DefaultTimesliceUS).
	PlaceLinux Placement = "linux"
	// PlaceAndroid is Android's kernel with Energy Aware Scheduling: a
	// task whose utilisation does not fit a small core runs on the
	// biggest (find_energy_efficient_cpu, misfit); a spinning ggml thread
	// is always busy, so threads fill the cores biggest first. GKI kernels
	// tick at 250 Hz: the Linux slice. ggml applies no thread affinity on
	// Android, so llama.cpp's masks (and an app's, llama.rn's) do nothing:
	// ggml-cpu.c (c392e50) sets affinity only where __gnu_linux__ is
	// defined, which clang defines for Linux targets but not for Android's
	// (clang/lib/Basic/Targets/OSTargets.h, LinuxTargetInfo). A CPU set
	// (PlaceOptions.Allowed: taskset, a cgroup cpuset) still holds.
	PlaceAndroid Placement = "android"
	// PlaceMacOS is macOS on Apple silicon: threads of the default and
	// user-initiated QoS classes run on the P cores, and on the E cores
	// when the P cores are all busy (Apple, "Tuning your code's
	// performance for Apple silicon"); no thread affinity, so llama.cpp's
	// masks do nothing. XNU's quantum is 10 ms (osfmk/kern/sched_prim.c,
	// std_quantum_us).
	PlaceMacOS Placement = "macos"
	// PlaceWindows is Windows 11 with Thread Director on hybrid Intel
	// chips: P-cores first, then E-cores, then the P-cores' second
	// hardware threads (Intel's hybrid architecture optimization guide);
	// on other chips idle cores before SMT siblings. A thread runs for a
	// quantum of two clock ticks, 31.25 ms at the default 15.625 ms tick
	// (Windows Internals, "Quantum").
	PlaceWindows Placement = "windows"
	// PlaceStrict is llama.cpp's --cpu-strict 1: ggml pins worker j
	// (1..N-1) to the j-th CPU of the mask in increasing id order and the
	// main thread to the next, wrapping around the mask
	// (ggml_thread_cpumask_next in ggml-cpu.c), whatever the cores are.
	PlaceStrict Placement = "strict"
)

// Placements lists the policies.
var Placements = []Placement{PlaceLinux, PlaceAndroid, PlaceMacOS, PlaceWindows, PlaceStrict}

// ParsePlacement reads a policy name.
func ParsePlacement(s string) (Placement, error) {
	p := Placement(strings.ToLower(strings.TrimSpace(s)))
	if slices.Contains(Placements, p) {
		return p, nil
	}
	names := make([]string, len(Placements))
	for i, q := range Placements {
		names[i] = string(q)
	}
	return "", fmt.Errorf("placement %q: want one of %s", s, strings.Join(names, ", "))
}

// Pins says whether llama.cpp's --cpu-mask and --cpu-strict pin threads
// under the policy: not on Android or macOS, where ggml sets no thread
// affinity (PlaceAndroid, PlaceMacOS); only a CPU set narrows them there.
func (p Placement) Pins() bool {
	return p != PlaceAndroid && p != PlaceMacOS
}

// TimesliceUS is the policy's scheduler slice in microseconds: what a
// barrier waits for a thread that is runnable but not running, where the
// profile measured none (Handoff.TimesliceUS).
func (p Placement) TimesliceUS() float64 {
	switch p {
	case PlaceMacOS:
		return 10000
	case PlaceWindows:
		return 31250
	}
	return DefaultTimesliceUS
}

// A Slot is one hardware thread of a CPU cluster: its engine (index in
// SoC.Engines), core (index in the engine) and way (0: the core's first
// hardware thread), and its Linux CPU id (-1 when the engine lists none).
type Slot struct {
	Engine int `json:"engine"`
	Core   int `json:"core"`
	Way    int `json:"way"`
	CPU    int `json:"cpu"`
}

// slots lists the SoC's hardware threads in the order an OS fills them:
// every core's first thread before any sibling, the clusters by their
// capacity (fastest first: Engine.CapacityGOPS), the cores in order.
func (s *SoC) slots() []Slot {
	var out []Slot
	for i := range s.Engines {
		e := &s.Engines[i]
		if e.IsAccelerator() {
			continue
		}
		for c := 0; c < e.Cores; c++ {
			for w := 0; w < e.Ways(); w++ {
				out = append(out, Slot{Engine: i, Core: c, Way: w, CPU: e.cpuOf(c, w)})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Slot) int {
		return cmp.Or(cmp.Compare(a.Way, b.Way),
			cmp.Compare(s.Engines[b.Engine].CapacityGOPS(), s.Engines[a.Engine].CapacityGOPS()))
	})
	return out
}

// cpuOf is the CPU id of way w of core c (-1 when e does not list it).
func (e *Engine) cpuOf(c, w int) int {
	if w == 0 {
		if c < len(e.CPUs) && len(e.CPUs) == e.Cores {
			return e.CPUs[c]
		}
		return -1
	}
	i := c*(e.Ways()-1) + w - 1
	if len(e.CPUs) == e.Cores && i < len(e.SMTCPUs) {
		return e.SMTCPUs[i]
	}
	return -1
}

// CapacityGOPS is one thread's q4 matmul rate, in GOPS: the cluster's
// capacity as the schedulers rank it (cpu_capacity, ITMT priority, P over
// E cores) for placing busy threads.
func (e *Engine) CapacityGOPS() float64 { return e.KernelOpsPerCycle[string(ClassQ4)] * e.ClockGHz }

// PlaceOptions narrow a placement: a --cpu-mask, and the CPUs the
// process may run on at all (its affinity or cgroup cpuset).
type PlaceOptions struct {
	// Mask is the CPU ids of llama.cpp's --cpu-mask (nil: every CPU):
	// strict pins within it; an OS policy places within it.
	Mask []int
	// Allowed is the CPU ids the process may run on (nil: every CPU):
	// where a strict pin falls outside it, the pin fails (the kernel
	// refuses an affinity outside the cpuset) and the thread is placed by
	// the OS within Allowed.
	Allowed []int
	// Poll is the plan's --poll.
	Poll int
}

// Placed is a pool placed by a policy: its plan, and each thread's slot
// (Threads[0] the main thread's).
type Placed struct {
	Policy  Placement `json:"policy"`
	Plan    Plan      `json:"plan"`
	Threads []Slot    `json:"threads"`
}

// Place puts a pool of n threads on s's CPU clusters by policy pol.
//
// An OS policy fills hardware threads in its order (every core's first
// thread before any sibling, the fastest clusters first), within the
// mask and the allowed CPUs; threads past the hardware threads take turns
// on them (the scheduler time-slices them: the pool's oversubscription).
// Strict pins thread j to the mask's CPUs in id order (the main thread
// last), wrapping around; a CPU outside Allowed is placed by the OS.
// Masks and Allowed need the engines' CPU ids (Engine.CPUs, SMTCPUs).
func (s *SoC) Place(n int, pol Placement, o PlaceOptions) (*Placed, error) {
	if n < 1 || n > MaxPoolThreads {
		return nil, fmt.Errorf("place: %d threads: want 1..%d", n, MaxPoolThreads)
	}
	all := s.slots()
	if len(all) == 0 {
		return nil, fmt.Errorf("place: soc %s has no CPU cluster", s.Name)
	}
	byCPU := map[int]Slot{}
	for _, sl := range all {
		if sl.CPU >= 0 {
			byCPU[sl.CPU] = sl
		}
	}
	within := func(ids []int, what string) (map[Slot]bool, error) {
		if ids == nil {
			return nil, nil
		}
		if len(byCPU) == 0 {
			return nil, fmt.Errorf("place: a %s needs the engines' CPU ids (engines.NAME.cpus), which soc %s does not list", what, s.Name)
		}
		set := map[Slot]bool{}
		for _, id := range ids {
			sl, ok := byCPU[id]
			if !ok {
				return nil, fmt.Errorf("place: the %s names CPU %d, which no CPU cluster of soc %s lists", what, id, s.Name)
			}
			set[sl] = true
		}
		return set, nil
	}
	if !pol.Pins() {
		o.Mask = nil // no thread affinity from ggml there: llama.cpp's mask does nothing
	}
	mask, err := within(o.Mask, "--cpu-mask")
	if err != nil {
		return nil, err
	}
	allowed, err := within(o.Allowed, "CPU set")
	if err != nil {
		return nil, err
	}
	in := func(set map[Slot]bool, sl Slot) bool { return set == nil || set[sl] }
	var osSlots []Slot // where the OS may put a thread, in its order
	for _, sl := range all {
		if in(allowed, sl) && (pol == PlaceStrict || in(mask, sl)) {
			osSlots = append(osSlots, sl)
		}
	}
	if len(osSlots) == 0 {
		return nil, fmt.Errorf("place: no CPU is both in the mask and allowed")
	}
	threads := make([]Slot, n)
	var usable map[Slot]bool // the hardware threads the pool may run on; nil: all
	if pol != PlaceStrict {
		for k := range threads {
			threads[k] = osSlots[k%len(osSlots)]
		}
		if mask != nil || allowed != nil {
			usable = map[Slot]bool{}
			for _, sl := range osSlots {
				usable[sl] = true
			}
		}
	} else {
		if len(byCPU) == 0 {
			return nil, fmt.Errorf("place: --cpu-strict 1 pins threads to CPU ids, which soc %s does not list (engines.NAME.cpus)", s.Name)
		}
		ids := o.Mask
		if ids == nil {
			for id := range byCPU {
				ids = append(ids, id)
			}
		}
		ids = slices.Clone(ids)
		slices.Sort(ids)
		ids = slices.Compact(ids)
		taken := map[Slot]int{}
		var floating []int
		for k := range threads {
			j := k - 1 // workers 1..n-1 first, the main thread last
			if k == 0 {
				j = n - 1
			}
			sl := byCPU[ids[j%len(ids)]]
			if !in(allowed, sl) {
				floating = append(floating, k)
				continue
			}
			threads[k] = sl
			taken[sl]++
		}
		// A thread whose pin failed runs where the OS puts it: an idle
		// allowed hardware thread in the OS's order, else beside the
		// fewest.
		for _, k := range floating {
			best := osSlots[0]
			for _, sl := range osSlots {
				if taken[sl] < taken[best] {
					best = sl
				}
			}
			threads[k] = best
			taken[best]++
		}
		// A pinned thread runs on its CPU alone; one that floats, anywhere
		// in the CPU set.
		usable = map[Slot]bool{}
		for _, sl := range threads {
			usable[sl] = true
		}
		if len(floating) > 0 {
			for _, sl := range osSlots {
				usable[sl] = true
			}
		}
	}
	return &Placed{Policy: pol, Plan: s.planOf(threads, allowedCounts(s, usable), o.Poll), Threads: threads}, nil
}

// allowedCounts is, per engine index, the cores and ways of the
// hardware threads in usable (nil: every one of every engine).
func allowedCounts(s *SoC, usable map[Slot]bool) map[int]CoreSet {
	if usable == nil {
		return nil
	}
	out := map[int]CoreSet{}
	for i := range s.Engines {
		e := &s.Engines[i]
		if e.IsAccelerator() {
			continue
		}
		set := CoreSet{}
		for c := 0; c < e.Cores; c++ {
			ways := 0
			for w := 0; w < e.Ways(); w++ {
				if usable[Slot{Engine: i, Core: c, Way: w, CPU: e.cpuOf(c, w)}] {
					ways++
				}
			}
			if ways > 0 {
				set.Cores++
				set.Ways = max(set.Ways, ways)
			}
		}
		out[i] = set
	}
	return out
}

// planOf is the pool plan of threads on slots: the engines in the order
// of their first thread (the main thread's first), each engine's thread
// count, its threads beside another on one core (SMT), and, where fewer
// of its cores or ways are allowed than it has, those.
func (s *SoC) planOf(threads []Slot, allowed map[int]CoreSet, poll int) Plan {
	var order []int
	count := map[int]int{}
	perCore := map[[2]int]int{}
	for _, sl := range threads {
		if count[sl.Engine] == 0 {
			order = append(order, sl.Engine)
		}
		count[sl.Engine]++
		perCore[[2]int{sl.Engine, sl.Core}]++
	}
	p := Plan{Mode: PoolPlan, Poll: poll}
	smt, restricted := false, false
	for _, i := range order {
		e := &s.Engines[i]
		t := count[i]
		used := 0
		for key := range perCore {
			if key[0] == i {
				used++
			}
		}
		set, ok := allowed[i]
		if !ok {
			set = CoreSet{Cores: e.Cores, Ways: e.Ways()}
		}
		sib := t - used
		if t > set.Cores*set.Ways {
			sib = set.Cores * (set.Ways - 1) // every hardware thread, time-sliced
		}
		p.Engines = append(p.Engines, e.Name)
		p.Threads = append(p.Threads, t)
		p.SMT = append(p.SMT, sib)
		p.Allowed = append(p.Allowed, set)
		smt = smt || sib > 0
		restricted = restricted || set.Cores < e.Cores || set.Ways < e.Ways()
	}
	if !smt {
		p.SMT = nil
	}
	if !restricted {
		p.Allowed = nil
	}
	return p
}

// PoolCPUMask is a pool plan's --cpu-mask in hex ("0xf0"): on each
// engine, the first threads-minus-siblings cores' first hardware threads
// (Engine.CPUs) and the first siblings of those cores (SMTCPUs, core by
// core); false when an engine does not list its CPU ids, or the plan
// does not fit its hardware threads.
func (s *SoC) PoolCPUMask(p Plan) (string, bool) {
	var mask big.Int
	for i, name := range p.Engines {
		e, _, err := s.Engine(name)
		if err != nil || len(e.CPUs) != e.Cores || i >= len(p.Threads) {
			return "", false
		}
		sib := p.Siblings(i, e)
		first := p.Threads[i] - sib
		if first < 0 || first > e.Cores || sib > first*(e.Ways()-1) {
			return "", false
		}
		for c := 0; c < first; c++ {
			mask.SetBit(&mask, e.CPUs[c], 1)
		}
		for k := 0; k < sib; k++ {
			id := e.cpuOf(k/(e.Ways()-1), k%(e.Ways()-1)+1)
			if id < 0 {
				return "", false
			}
			mask.SetBit(&mask, id, 1)
		}
	}
	return "0x" + mask.Text(16), true
}
