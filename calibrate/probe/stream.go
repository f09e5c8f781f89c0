package probe

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// sink receives every checksum, so the compiler cannot drop the reads that
// produce them.
var sink atomic.Uint64

// padded keeps per-worker results on their own cache lines.
type padded struct {
	v   uint64
	t0  int64
	t1  int64
	gop float64
	_   [32]byte
}

// sum64 adds up p with eight independent accumulators over 16 words per
// step, so the loop is bound by loads rather than by the latency of one add
// chain or by loop overhead.
func sum64(p []uint64) uint64 {
	var s0, s1, s2, s3, s4, s5, s6, s7 uint64
	n := len(p) &^ 15
	for i := 0; i < n; i += 16 {
		q := p[i : i+16 : i+16]
		s0 += q[0] + q[8]
		s1 += q[1] + q[9]
		s2 += q[2] + q[10]
		s3 += q[3] + q[11]
		s4 += q[4] + q[12]
		s5 += q[5] + q[13]
		s6 += q[6] + q[14]
		s7 += q[7] + q[15]
	}
	for _, v := range p[n:] {
		s0 += v
	}
	return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7
}

// StreamRead measures the streaming read bandwidth, in GB/s (1e9 bytes per
// second), of threads threads pinned to cpus[0:threads] (threads 0 means all
// of cpus) reading workingSetBytes in all, each thread its own slice, which it
// allocated and first touched itself. A sample is one pass of every thread
// over its slice: total bytes over the time from the first thread's start to
// the last one's end. workingSetBytes 0 means DefaultWorkingSet.
func StreamRead(cpus []int, threads int, workingSetBytes int64, s *Settings) (Stats, error) {
	const unit = "GB/s"
	if !haveLinux {
		return Stats{Unit: unit}, ErrNeedLinux
	}
	cpus, err := firstThreads(cpus, threads)
	if err != nil {
		return Stats{Unit: unit}, err
	}
	var words int
	st, err := openStreams(cpus, s, "stream read", func(cfg settings) (func(int) int, error) {
		var err error
		words, err = wordsPerThread(workingSetBytes, len(cpus), cfg)
		return func(int) int { return words }, err
	})
	if err != nil {
		return Stats{Unit: unit}, err
	}
	defer st.p.Close()
	p, bufs, res, cfg := st.p, st.bufs, st.res, st.cfg
	bytes := float64(8 * words * len(cpus))
	return repeat(cfg, unit, func() (float64, error) {
		p.Run(func(w int) {
			res[w].t0 = now()
			res[w].v += sum64(bufs[w])
			res[w].t1 = now()
		})
		return bytes / float64(span(res)), nil // bytes per ns = GB/s
	})
}

// streams are a pool of one thread pinned to each CPU, each with the
// buffer it allocated and first touched itself, a result slot per
// thread, and the probe's settings: what every stream probe reads.
type streams struct {
	p    *Pool
	bufs [][]uint64
	res  []padded
	cfg  settings
}

// openStreams resolves s, sizes each thread's buffer by words (given the
// resolved settings), and opens the streams on cpus; what names the probe
// in an error. The caller closes st.p.
func openStreams(cpus []int, s *Settings, what string, words func(cfg settings) (func(worker int) int, error)) (*streams, error) {
	if !haveLinux {
		return nil, ErrNeedLinux
	}
	cfg, err := s.resolve()
	if err != nil {
		return nil, err
	}
	if len(cpus) == 0 {
		return nil, fmt.Errorf("probe: %s: no cpus given", what)
	}
	w, err := words(cfg)
	if err != nil {
		return nil, err
	}
	p, err := NewPool(cpus, 0) // rejects a CPU given twice
	if err != nil {
		return nil, fmt.Errorf("probe: %s: %w", what, err)
	}
	return &streams{p: p, bufs: allocStreams(p, w), res: make([]padded, len(cpus)), cfg: cfg}, nil
}

// streamUntil reads buf over and over, in chunks of 256 KiB, until stop is
// set, and returns the checksum.
func streamUntil(buf []uint64, stop *atomic.Bool) uint64 {
	const chunk = 32 << 10
	var s uint64
	for {
		for i := 0; i < len(buf); i += chunk {
			if stop.Load() {
				return s
			}
			s += sum64(buf[i:min(i+chunk, len(buf))])
		}
	}
}

