package probe

import (
	"fmt"
	"time"
)

// asleepWait bounds how long FutexWake waits to see the target asleep
// before it wakes it anyway.
const asleepWait = 100 * time.Millisecond

// FutexWake measures the latency, in µs, from a thread on CPU from storing a
// word and calling futex wake to a thread on CPU to, asleep in futex wait on
// that word, running again. Before each wake the waker waits until the
// target shows as asleep in /proc (or 100ms pass) and then busy-waits a
// further sleepFirst, so the target's CPU may have gone idle; sleepFirst 0
// wakes it at once. A sample averages Settings.Batch wakes (fewer when
// sleepFirst is long, to keep a sample near 20ms). Times include the Go
// runtime's return from the system call.
func FutexWake(from, to int, sleepFirst time.Duration, s *Settings) (Stats, error) {
	const unit = "µs"
	cfg, err := s.resolve()
	if err != nil {
		return Stats{Unit: unit}, err
	}
	if sleepFirst < 0 {
		return Stats{Unit: unit}, fmt.Errorf("probe: futex wake: sleepFirst %v must not be negative", sleepFirst)
	}
	p, err := pair("futex wake", from, to)
	if err != nil {
		return Stats{Unit: unit}, err
	}
	defer p.Close()
	n := cfg.batch
	if sleepFirst > 0 {
		n = max(1, min(n, int(20*time.Millisecond/sleepFirst)))
	}
	tid := p.tids[1]
	before := func() {
		deadline := now() + int64(asleepWait)
		for now() < deadline {
			if asleep, err := threadAsleep(tid); err != nil || asleep {
				break
			}
		}
		spinFor(sleepFirst)
	}
	var h handoff
	return repeat(cfg, unit, func() (float64, error) {
		return h.run(p, n, 0, before), nil
	})
}
