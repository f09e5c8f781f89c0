package calibrate

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/blsim/blsim/calibrate/probe"
	"github.com/blsim/blsim/calibrate/topology"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// Step is one measurement to take.
type Step struct {
	ID    string
	Label string
	run   func() (measure.Measurement, error)
	// cpus are the CPUs the step's threads are pinned to, on which other
	// processes disturb it (measure.Interference.Used).
	cpus []int
	// reset, when not nil, drops what an earlier attempt kept, before the
	// step is run again.
	reset func()
	// predict, for a dispatcher run, is how long it takes on a profile
	// (Announce); nil for a microbenchmark.
	predict func(*model.SoC) (time.Duration, bool)
	// skip, when not nil, is given the measurements taken so far and
	// says why the step is not run ("" to run it): a quick calibration's
	// later rounds under load (loadedFirstRound).
	skip func(taken []measure.Measurement) string
}

// on returns st pinned to cpus.
func on(cpus []int, st Step) Step {
	st.cpus = append([]int(nil), cpus...)
	return st
}

// Settings say what to measure; the zero value of each field is a default.
type Settings struct {
	// Engines to calibrate, the first the main (big) one; at least two.
	Engines []Engine
	// Quick shortens every budget and the dispatcher grid (under a
	// minute in all on two cores).
	Quick bool
	// Grid is "fit" (the default), "heldout" (a different set of plans,
	// for measuring held-out error with blsim validate), or "fit+heldout"
	// (both, in the same rounds; each measurement's knob "set" says which).
	Grid string
	// Shuffle runs each round's plans in an order of its own (drawn from
	// the round's number, the same on every run).
	Shuffle bool
	// NoMicro skips the microbenchmarks in Steps (they only set the fit's
	// priors).
	NoMicro bool
	// Workload is the dispatcher's workload; nil means the synthetic MoE
	// sized to twice the last-level cache, which Steps sets.
	Workload *model.Workload
	// Repeats of each dispatcher run, at least; 0 means 2. Unless
	// FixedRepeats, a run whose repeats spread takes more (NewRepeats).
	Repeats      int
	FixedRepeats bool
	// Reruns bounds the re-runs of a step other processes disturbed
	// (busy.NewPolicy); 0: none.
	Reruns int
	// Rounds runs the whole dispatcher grid this many times, one plan
	// after another, so that a slow spell of a shared machine hits one run
	// of several plans instead of every run of one (the fit merges the
	// rounds); 0 means 5, or QuickRounds when Quick, with the rounds
	// after the first skipped when the first was disturbed
	// (loadedFirstRound). A quick calibration's rounds are shuffled
	// however many.
	Rounds int
	// Host is recorded in every measurement.
	Host *measure.Host
	// MicroBudget, when set, replaces each microbenchmark's time budget
	// (tests use a few milliseconds).
	MicroBudget time.Duration
}

func (s *Settings) probeSettings() *probe.Settings {
	ps := &probe.Settings{MinRuns: 5, MaxRuns: 100, Budget: 2 * time.Second, MaxWorkingSetBytes: 1 << 30}
	if s.Quick {
		ps = &probe.Settings{MinRuns: 3, MaxRuns: 20, Budget: 300 * time.Millisecond, MaxWorkingSetBytes: 512 << 20}
	}
	if s.MicroBudget > 0 {
		ps.Budget, ps.MinRuns, ps.MaxWorkingSetBytes = s.MicroBudget, 2, 64<<20
	}
	return ps
}

func stamp(m *measure.Measurement, host *measure.Host) {
	m.Schema = measure.Schema
	m.Host = host
	m.Time = time.Now().UTC().Format(time.RFC3339)
	if m.Status == "" {
		m.Status = "ok"
	}
}

func fromStats(id, kind, param, engine, unit string, st probe.Stats, scale float64) measure.Measurement {
	m := measure.Measurement{ID: id, Kind: kind, Param: param, Engine: engine, Unit: unit}
	for _, v := range st.Samples {
		m.Samples = append(m.Samples, v*scale)
	}
	m.Median = st.Median * scale
	m.CV = st.CV
	return m
}

