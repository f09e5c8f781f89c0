package probe

import "time"

// epoch anchors now; time.Since reads the monotonic clock, which the kernel
// keeps consistent across CPUs.
var epoch = time.Now()

// now returns monotonic nanoseconds since epoch.
func now() int64 { return int64(time.Since(epoch)) }

// spinFor busy-waits for d without giving up the CPU.
func spinFor(d time.Duration) {
	if d <= 0 {
		return
	}
	end := now() + int64(d)
	for now() < end {
	}
}
