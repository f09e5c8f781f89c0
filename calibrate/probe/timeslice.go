package probe

import (
	"errors"
	"fmt"
	"github.com/blsim/blsim/calibrate/busy"
	"sync"
)

// Timeslice measures, in µs per round, a spin barrier of one thread more
// than cpus has, every thread allowed on all of cpus: the wait of a thread
// pool that outnumbers its cores at each barrier, for a thread that is
// runnable but not running. The spinning threads never yield, so the
// barrier completes only when the scheduler preempts one of them: the
// time slice as ggml's pool meets it (model.Handoff.TimesliceUS). A
// sample times Settings.Batch rounds after an aligning round; with the
// default 32 and a 4 ms slice, about 0.13 s.
func Timeslice(cpus []int, s *Settings) (Stats, error) {
	const unit = "µs"
	if !haveLinux {
		return Stats{Unit: unit}, ErrNeedLinux
	}
	if len(cpus) == 0 {
		return Stats{Unit: unit}, errors.New("probe: timeslice needs at least one cpu")
	}
	for _, c := range cpus {
		if err := checkCPU(c); err != nil {
			return Stats{Unit: unit}, err
		}
	}
	cfg, err := s.resolve()
	if err != nil {
		return Stats{Unit: unit}, err
	}
	n := len(cpus) + 1
	ensureProcs(n + 1)
	rounds := cfg.batch
	return repeat(cfg, unit, func() (float64, error) {
		b := newSpinBarrier(n)
		senses := make([]struct {
			v uint32
			_ [60]byte
		}, n)
		var (
			pinned, done sync.WaitGroup
			elapsed      int64
			errs         = make([]error, n)
			start        = make(chan bool)
		)
		for w := range n {
			pinned.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				// The goroutine exits locked: the runtime discards its
				// thread, and with it the affinity.
				errs[w] = pinSet(cpus)
				if errs[w] == nil {
					defer busy.Exiting()
				}
				pinned.Done()
				if !<-start {
					return
				}
				if d := b.timeRounds(&senses[w].v, rounds); w == 0 {
					elapsed = d
				}
			}()
		}
		pinned.Wait()
		err := errors.Join(errs...)
		for range n {
			start <- err == nil
		}
		done.Wait()
		if err != nil {
			return 0, fmt.Errorf("probe: timeslice: %w", err)
		}
		return float64(elapsed) / float64(rounds) / 1e3, nil
	})
}