// MicroSteps lists the microbenchmarks: per engine its streaming bandwidth
// with all its threads and its kernel rates on one thread; all engines
// streaming at once; futex wake across engines (at once and after 10 ms
// idle), spin handoff, the spin time of one poll unit, and the barrier.
func MicroSteps(s *Settings) []Step {
	ps := s.probeSettings()
	// The streams read DRAM: many times the last-level cache, in the quick
	// calibration too, so that its caps are the full one's.
	ws := probe.DefaultWorkingSet(0)
	if s.MicroBudget > 0 {
		ws = probe.DefaultWorkingSet(ps.MaxWorkingSetBytes) // tests
	}
	var steps []Step
	tag := func(cpus []int) string { return topology.FormatCPUList(cpus) }
	for _, en := range s.Engines {
		c := en.Cluster
		p := "engines." + c.Name + "."
		ghz := en.ClockGHz
		steps = append(steps,
			on(c.CPUs, Step{ID: "stream/" + c.Name + "/" + tag(c.CPUs), Label: "stream read, " + c.Name, run: func() (measure.Measurement, error) {
				st, err := probe.StreamRead(c.CPUs, len(c.CPUs), ws, ps)
				return fromStats("stream/"+c.Name+"/"+tag(c.CPUs), measure.Stream, p+"bandwidth_max_gb_s", c.Name, "GB/s", st, 1), err
			}}),
		)
		if len(c.CPUs) > 1 {
			// What one thread pulls, for plans that run fewer threads than
			// the cluster has cores.
			steps = append(steps, on(c.CPUs[:1], Step{ID: "stream1/" + c.Name + "/" + tag(c.CPUs[:1]), Label: "stream read, " + c.Name + ", 1 thread", run: func() (measure.Measurement, error) {
				st, err := probe.StreamRead(c.CPUs[:1], 1, ws, ps)
				return fromStats("stream1/"+c.Name+"/"+tag(c.CPUs[:1]), measure.Stream, p+"bandwidth_per_thread_gb_s", c.Name, "GB/s", st, 1), err
			}}))
		}
		steps = append(steps,
			// The dispatcher's hot-loop kernels: a gemm tile's 4×2 for
			// each class, and the 4×1 of a one-token walk, whose rate
			// over the tile's is the gemv efficiency.
			on(c.CPUs[:1], Step{ID: "kernel/q4x4x2/" + c.Name + "/" + tag(c.CPUs[:1]), Label: "q4 kernel, " + c.Name, run: func() (measure.Measurement, error) {
				st, err := probe.KernelThroughput(c.CPUs[:1], 1, probe.KernelQ4Q8Tile, ps)
				return fromStats("kernel/q4x4x2/"+c.Name+"/"+tag(c.CPUs[:1]), measure.Kernel, p+"kernel_ops_per_cycle.q4", c.Name, "ops/cycle", st, 1/ghz), err
			}}),
			on(c.CPUs[:1], Step{ID: "kernel/q8x4x2/" + c.Name + "/" + tag(c.CPUs[:1]), Label: "q8 kernel, " + c.Name, run: func() (measure.Measurement, error) {
				st, err := probe.KernelThroughput(c.CPUs[:1], 1, probe.KernelQ8Q8Tile, ps)
				return fromStats("kernel/q8x4x2/"+c.Name+"/"+tag(c.CPUs[:1]), measure.Kernel, p+"kernel_ops_per_cycle.q8", c.Name, "ops/cycle", st, 1/ghz), err
			}}),
			on(c.CPUs[:1], Step{ID: "kernel/gemv/" + c.Name + "/" + tag(c.CPUs[:1]), Label: "gemv efficiency, " + c.Name, run: func() (measure.Measurement, error) {
				return gemvEfficiency(p+"gemv_efficiency", c.Name, "kernel/gemv/"+c.Name+"/"+tag(c.CPUs[:1]), c.CPUs[:1], ps)
			}}),
		)
		// The float kernels of llama.cpp's CPU backend: attention's
		// products (tiles for a prompt, dot products for one token), its
		// softmax, flash attention, the f32 tiles and the norms.
		for _, fk := range []struct {
			id, label, param string
			k                probe.Kernel
		}{
			{"f16attn", "f16 attention products", "kernel_ops_per_cycle.f16", probe.KernelF16Attn},
			{"f16gemv", "f16 attention products, one token", "kernel_ops_per_cycle." + model.RateF16Gemv, probe.KernelF16Gemv},
			{"softmax", "attention softmax", "kernel_ops_per_cycle." + model.RateSoftmax, probe.KernelSoftmax},
			{"flashattn", "flash attention", "kernel_ops_per_cycle." + model.RateFlashAttn, probe.KernelFlashAttn},
			{"f32x4", "f32 kernel", "kernel_ops_per_cycle.f32", probe.KernelF32Tile},
			{"norm", "norms", "scalar_ops_per_cycle", probe.KernelNorm},
		} {
			id := "kernel/" + fk.id + "/" + c.Name + "/" + tag(c.CPUs[:1])
			steps = append(steps, on(c.CPUs[:1], Step{ID: id, Label: fk.label + ", " + c.Name, run: func() (measure.Measurement, error) {
				st, err := probe.KernelThroughput(c.CPUs[:1], 1, fk.k, ps)
				return fromStats(id, measure.Kernel, p+fk.param, c.Name, "ops/cycle", st, 1/ghz), err
			}}))
		}
		steps = append(steps, scalingSteps(c, ps)...)
		steps = append(steps, llcSteps(c, ps)...)
		steps = append(steps, smtSteps(c, ps)...)
	}
	a := s.Engines[0].Cluster
	// A pool of one thread more than the first cluster's cores: the wait
	// at each barrier for the thread that is not running.
	steps = append(steps, on(a.CPUs, Step{ID: "timeslice/" + tag(a.CPUs), Label: "time slice, " + a.Name, run: func() (measure.Measurement, error) {
		st, err := probe.Timeslice(a.CPUs, ps)
		return fromStats("timeslice/"+tag(a.CPUs), measure.Timeslice, "handoff.timeslice_us", "", "us", st, 1), err
	}}))
	if len(s.Engines) == 1 {
		// One cluster (a host llama.cpp runs as one pool): the handoffs are
		// between its own CPUs, and its stream is all the DRAM there is.
		if len(a.CPUs) < 2 {
			return steps
		}
		b := a
		b.CPUs = a.CPUs[1:]
		return append(steps, handoffSteps(a.CPUs[0], b.CPUs[0], tag(a.CPUs), ps, "CPUs")...)
	}
	b := s.Engines[1].Cluster
	pair := tag(a.CPUs) + "+" + tag(b.CPUs)
	steps = append(steps,
		on(append(append([]int(nil), a.CPUs...), b.CPUs...), Step{ID: "stream_contended/" + pair, Label: "stream read, all engines at once", run: func() (measure.Measurement, error) {
			// Every CPU of both engines streams at once, each pass on its
			// thread's CPU clock: what DRAM sustains for all of them, the
			// parameter itself (fit.MeasuredDirectly).
			cpus := append(slices.Clone(a.CPUs), b.CPUs...)
			st, err := probe.StreamReadTogether(cpus, TogetherWorkingSet(ws, len(cpus)), ps)
			return fromStats("stream_contended/"+pair, measure.StreamContended, "dram.sustained_gb_s", "", "GB/s", st, 1), err
		}}))
	return append(steps, handoffSteps(a.CPUs[0], b.CPUs[0], pair, ps, "engines")...)
}

