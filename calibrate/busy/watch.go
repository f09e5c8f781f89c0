package busy

import (
	"cmp"
	"math"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/blsim/blsim/measure"
)

// DefaultPeriod is how often a Watch reads the threads' CPU times: often
// enough that a thread the scheduler moves is counted on the CPU it ran
// on, seldom enough that reading costs well under 1% of one CPU.
const DefaultPeriod = 100 * time.Millisecond

// Options say what a Watch reads.
type Options struct {
	// Root is the procfs root; "" is /proc.
	Root string
	// Period between samples; 0 is DefaultPeriod, negative samples only
	// at Start and Stop (and when Sample is called).
	Period time.Duration
	// Used are the CPUs the run is pinned to (recorded as
	// measure.Interference.Used); nil when it is not pinned.
	Used []int
	// PID is the process whose threads are the run's own; 0 is this one.
	PID int

	now func() time.Time // tests
}

// A Watch follows one run: Start it just before the run, Follow the
// benchmark's process once it is started, Stop it just after.
type Watch struct {
	o     Options
	start time.Time
	stat0 map[int]cpuTimes
	psi0  float64
	psiOK bool
	self0 float64

	mu     sync.Mutex
	follow []int
	last   map[int]taskTime // each thread's CPU time when last read, by thread ID
	lastAt time.Time        // when the threads were last read
	exitN  int              // the exits (Exiting) read so far
	own    map[int]float64  // this process's time per CPU, seconds
	kids   map[int]float64  // the followed processes' time per CPU
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

// Start begins watching: it reads the CPUs' counters and this process's
// threads, and samples them every o.Period until Stop. ErrUnsupported when
// there is no readable procfs.
func Start(o Options) (*Watch, error) {
	o.Root = cmp.Or(o.Root, "/proc")
	if o.Period == 0 {
		o.Period = DefaultPeriod
	}
	if o.PID == 0 {
		o.PID = os.Getpid()
	}
	if o.now == nil {
		o.now = time.Now
	}
	stat0, err := readStat(o.Root)
	if err != nil {
		return nil, ErrUnsupported
	}
	w := &Watch{o: o, stat0: stat0, last: map[int]taskTime{}, own: map[int]float64{}, kids: map[int]float64{}}
	w.self0, _ = processSecs(o.Root, o.PID)
	w.psi0, w.psiOK = readPressure(o.Root)
	tasks(o.Root, o.PID, w.last)
	_, w.exitN = exitsSince(0)
	w.start = o.now()
	w.lastAt = w.start
	if o.Period > 0 {
		w.stop, w.done = make(chan struct{}), make(chan struct{})
		go w.loop()
	}
	return w, nil
}

func (w *Watch) loop() {
	defer close(w.done)
	t := time.NewTicker(w.o.Period)
	defer t.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
			w.Sample()
		}
	}
}

// Follow counts process pid and its descendants as the run's own from now
// on (the benchmark, once started). A nil Watch (no procfs) ignores it.
func (w *Watch) Follow(pid int) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.follow = append(w.follow, pid)
}

// Sample reads every watched thread's CPU time and counts what it used
// since it was last read on the CPU it is on now.
func (w *Watch) Sample() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	self := map[int]taskTime{}
	tasks(w.o.Root, w.o.PID, self)
	kid := map[int]taskTime{}
	queue := append([]int(nil), w.follow...)
	visited := map[int]bool{}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if visited[pid] || len(visited) > 4096 {
			continue
		}
		visited[pid] = true
		tasks(w.o.Root, pid, kid)
		queue = append(queue, children(w.o.Root, pid)...)
	}
	at := w.o.now()
	// No thread runs longer than the time between two reads: a thread
	// first read now (new since the last read, or one a read missed) counts
	// at most that.
	most := at.Sub(w.lastAt).Seconds() + 1.0/userHZ
	w.count(self, w.own, most)
	w.count(kid, w.kids, most)
	if w.o.PID == os.Getpid() {
		// Threads of this process that ended since the last read: what
		// they ran since (all of it, for one never read), on their CPU.
		var ended []ThreadExit
		ended, w.exitN = exitsSince(w.exitN)
		for _, e := range ended {
			d := math.Min(e.Secs, most)
			if prev, ok := w.last[e.TID]; ok && prev.secs <= e.Secs {
				d = e.Secs - prev.secs
			}
			w.last[e.TID] = taskTime{cpu: e.CPU, secs: e.Secs}
			if d > 0 {
				w.own[e.CPU] += d
			}
		}
	}
	w.lastAt = at
}

