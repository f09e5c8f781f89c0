package probe

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blsim/blsim/calibrate/busy"
)

func TestLatencies(t *testing.T) {
	a, b := twoCPUs(t)
	fw, err := FutexWake(a, b, 0, quick)
	if err != nil {
		t.Fatal(err)
	}
	inRange(t, "futex wake", fw, 0, 10_000)
	idle, err := FutexWake(a, b, time.Millisecond, quick)
	if err != nil {
		t.Fatal(err)
	}
	inRange(t, "futex wake after 1ms idle", idle, 0, 10_000)
	sh, err := SpinHandoff(a, b, quick)
	if err != nil {
		t.Fatal(err)
	}
	inRange(t, "spin handoff", sh, 0, 1000)
	br, err := Barrier([]int{a, b}, quick)
	if err != nil {
		t.Fatal(err)
	}
	inRange(t, "barrier", br, 0, 1000)
	for _, f := range []func(int, int, *Settings) (Stats, error){
		func(x, y int, s *Settings) (Stats, error) { return FutexWake(x, y, 0, s) },
		SpinHandoff,
	} {
		if _, err := f(a, a, quick); err == nil || !strings.Contains(err.Error(), "differ") {
			t.Errorf("same cpu: err = %v", err)
		}
	}
}

// TestSpawnOSMakesNewThreads: a goroutine that exits locked to its
// thread takes the thread with it (what Pool's closing relies on).
func TestSpawnOSMakesNewThreads(t *testing.T) {
	a, _ := twoCPUs(t)
	seen := map[int]bool{}
	for i := range 20 {
		r, err := spawnOnce(a, true)
		if err != nil {
			t.Fatal(err)
		}
		if seen[r.tid] {
			t.Fatalf("spawn %d ran on thread %d again", i, r.tid)
		}
		seen[r.tid] = true
	}
}

func TestSpinUnit(t *testing.T) {
	a, _ := twoCPUs(t)
	st, err := SpinUnit(a, quick)
	if err != nil {
		t.Fatal(err)
	}
	inRange(t, "spin unit", st, 0, 1000)
}

// TestTimeslice: a spin barrier of one thread more than its CPUs waits a
// scheduler time slice a round, milliseconds, where the same barrier with
// a thread a CPU takes microseconds.
func TestTimeslice(t *testing.T) {
	a, _ := twoCPUs(t)
	st, err := Timeslice([]int{a}, &Settings{MinRuns: 2, MaxRuns: 3, Batch: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("two threads on CPU %d: %.0f µs a round", a, st.Median)
	inRange(t, "timeslice", st, 10, 1_000_000)
	if _, err := Timeslice(nil, quick); err == nil {
		t.Error("no error for no CPUs")
	}
}

// spawnResult is what one spawn reports.
type spawnResult struct {
	ns  int64 // from the go statement to seeing the signal
	tid int   // the spawned goroutine's thread
}

// spawnOnce starts a goroutine that locks its thread, pins it to cpu and
// signals back, and returns once that goroutine is done. With newThread the
// goroutine exits still locked, so the runtime discards its thread and a
// later spawn needs a new one; otherwise it unpins and unlocks, leaving the
// thread for reuse.
func spawnOnce(cpu int, newThread bool) (spawnResult, error) {
	var ready, done atomic.Bool
	var pinErr error
	var tid int
	t0 := now()
	go func() {
		defer done.Store(true)
		if pinErr = Pin(cpu); pinErr != nil {
			ready.Store(true)
			return
		}
		tid = gettid()
		ready.Store(true)
		if !newThread {
			pinErr = Unpin()
		} else {
			busy.Exiting()
		}
	}()
	for !ready.Load() {
	}
	t1 := now()
	for !done.Load() {
	}
	if pinErr != nil {
		return spawnResult{}, pinErr
	}
	return spawnResult{ns: t1 - t0, tid: tid}, nil
}

// ThreadSpawn measures, in µs, how long it takes to start a goroutine that
