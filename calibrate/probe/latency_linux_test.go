package probe

import (
	"strings"
	"testing"
	"time"
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
	polls, err := SpinHandoffVsPoll(a, b, []int{0, 1000}, quick)
	if err != nil {
		t.Fatal(err)
	}
	if len(polls) != 2 {
		t.Fatalf("got %d results for 2 polls", len(polls))
	}
	inRange(t, "handoff at poll 0", polls[0], 0, 10_000)
	inRange(t, "handoff at poll 1000", polls[1], 0, 10_000)
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
	if _, err := SpinHandoffVsPoll(a, b, []int{-1}, quick); err == nil {
		t.Error("negative poll: no error")
	}
}

func TestThreadSpawn(t *testing.T) {
	a, _ := twoCPUs(t)
	st, err := ThreadSpawn(a, quick)
	if err != nil {
		t.Fatal(err)
	}
	inRange(t, "spawn", st, 0, 100_000)
	st, err = ThreadSpawnOS(a, quick)
	if err != nil {
		t.Fatal(err)
	}
	inRange(t, "spawn on a new OS thread", st, 0, 100_000)
}

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
