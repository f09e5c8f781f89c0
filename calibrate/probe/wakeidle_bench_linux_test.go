package probe

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// wakeIdles are the idles BenchmarkFutexWakeByIdle wakes a sleeping
// thread after: at once, and after 100 µs, 1 ms and 10 ms (calibrate's
// futex_wake_idle step).
var wakeIdles = []time.Duration{0, 100 * time.Microsecond, time.Millisecond, 10 * time.Millisecond}

// BenchmarkFutexWakeByIdle measures the futex wake from the second
// allowed CPU to the first (calibrate's `--cluster big=1 --cluster
// little=0` pair on a 2-vCPU host: from big's CPU to little's) after each
// of wakeIdles, interleaved: each of b.N rounds takes one FutexWake call
// (calibrate's default settings) at every idle in turn, so the machine's
// drift falls on all of them alike. It prints each round's medians and
// reports, per idle, the median over the rounds and what that idle adds to
// the wake at once (the sleep exit it pays). Run alone, in a quiet window:
//
//	go test ./calibrate/probe -run '^$' -bench FutexWakeByIdle -benchtime 7x
func BenchmarkFutexWakeByIdle(b *testing.B) {
	cpus, err := AllowedCPUs()
	if err != nil {
		b.Fatal(err)
	}
	if len(cpus) < 2 {
		b.Skipf("need two cpus, have %v", cpus)
	}
	from, to := cpus[1], cpus[0]
	med := make([][]float64, len(wakeIdles))
	for r := 0; r < b.N; r++ {
		line := fmt.Sprintf("round %d:", r+1)
		for i, idle := range wakeIdles {
			st, err := FutexWake(from, to, idle, nil)
			if err != nil {
				b.Fatal(err)
			}
			med[i] = append(med[i], st.Median)
			line += fmt.Sprintf(" %v %.2f µs (CV %.0f%%, n %d);", idle, st.Median, 100*st.CV, st.N)
		}
		fmt.Println(line)
	}
	m := make([]float64, len(wakeIdles))
	for i := range wakeIdles {
		m[i] = median(med[i])
	}
	for i, idle := range wakeIdles {
		b.ReportMetric(m[i], fmt.Sprintf("wake-%v-µs", idle))
		if i > 0 {
			b.ReportMetric(m[i]-m[0], fmt.Sprintf("exit-%v-µs", idle))
		}
	}
}

// median is the median of xs (xs is not changed).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
