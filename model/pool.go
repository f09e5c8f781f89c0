package model

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// A pool plan is stock llama.cpp's CPU backend: one ggml thread pool whose
// threads may sit on several clusters (llama-bench -t N with --cpu-mask and
// --cpu-strict). Package sim times it; this file holds what the plan and
// the profile say about it.

// MaxPoolThreads is the most threads a pool may run: ggml's
// GGML_MAX_N_THREADS (ggml/include/ggml-cpu.h).
const MaxPoolThreads = 512

// MaxPoolEngines is the most clusters one pool may span: the burst model
// solves the DRAM sharing of co-running engines over every subset of them
// (2^n states per op), so a pool over more clusters than any SoC has would
// make a run slow for nothing.
const MaxPoolEngines = 8

// DefaultTimesliceUS is Handoff.TimesliceUS when a profile leaves it out.
// A thread spinning in ggml's barrier never yields; a runnable thread
// waiting for its core runs only once the spinner is preempted at the end
// of its slice. Linux's slice is 0.75 ms x (1 + log2(min(CPUs, 8))) = 3 ms
// on an 8-CPU SoC (kernel/sched/fair.c: sysctl_sched_base_slice, formerly
// sched_min_granularity, scaled by SCHED_TUNABLESCALING_LOG), and the
// preemption is noticed at a scheduler tick, 4 ms apart at CONFIG_HZ=250
// (a common arm64 setting): about 4 ms (C). The public figures are of that
// order or more: ggml-org/llama.cpp PR #13079's Raspberry Pi 5 runs, 8
// threads on 4 cores with ggml's spinning barrier at 0.12 t/s against 26.5
// with 4 on 4 (Qwen2.5-0.5B, a graph of some 800 nodes), are ~10 ms a
// barrier; #21763 (Dimensity 9500s: 28.2 t/s at 3 threads, 0.26 at 5 or
// more) a few ms. A profile that measured it sets handoff.timeslice_us.
const DefaultTimesliceUS = 4000

// NewPool is the pool plan over engines, threads[i] of them on engines[i];
// the first engine holds the main thread.
func NewPool(engines []string, threads []int, poll int) Plan {
	return Plan{Mode: PoolPlan, Engines: append([]string(nil), engines...), Threads: append([]int(nil), threads...), Poll: poll}
}

// PoolThreads is the pool's thread count: every engine's threads.
func (p Plan) PoolThreads() int {
	n := 0
	for _, t := range p.Threads {
		n += t
	}
	return n
}

// Busy is how many of engine i's cores run something else (BusyCores[i],
// or 0 when the plan lists none).
func (p Plan) Busy(i int) int {
	if i < len(p.BusyCores) {
		return p.BusyCores[i]
	}
	return 0
}

func (p Plan) validatePool(s *SoC) error {
	if len(p.Engines) > MaxPoolEngines {
		return fmt.Errorf("plan: a pool over %d engines: at most %d", len(p.Engines), MaxPoolEngines)
	}
	if p.BusyCores != nil && len(p.BusyCores) != len(p.Engines) {
		return fmt.Errorf("plan: %d engines but %d busy-core counts", len(p.Engines), len(p.BusyCores))
	}
	engines, err := p.engines(s)
	if err != nil {
		return err
	}
	if err := p.checkAllowed(engines); err != nil {
		return err
	}
	for i, e := range engines {
		engines[i] = p.PoolEngine(i, e)
	}
	total := 0
	for i, e := range engines {
		name := e.Name
		if e.IsAccelerator() {
			return fmt.Errorf("plan: engine %q (%s) cannot be in a pool: a ggml CPU thread pool runs on CPU clusters", name, e.Kind)
		}
		if p.Threads[i] < 1 {
			return fmt.Errorf("plan: engine %q: %d threads, want at least 1", name, p.Threads[i])
		}
		total += p.Threads[i]
		if b := p.Busy(i); b < 0 || b > e.HWThreads() {
			if e.Ways() > 1 {
				return fmt.Errorf("plan: engine %q: %d busy hardware threads, but it has %d", name, b, e.HWThreads())
			}
			return fmt.Errorf("plan: engine %q: %d busy cores, but it has %d cores", name, b, e.Cores)
		}
	}
	if total > MaxPoolThreads {
		return fmt.Errorf("plan: a pool of %d threads: ggml runs at most %d", total, MaxPoolThreads)
	}
	return p.checkSMT(engines)
}

