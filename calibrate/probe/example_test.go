package probe_test

import (
	"fmt"
	"time"

	"github.com/blsim/blsim/calibrate/probe"
)

func ExampleSummarize() {
	st := probe.Summarize("µs", []float64{21.5, 22.0, 21.8, 35.0, 21.9})
	fmt.Printf("median %.1f %s, MAD %.1f, IQR %.1f, N %d\n", st.Median, st.Unit, st.MAD, st.IQR, st.N)
	// Output: median 21.9 µs, MAD 0.1, IQR 0.2, N 5
}

// Streaming read bandwidth of one CPU alone, then of two streaming at once.
func ExampleStreamReadTogether() {
	s := &probe.Settings{MinRuns: 3, Budget: 200 * time.Millisecond}
	alone, err := probe.StreamRead([]int{0}, 1, 0, s) // 0: four times the LLC, at most 1 GiB
	if err != nil {
		fmt.Println(err)
		return
	}
	both, err := probe.StreamReadTogether([]int{0, 1}, 0, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("cpu 0 alone %.1f GB/s, cpus 0 and 1 together %.1f GB/s\n", alone.Median, both.Median)
}
