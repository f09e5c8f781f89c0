package probe

import (
	"math"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// quick keeps measurements short: these tests check that the probes work,
// not what the machine does.
var quick = &Settings{MinRuns: 3, MaxRuns: 15, Budget: 100 * time.Millisecond, Batch: 8}

// twoCPUs returns two CPUs the process may use, or skips.
func twoCPUs(t *testing.T) (int, int) {
	t.Helper()
	cpus, err := AllowedCPUs()
	if err != nil {
		t.Fatal(err)
	}
	if len(cpus) < 2 {
		t.Skipf("need two cpus, have %v", cpus)
	}
	return cpus[0], cpus[1]
}

// inRange fails unless the median is finite and within (lo, hi].
func inRange(t *testing.T, what string, st Stats, lo, hi float64) {
	t.Helper()
	if st.N == 0 || math.IsNaN(st.Median) || math.IsInf(st.Median, 0) || st.Median <= lo || st.Median > hi {
		t.Errorf("%s = %v, want a median in (%g, %g] %s", what, st, lo, hi, st.Unit)
	}
	t.Logf("%s: %v", what, st)
}

// onFreshThread runs f on a new goroutine that exits locked, so any pinning f
// does dies with the thread.
func onFreshThread(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

func timeAfter(seconds int) <-chan time.Time { return time.After(time.Duration(seconds) * time.Second) }

// threadCPUs returns the CPUs the calling thread may run on: a check of
// Pin, on a goroutine locked to its thread.
func threadCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, err
	}
	return cpuList(&set), nil
}