// count adds each thread's CPU time since it was last read (all of it for
// a thread not read before, or whose ID was reused), at most most seconds,
// to the CPU it is on.
func (w *Watch) count(now map[int]taskTime, into map[int]float64, most float64) {
	for tid, t := range now {
		d := t.secs
		if prev, ok := w.last[tid]; ok && prev.secs <= t.secs {
			d = t.secs - prev.secs
		}
		w.last[tid] = t
		if d = math.Min(d, most); d > 0 {
			into[t.cpu] += d
		}
	}
}

// Stop ends the watch and returns what else ran during the run. kidSecs is
// the followed processes' whole CPU time when known (their rusage, from
// wait), else negative: the time they used between the last sample and
// their exit is then not counted as theirs. Per CPU, the others' time is
// the kernel's busy time less the run's own, never below zero.
func (w *Watch) Stop(kidSecs float64) measure.Interference {
	w.Sample()
	end := w.o.now()
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	if w.stop != nil {
		close(w.stop)
		<-w.done
	}
	wall := end.Sub(w.start).Seconds()
	in := measure.Interference{WallS: wall, Used: slices.Clone(w.o.Used)}
	stat1, err := readStat(w.o.Root)
	if err != nil || wall <= 0 {
		return in
	}
	busy := map[int]float64{}
	for c, b := range stat1 {
		busy[c] = b.busy - w.stat0[c].busy
	}
	if self1, err := processSecs(w.o.Root, w.o.PID); err == nil {
		w.topUp(w.own, self1-w.self0, busy)
	}
	if kidSecs >= 0 {
		w.topUp(w.kids, kidSecs, busy)
	}
	if p1, ok := readPressure(w.o.Root); ok && w.psiOK {
		pct := math.Max(0, 100*(p1-w.psi0)/wall)
		in.PressurePct = &pct
	}
	cpus := make([]int, 0, len(stat1))
	for c := range stat1 {
		cpus = append(cpus, c)
	}
	slices.Sort(cpus)
	for _, c := range cpus {
		a, b := w.stat0[c], stat1[c]
		own := w.own[c] + w.kids[c]
		other := math.Max(0, b.busy-a.busy-own)
		in.CPUs = append(in.CPUs, measure.CPULoad{CPU: c, OwnPct: pct(own, wall), OtherPct: pct(other, wall),
			StealPct: pct(math.Max(0, b.steal-a.steal), wall)})
	}
	return in
}

// topUp adds to per what total holds beyond what the samples counted: the
// time of threads that exited between two samples (a pool's workers end
// with the run), or ran between them. A run pinned to CPUs (Options.Used)
// ran it there: it goes to those CPUs in proportion to the busy time the
// samples leave unexplained on each (busy less what they counted), so
// that a CPU whose busy time the samples explain gets none. Else it goes
// to the CPUs in proportion to what the samples counted on each.
func (w *Watch) topUp(per map[int]float64, total float64, busy map[int]float64) {
	sampled := 0.0
	for _, v := range per {
		sampled += v
	}
	rest := total - sampled
	if rest <= 0 {
		return
	}
	weight := map[int]float64{}
	sum := 0.0
	if used := w.o.Used; len(used) > 0 {
		for _, c := range used {
			weight[c] = math.Max(0, busy[c]-w.own[c]-w.kids[c])
			sum += weight[c]
		}
		if sum == 0 {
			for _, c := range used {
				weight[c] = 1
			}
			sum = float64(len(used))
		}
	} else {
		for c, v := range per {
			weight[c] = v
		}
		sum = sampled
	}
	if sum <= 0 {
		return
	}
	for c, v := range weight {
		per[c] += rest * v / sum
	}
}

func pct(secs, wall float64) float64 { return math.Round(1000*secs/wall) / 10 }