func (p Plan) poolString() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pool poll=%d t=%s", p.Poll, plusJoined(p.Threads))
	for _, c := range []struct {
		label string
		ns    []int
	}{{" busy=", p.BusyCores}, {" smt=", p.SMT}} {
		if slices.ContainsFunc(c.ns, func(n int) bool { return n > 0 }) {
			b.WriteString(c.label + plusJoined(c.ns))
		}
	}
	if p.Allowed != nil {
		b.WriteString(" cores=")
		for i, a := range p.Allowed {
			if i > 0 {
				b.WriteByte('+')
			}
			fmt.Fprintf(&b, "%dx%d", a.Cores, a.Ways)
		}
	}
	return b.String()
}

// Oversubscribed says whether threads threads of a pool, with busy of the
// engine's hardware threads running something else, are more runnable
// tasks than the engine has hardware threads (its cores, without SMT):
// then the scheduler time-slices them.
func (e *Engine) Oversubscribed(threads, busy int) bool { return threads+busy > e.HWThreads() }

// RunningCores is how many hardware threads' worth of CPU time (cores'
// worth, without SMT) threads threads get on e with busy of its hardware
// threads running something else at full load: all of them while they
// and the busy tasks fit; else a fair share, hw x threads/(threads+busy)
// (the scheduler shares a hardware thread equally among its runnable
// tasks).
func (e *Engine) RunningCores(threads, busy int) float64 {
	if !e.Oversubscribed(threads, busy) {
		return float64(threads)
	}
	return float64(e.HWThreads()) * float64(threads) / float64(threads+busy)
}

// PoolCores is the cores' worth a pool's threads threads on e run as
// while they run, with busy of its cores running something else: all of
// them when they fit the hardware threads (busy tasks then stall the pool
// instead: AllRunningShare); where they outnumber them, RunningCores. On
// cores with SMT the sim weighs siblings by their yield (SMTCores).
func (e *Engine) PoolCores(threads, busy int) float64 {
	if threads > e.HWThreads() {
		return e.RunningCores(threads, busy)
	}
	return float64(threads)
}

// AllRunningShare is the share of the time that all of threads pool
// threads hold one of e's hardware threads (cores, without SMT), when
// busy full-load tasks share them: every task gets a fair share s =
// hw/(threads+busy) of a hardware thread, each busy task holds one a
// share s of the time, independently of the others, and the pool's
// threads all run while at most hw-threads busy tasks do: the sum over k
// of those of C(busy, k) s^k (1-s)^(busy-k). 1 when they fit; 0 when the
// pool's own threads outnumber the hardware threads. ggml's threads meet
// at a barrier after every graph node, far sooner than a time slice
// ends, so the pool advances only while all its threads run: two threads
// with one of two cores busy, a third of the time; with both busy, a
// quarter (measured with llama.cpp: 0.32-0.39 and 0.25-0.32 of their idle
// speed, sim's TestRecordedOversubscription).
func (e *Engine) AllRunningShare(threads, busy int) float64 {
	c := e.HWThreads()
	switch {
	case threads+busy <= c:
		return 1
	case threads > c:
		return 0
	}
	s := float64(c) / float64(threads+busy)
	p := 0.0
	for k := 0; k <= c-threads && k <= busy; k++ {
		p += binomial(busy, k) * math.Pow(s, float64(k)) * math.Pow(1-s, float64(busy-k))
	}
	return p
}

// binomial is C(n, k) as a float64.
func binomial(n, k int) float64 {
	v := 1.0
	for i := 1; i <= k; i++ {
		v = v * float64(n-k+i) / float64(i)
	}
	return v
}

// RunQueue is how many runnable tasks share each of e's hardware threads
// when threads threads run beside busy full-load tasks: 1 when they fit.
func (e *Engine) RunQueue(threads, busy int) int {
	hw := e.HWThreads()
	return max(1, (threads+busy+hw-1)/hw)
}

// ThreadRateCores is ThreadRate for a fractional thread count: n cores'
// worth of time-sliced threads (RunningCores) run as n threads would.
// For a whole n it is ThreadRate(n), bit for bit.
func (e *Engine) ThreadRateCores(n float64) float64 {
	if n <= 0 {
		return 0
	}
	return n / (1 + e.ThreadScalingLoss*(n-1))
}

// BandwidthCoresGBs is BandwidthGBs for n cores' worth of threads.
func (e *Engine) BandwidthCoresGBs(n float64) float64 {
	if e.BandwidthPerThreadGBs > 0 && n > 0 {
		return math.Min(e.BandwidthMaxGBs, n*e.BandwidthPerThreadGBs)
	}
	return e.BandwidthMaxGBs
}