// shortIdles are the idles, short of the sleep exit's 10 ms, after which
// the futex_wake_idle step also wakes a pool, and the knobs that record
// those wakes' medians (µs).
var shortIdles = []struct {
	d    time.Duration
	us   float64
	knob string
}{{100 * time.Microsecond, 100, "wake_100us_us"}, {time.Millisecond, 1000, "wake_1ms_us"}}

// handoffSteps measure the wake, spin and barrier costs between CPUs from
// and to (of two engines, or of one); pair tags the barrier's ID.
func handoffSteps(from, to int, pair string, ps *probe.Settings, across string) []Step {
	steps := []Step{
		{ID: fmt.Sprintf("futex_wake/%d-%d", from, to), Label: "futex wake across " + across, run: func() (measure.Measurement, error) {
			st, err := probe.FutexWake(from, to, 0, ps)
			return fromStats(fmt.Sprintf("futex_wake/%d-%d", from, to), measure.FutexWake, "handoff.futex_wake_us", "", "us", st, 1), err
		}},
		{ID: fmt.Sprintf("futex_wake_idle/%d-%d", from, to), Label: "futex wake after 100 µs, 1 ms and 10 ms idle", run: func() (measure.Measurement, error) {
			idle, err := probe.FutexWake(from, to, 10*time.Millisecond, ps)
			if err != nil {
				return measure.Measurement{}, err
			}
			// The wakes after shorter idles say how the sleep exit grows
			// with the idle (model.Handoff.SleepExitByIdle).
			knobs := map[string]string{"idle_ms": "10", "wake_idle_us": fmt.Sprintf("%.2f", idle.Median)}
			for _, s := range shortIdles {
				st, err := probe.FutexWake(from, to, s.d, ps)
				if err != nil {
					return measure.Measurement{}, err
				}
				knobs[s.knob] = fmt.Sprintf("%.2f", st.Median)
			}
			now, err := probe.FutexWake(from, to, 0, ps)
			m := fromStats(fmt.Sprintf("futex_wake_idle/%d-%d", from, to), measure.FutexWake, "handoff.sleep_exit_us", "", "us", idle, 1)
			m.Samples = nil
			m.Median = math.Max(0.1, idle.Median-now.Median) // what sleeping longer adds
			knobs["wake_now_us"] = fmt.Sprintf("%.2f", now.Median)
			m.Knobs = knobs
			return m, err
		}},
		{ID: fmt.Sprintf("spin_wake/%d-%d", from, to), Label: "spin handoff", run: func() (measure.Measurement, error) {
			st, err := probe.SpinHandoff(from, to, ps)
			return fromStats(fmt.Sprintf("spin_wake/%d-%d", from, to), measure.SpinWake, "handoff.spin_wake_us", "", "us", st, 1), err
		}},
		{ID: fmt.Sprintf("spin_unit/%d", to), Label: "spin window per poll unit", run: func() (measure.Measurement, error) {
			st, err := probe.SpinUnit(to, ps)
			return fromStats(fmt.Sprintf("spin_unit/%d", to), measure.SpinWake, "handoff.spin_window_us_per_poll", "", "us", st, 1), err
		}},
		{ID: "barrier/" + pair, Label: "barrier across " + across, run: func() (measure.Measurement, error) {
			st, err := probe.Barrier([]int{from, to}, ps)
			return fromStats("barrier/"+pair, measure.Barrier, "handoff.join_us", "", "us", st, 1), err
		}},
	}
	for i := range steps {
		steps[i].cpus = []int{from, to}
	}
	return steps
}

