package probe

import (
	"fmt"
	"sync/atomic"
)

// spinBarrier is a centralised sense-reversing barrier: the last thread to
// arrive resets the count and flips the shared sense, which the others spin
// on.
type spinBarrier struct {
	n     int32
	count atomic.Int32
	_     [60]byte
	sense atomic.Uint32
	_     [60]byte
}

func newSpinBarrier(n int) *spinBarrier {
	b := &spinBarrier{n: int32(n)}
	b.count.Store(int32(n))
	return b
}

// wait blocks until all n threads have called it; local is the caller's
// own sense, starting at zero.
func (b *spinBarrier) wait(local *uint32) {
	*local ^= 1
	if b.count.Add(-1) == 0 {
		b.count.Store(b.n)
		b.sense.Store(*local)
		return
	}
	for b.sense.Load() != *local {
	}
}

// timeRounds meets b once to align, then times rounds more meetings, in
// nanoseconds; local is the caller's sense.
func (b *spinBarrier) timeRounds(local *uint32, rounds int) int64 {
	b.wait(local)
	t0 := now()
	for range rounds {
		b.wait(local)
	}
	return now() - t0
}

// Barrier measures the cost, in µs per round, of a sense-reversing spin
// barrier across one thread pinned to each of cpus: a sample times
// 32·Settings.Batch rounds after an aligning round.
func Barrier(cpus []int, s *Settings) (Stats, error) {
	const unit = "µs"
	if !haveLinux {
		return Stats{Unit: unit}, ErrNeedLinux
	}
	cfg, err := s.resolve()
	if err != nil {
		return Stats{Unit: unit}, err
	}
	p, err := NewPool(cpus, 0)
	if err != nil {
		return Stats{Unit: unit}, fmt.Errorf("probe: barrier: %w", err)
	}
	defer p.Close()
	b := newSpinBarrier(len(cpus))
	senses := make([]struct {
		v uint32
		_ [60]byte
	}, len(cpus))
	rounds := 32 * cfg.batch
	return repeat(cfg, unit, func() (float64, error) {
		var elapsed int64
		p.Run(func(w int) {
			if d := b.timeRounds(&senses[w].v, rounds); w == 0 {
				elapsed = d
			}
		})
		return float64(elapsed) / float64(rounds) / 1e3, nil
	})
}