// Repacked says whether e runs op o of workload w from a repacked layout,
// whose kernels give each thread a fixed slice of the rows:
//
//   - the GGML type w names for o's weights (lower case: q4_0) is listed
//     in RepackedTypes;
//   - or w names none, and o's bits per weight are those of listed types
//     alone (8.5 bits: q8_0; 4.5: q4_0, q4_k and iq4_nl; 4.25 is iq4_xs as
//     well as mxfp4): a workload without types is divided as it would be
//     with them;
//   - or, when e lists none or the type is not known, o is a MUL_MAT_ID and
//     e's expert_token_tile is 1: that is the repacked path's signature (a
//     gemv per routed token over a static row slice per thread; the
//     generic path tiles tokens by 16), so a profile that says it says its
//     MUL_MAT_ID is repacked.
//
// Other ops run the generic kernels.
func (e *Engine) Repacked(w *Workload, o *Op) bool {
	typ := w.TensorType(o)
	if e.RepackedTypes != nil && typ != "" {
		return contains(e.RepackedTypes, typ)
	}
	if e.RepackedTypes != nil && o.Tensor != "" {
		if b, ok := w.Model.BitsPerWeight.Of(o.Tensor); ok && e.repacksAllOf(b) {
			return true
		}
	}
	return o.Kind == ExpertMatmul && e.ExpertTokenTile == 1
}

// repacksAllOf says whether every GGML type of bits bits per weight is
// among e's repacked types (and there is one).
func (e *Engine) repacksAllOf(bits float64) bool {
	n := 0
	for typ, b := range ggmlTypeBits {
		if math.Abs(b-bits) > 1e-9 {
			continue
		}
		if !contains(e.RepackedTypes, typ) {
			return false
		}
		n++
	}
	return n > 0
}

// TimesliceS is the wait, in seconds, of a pool's barrier for one of its
// threads that is runnable but not running: TimesliceUS, or
// DefaultTimesliceUS when the profile leaves it out.
func (h *Handoff) TimesliceS() float64 {
	if h.TimesliceUS > 0 {
		return h.TimesliceUS * 1e-6
	}
	return DefaultTimesliceUS * 1e-6
}

// TensorType is the GGML type of the weights of op o in workload w (see
// Arch.Types; "" for an op without weights or a workload without types).
func (w *Workload) TensorType(o *Op) string {
	if o.Tensor == "" {
		return ""
	}
	return w.Model.Types[o.Tensor]
}

// cpus checks an engine's cpus (path prefix p): none negative or listed
// twice, none another engine's (seen, by id). A list of another length
// than the cores is allowed (a what-if may change the cores) but gives no
// --cpu-mask (CPUMask).
func (c *checker) cpus(p string, e *Engine, seen map[int]string) {
	if e.CPUs == nil {
		return
	}
	if e.IsAccelerator() {
		c.fail(p+"cpus", "an accelerator has no CPU ids")
		return
	}
	for i, id := range e.CPUs {
		path := fmt.Sprintf("%scpus[%d]", p, i)
		switch other, dup := seen[id]; {
		case id < 0 || id >= 4096:
			c.fail(path, "%d is not a CPU id (0..4095)", id)
		case dup && other == e.Name:
			c.fail(path, "CPU %d listed twice", id)
		case dup:
			c.fail(path, "CPU %d is also engine %s's", id, other)
		}
		seen[id] = e.Name
	}
}

// CPUMask is llama.cpp's --cpu-mask, in hex, for threads[i] threads on
// engines[i] of s, each engine's first threads[i] CPUs; ok is false when an
// engine lacks cpus, or lists another number of them than its cores.
func (s *SoC) CPUMask(engines []string, threads []int) (string, bool) {
	var mask big.Int
	for i, name := range engines {
		e, _, err := s.Engine(name)
		if err != nil || len(e.CPUs) != e.Cores || i >= len(threads) || threads[i] > len(e.CPUs) {
			return "", false
		}
		for _, id := range e.CPUs[:threads[i]] {
			mask.SetBit(&mask, id, 1)
		}
	}
	return "0x" + mask.Text(16), true
}

// repacked checks an engine's repacked_types (path prefix p).
func (c *checker) repacked(p string, e *Engine) {
	if e.RepackedTypes != nil && len(e.RepackedTypes) == 0 {
		c.fail(p+"repacked_types", "empty; leave it out when no type is repacked")
	}
	seen := map[string]bool{}
	for i, t := range e.RepackedTypes {
		path := fmt.Sprintf("%srepacked_types[%d]", p, i)
		if !ggmlTypeName(t) {
			c.fail(path, "%q is not a GGML type name (lower case, as ggml spells them: q4_0, iq4_nl, q4_k)", t)
		}
		if seen[t] {
			c.fail(path, "%q listed twice", t)
		}
		seen[t] = true
	}
}

// ggmlTypeName says whether s is spelled like a GGML type in blsim's
// lower-case form: letters, digits and underscores, starting with a letter.
func ggmlTypeName(s string) bool {
	if s == "" || len(s) > 16 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// plusJoined writes counts as the pool label does: 4+4.
func plusJoined(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, "+")
}