// gemvEfficiency measures a one-token walk's rate (Q8_0 4×1) over a tile's
// (Q8_0 4×2) on the first of cpus: the share of the kernel rate a gemv
// reaches (model.Engine.GemvEfficiency). The two are timed in alternation
// within each sample (probe.KernelRatio), so that the machine's drift
// cancels in their ratio; timed as two series one after the other, the
// ratio's CV was 3.1% on one CPU of the development VM and 14.9% on the
// other (docs/busy-machine.md).
func gemvEfficiency(param, engine, id string, cpus []int, ps *probe.Settings) (measure.Measurement, error) {
	m := measure.Measurement{ID: id, Kind: measure.Kernel, Param: param, Engine: engine, Unit: "fraction"}
	st, err := probe.KernelRatio(cpus[0], probe.KernelQ8Q8Gemv, probe.KernelQ8Q8Tile, ps)
	if err != nil {
		return m, fmt.Errorf("gemv efficiency: %w", err)
	}
	for _, v := range st.Samples {
		m.Samples = append(m.Samples, math.Min(1, v))
	}
	m.Summarize()
	return m, nil
}

// TogetherWorkingSet is what each of n CPUs streams when all stream at
// once: the one-stream working set ws (DefaultWorkingSet: eight times the
// last-level cache, at most a quarter of the memory available) divided
// among them, at least probe.MinDRAMWorkingSet / n. Together they still
// read ws, well past the cache they share; one ws each would need n
// times the memory: 8 GiB on an 8-CPU RK3588 whose board has 4 or 8 GB,
// which the calibration then refused to start.
func TogetherWorkingSet(ws int64, n int) int64 {
	if n <= 1 {
		return ws
	}
	return max(ws/int64(n), probe.MinDRAMWorkingSet/int64(n))
}
