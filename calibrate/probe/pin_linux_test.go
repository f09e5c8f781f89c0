package probe

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestPinRestrictsThread(t *testing.T) {
	cpus, err := AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	for _, cpu := range cpus {
		onFreshThread(func() {
			if err := Pin(cpu); err != nil {
				t.Errorf("Pin(%d): %v", cpu, err)
				return
			}
			if got, err := threadCPUs(); err != nil || !slices.Equal(got, []int{cpu}) {
				t.Errorf("after Pin(%d) the thread may run on %v (%v)", cpu, got, err)
			}
			if got, err := CurrentCPU(); err != nil || got != cpu {
				t.Errorf("after Pin(%d) getcpu says %d (%v)", cpu, got, err)
			}
		})
	}
}

func TestUnpinRestores(t *testing.T) {
	cpus, _ := AllowedCPUs()
	onFreshThread(func() {
		if err := Pin(cpus[len(cpus)-1]); err != nil {
			t.Error(err)
			return
		}
		if err := Unpin(); err != nil {
			t.Error(err)
			return
		}
		if got, err := threadCPUs(); err != nil || !slices.Equal(got, cpus) {
			t.Errorf("after Unpin the thread may run on %v (%v), want %v", got, err, cpus)
		}
	})
}

func TestInvalidCPU(t *testing.T) {
	a, b := twoCPUs(t)
	var cpuErr *CPUError
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"Pin", func() error { return Pin(9999) }},
		{"NewPool", func() error { _, err := NewPool([]int{a, 9999}, 0); return err }},
		{"StreamRead", func() error { _, err := StreamRead([]int{9999}, 0, 1<<20, quick); return err }},
		{"KernelThroughput", func() error { _, err := KernelThroughput([]int{9999}, 0, KernelF32, quick); return err }},
		{"FutexWake", func() error { _, err := FutexWake(a, 9999, 0, quick); return err }},
		{"SpinHandoff", func() error { _, err := SpinHandoff(9999, b, quick); return err }},
		{"Barrier", func() error { _, err := Barrier([]int{a, 9999}, quick); return err }},
		{"negative", func() error { return Pin(-1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if !errors.As(err, &cpuErr) {
				t.Fatalf("err = %v, want a *CPUError", err)
			}
			if !strings.Contains(err.Error(), "cpu 9999") && !strings.Contains(err.Error(), "cpu -1") {
				t.Errorf("err = %q does not name the cpu", err)
			}
		})
	}
}

func TestPoolRunsOnItsCPUs(t *testing.T) {
	cpus, _ := AllowedCPUs()
	for _, poll := range []int{0, 1} {
		p, err := NewPool(cpus, poll)
		if err != nil {
			t.Fatal(err)
		}
		got := make([][]int, len(cpus))
		on := make([]int, len(cpus))
		for range 50 { // many small runs exercise the wait and wake paths
			p.Run(func(w int) {
				got[w], _ = threadCPUs()
				on[w], _ = CurrentCPU()
			})
			for w, cpu := range cpus {
				if !slices.Equal(got[w], []int{cpu}) || on[w] != cpu {
					t.Fatalf("poll %d: worker %d ran on cpu %d with affinity %v, want cpu %d", poll, w, on[w], got[w], cpu)
				}
			}
		}
		if p.Size() != len(cpus) || !slices.Equal(p.CPUs(), cpus) {
			t.Errorf("pool reports %d workers on %v", p.Size(), p.CPUs())
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	}
}

func TestPoolRejects(t *testing.T) {
	a, _ := twoCPUs(t)
	for _, tc := range []struct {
		name string
		cpus []int
		poll int
		want string
	}{
		{"empty", nil, 0, "at least one"},
		{"twice", []int{a, a}, 0, "twice"},
		{"negative poll", []int{a}, -1, "poll"},
	} {
		if _, err := NewPool(tc.cpus, tc.poll); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one about %q", tc.name, err, tc.want)
		}
	}
}

func TestFutexWakeReleasesSleeper(t *testing.T) {
	a, b := twoCPUs(t)
	var w waitWord
	tid := make(chan int, 1)
	released := make(chan uint32, 1)
	go func() {
		if err := Pin(b); err != nil {
			t.Error(err)
			tid <- 0
			return
		}
		tid <- gettid()
		released <- w.wait(0, 0) // straight into the futex
	}()
	id := <-tid
	if id == 0 {
		return
	}
	asleep := false
	for range 2000 {
		if asleep, _ = threadAsleep(id); asleep {
			break
		}
		spinFor(50_000)
	}
	if !asleep {
		t.Fatal("waiter never went to sleep")
	}
	select {
	case <-released:
		t.Fatal("waiter left the futex before the wake")
	default:
	}
	onFreshThread(func() {
		if err := Pin(a); err != nil {
			t.Error(err)
		}
		w.store(7)
	})
	select {
	case v := <-released:
		if v != 7 {
			t.Errorf("waiter saw %d, want 7", v)
		}
	case <-timeAfter(5):
		t.Fatal("waiter still asleep 5s after the wake")
	}
}
