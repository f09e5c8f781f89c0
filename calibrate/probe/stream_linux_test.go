package probe

import (
	"strings"
	"testing"
	"time"
)

// streamBytes is big enough to leave the private caches, small enough to be
// quick; it need not leave a large shared cache for these checks.
func streamBytes() int64 {
	if testing.Short() {
		return 16 << 20
	}
	return 32 << 20
}

var streamQuick = &Settings{MinRuns: 5, MaxRuns: 15, Budget: 300 * time.Millisecond}

func TestStreamRead(t *testing.T) {
	cpus, _ := AllowedCPUs()
	// This machine's neighbours can stall a vCPU for a sample or many, so a
	// failed comparison is measured once more before it counts.
	for try := 1; ; try++ {
		one, err := StreamRead(cpus, 1, streamBytes(), streamQuick)
		if err != nil {
			t.Fatal(err)
		}
		inRange(t, "1 thread", one, 0.05, 1000)
		all, err := StreamRead(cpus, 0, streamBytes(), streamQuick)
		if err != nil {
			t.Fatal(err)
		}
		inRange(t, "all threads", all, 0.05, 1000)
		// More threads add bandwidth at best in proportion (while the data
		// sit in a shared cache) and do not collapse it. Against the best
		// single-thread sample, with a factor of two for noise.
		hi, lo := all.Median/one.Max, all.Max/one.Median
		if hi <= 2*float64(len(cpus)) && lo >= 0.25 {
			return
		}
		if try == 2 {
			t.Fatalf("%d threads read %.3g times the best one-thread sample, best %.3g times its median",
				len(cpus), hi, lo)
		}
	}
}

func TestStreamReadRejects(t *testing.T) {
	a, b := twoCPUs(t)
	for _, tc := range []struct {
		name    string
		threads int
		ws      int64
		want    string
	}{
		{"too many threads", 3, 1 << 20, "threads"},
		{"negative threads", -1, 1 << 20, "threads"},
		{"negative working set", 0, -1, "negative"},
		{"tiny working set", 0, 1 << 10, "4 KiB"},
	} {
		_, err := StreamRead([]int{a, b}, tc.threads, tc.ws, quick)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one about %q", tc.name, err, tc.want)
		}
	}
}

func TestStreamReadContendedBaseline(t *testing.T) {
	a, b := twoCPUs(t)
	c, err := streamReadContended([]int{a}, []int{b}, streamBytes()/2, streamQuick)
	if err != nil {
		t.Fatal(err)
	}
	inRange(t, "a under b", c.A, 0.05, 1000)
	inRange(t, "b under a", c.B, 0.05, 1000)
	if _, err := streamReadContended([]int{a}, []int{a}, 1<<20, quick); err == nil {
		t.Error("overlapping sets: no error")
	}
}

func TestStreamReadTogether(t *testing.T) {
	a, b := twoCPUs(t)
	st, err := StreamReadTogether([]int{a, b}, streamBytes(), streamQuick)
	if err != nil {
		t.Fatal(err)
	}
	inRange(t, "together", st, 0.05, 2000)
	for _, tc := range []struct {
		name string
		cpus []int
		ws   int64
		want string
	}{
		{"no cpus", nil, 1 << 20, "no cpus"},
		{"one cpu twice", []int{a, a}, 1 << 20, "cpu"},
		{"tiny working set", []int{a, b}, 1 << 10, "4 KiB"},
	} {
		_, err := StreamReadTogether(tc.cpus, tc.ws, quick)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one about %q", tc.name, err, tc.want)
		}
	}
}
