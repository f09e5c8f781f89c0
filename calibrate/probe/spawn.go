package probe

import (
	"fmt"
	"github.com/blsim/blsim/calibrate/busy"
	"sync/atomic"
)

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
// locks its OS thread, pins it to cpu and signals back to the spawning
// goroutine, which spins. The Go runtime may run it on an existing idle
// thread; see ThreadSpawnOS for a new one each time. A sample averages
// Settings.Batch spawns.
func ThreadSpawn(cpu int, s *Settings) (Stats, error) {
	return spawnStats(cpu, false, s)
}

// ThreadSpawnOS is ThreadSpawn with a new OS thread each time: every
// spawned goroutine exits still locked, so the runtime ends its thread,
// and the next spawn finds no idle thread and creates one (clone).
func ThreadSpawnOS(cpu int, s *Settings) (Stats, error) {
	return spawnStats(cpu, true, s)
}

func spawnStats(cpu int, newThread bool, s *Settings) (Stats, error) {
	const unit = "µs"
	if !haveLinux {
		return Stats{Unit: unit}, ErrNeedLinux
	}
	cfg, err := s.resolve()
	if err != nil {
		return Stats{Unit: unit}, err
	}
	if err := checkCPU(cpu); err != nil {
		return Stats{Unit: unit}, err
	}
	ensureProcs(2) // the spawner spins while the spawned goroutine runs
	return repeat(cfg, unit, func() (float64, error) {
		var total int64
		for range cfg.batch {
			r, err := spawnOnce(cpu, newThread)
			if err != nil {
				return 0, fmt.Errorf("probe: thread spawn on cpu %d: %w", cpu, err)
			}
			total += r.ns
		}
		return float64(total) / float64(cfg.batch) / 1e3, nil
	})
}