// span returns the time from the earliest start to the latest end, at least
// 1ns, and folds the checksums into sink.
func span(res []padded) int64 {
	t0, t1 := res[0].t0, res[0].t1
	for _, r := range res {
		t0, t1 = min(t0, r.t0), max(t1, r.t1)
		sink.Add(r.v)
	}
	return max(t1-t0, 1)
}

// allocStreams has every worker allocate and initialise its own buffer of
// words(worker) words, so its pages are first touched by the thread that
// will read them.
func allocStreams(p *Pool, words func(worker int) int) [][]uint64 {
	bufs := make([][]uint64, p.Size())
	p.Run(func(w int) { bufs[w] = newStream(words(w)) })
	return bufs
}

func newStream(words int) []uint64 {
	b := make([]uint64, words)
	for i := range b {
		b[i] = uint64(i) | 1
	}
	return b
}

// firstThreads returns cpus[:threads], threads 0 meaning all.
func firstThreads(cpus []int, threads int) ([]int, error) {
	switch {
	case len(cpus) == 0:
		return nil, errors.New("probe: no cpus given")
	case threads < 0 || threads > len(cpus):
		return nil, fmt.Errorf("probe: %d threads on %d cpus %v: want 0 (all) to %d", threads, len(cpus), cpus, len(cpus))
	case threads == 0:
		return cpus, nil
	}
	return cpus[:threads], nil
}

// wordsPerThread splits a working set among threads, in whole cache lines.
func wordsPerThread(ws int64, threads int, cfg settings) (int, error) {
	if ws < 0 {
		return 0, fmt.Errorf("probe: working set %d bytes must not be negative", ws)
	}
	if ws == 0 {
		ws = defaultWorkingSet(cfg.maxWS)
	}
	words := int(ws/8/int64(threads)) &^ 7
	if words < 512 {
		return 0, fmt.Errorf("probe: working set %d bytes gives under 4 KiB to each of %d threads", ws, threads)
	}
	return words, nil
}

// StreamReadTogether measures what every CPU of cpus, one thread each,
// reads from DRAM while all of them stream at once, in GB/s: the sustained
// bandwidth of the whole set. Each thread reads its own workingSetBytes
// (0 means DefaultWorkingSet), which it allocated and first touched
// itself. In a sample every thread starts once all are streaming, times
// one pass over its buffer on its own CPU clock, and then keeps streaming
// until the last thread's pass is done, so that no pass is timed without
// the others' traffic; the sample is the sum of the threads' rates.
//
// The probe before it (streamReadContended, now only a benchmark's
// baseline) timed a pass on the wall clock, one set while the other
// streams, then the reverse: when another process takes a CPU for a
// moment, that pass runs long, and the two sets' passes are timed at
// different moments of the machine. On the 2-vCPU build machine its
// samples spread by 16% a call, against 2–5% here (BenchmarkStreamTogether,
// docs/busy-machine.md). On the thread's CPU clock, time a thread spends
// preempted counts for none of its rate, while its bytes still meet the
// others' traffic.
func StreamReadTogether(cpus []int, workingSetBytes int64, s *Settings) (Stats, error) {
	const unit = "GB/s"
	var words int
	st, err := openStreams(cpus, s, "stream together", func(cfg settings) (func(int) int, error) {
		var err error
		words, err = wordsPerThread(workingSetBytes, 1, cfg)
		return func(int) int { return words }, err
	})
	if err != nil {
		return Stats{Unit: unit}, err
	}
	defer st.p.Close()
	p, bufs, res, cfg := st.p, st.bufs, st.res, st.cfg
	errs := make([]error, len(cpus))
	n := int32(len(cpus))
	return repeat(cfg, unit, func() (float64, error) {
		var started, done atomic.Int32
		var stop atomic.Bool
		p.Run(func(w int) {
			started.Add(1)
			for started.Load() < n {
			}
			var t0, t1 int64
			t0, errs[w] = threadCPUNanos()
			res[w].v += sum64(bufs[w])
			t1, _ = threadCPUNanos()
			res[w].t0, res[w].t1 = t0, t1
			if done.Add(1) == n {
				stop.Store(true)
				return
			}
			res[w].v += streamUntil(bufs[w], &stop)
		})
		total := 0.0
		for w := range res {
			if errs[w] != nil {
				return 0, errs[w]
			}
			sink.Add(res[w].v)
			total += float64(8*words) / float64(max(res[w].t1-res[w].t0, 1)) // bytes per ns = GB/s
		}
		return total, nil
	})
}
