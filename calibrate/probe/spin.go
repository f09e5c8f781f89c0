package probe

import (
	"fmt"
	"sync/atomic"
)

// SpinHandoff measures the one-way latency, in µs, of handing a word back
// and forth between a thread spinning on CPU from and one spinning on CPU
// to: a sample times 32·Settings.Batch round trips and halves the mean.
func SpinHandoff(from, to int, s *Settings) (Stats, error) {
	const unit = "µs"
	cfg, err := s.resolve()
	if err != nil {
		return Stats{Unit: unit}, err
	}
	p, err := pair("spin handoff", from, to)
	if err != nil {
		return Stats{Unit: unit}, err
	}
	defer p.Close()
	rounds := uint32(32 * cfg.batch)
	var flag struct {
		_ [64]byte
		v atomic.Uint32
		_ [60]byte
	}
	var seq uint32
	return repeat(cfg, unit, func() (float64, error) {
		base := seq
		seq += 2*rounds + 1
		var elapsed int64
		p.Run(func(w int) {
			if w == 1 {
				flag.v.Store(base + 1) // here
				for i := uint32(1); i <= rounds; i++ {
					for flag.v.Load() != base+2*i {
					}
					flag.v.Store(base + 2*i + 1)
				}
				return
			}
			for flag.v.Load() != base+1 { // wait until the partner is here
			}
			t0 := now()
			for i := uint32(1); i <= rounds; i++ {
				flag.v.Store(base + 2*i)
				for flag.v.Load() != base+2*i+1 {
				}
			}
			elapsed = now() - t0
		})
		return float64(elapsed) / float64(2*rounds) / 1e3, nil
	})
}

// SpinHandoffVsPoll measures, for each poll level, the one-way handoff
// latency in µs to a waiter on CPU to that spins poll·PollUnit checks and
// then sleeps in the futex, as a ggml thread-pool worker does, from a poster
// on CPU from that posts Settings.Gap (default 50µs) after the waiter began
// waiting. Levels whose spin outlasts the gap see spin latency; shorter ones
// see futex wake latency. The result has one Stats per level, in order.
func SpinHandoffVsPoll(from, to int, polls []int, s *Settings) ([]Stats, error) {
	const unit = "µs"
	cfg, err := s.resolve()
	if err != nil {
		return nil, err
	}
	for _, poll := range polls {
		if poll < 0 {
			return nil, fmt.Errorf("probe: spin handoff: poll %d must not be negative", poll)
		}
	}
	p, err := pair("spin handoff", from, to)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	before := func() { spinFor(cfg.gap) }
	var h handoff
	out := make([]Stats, 0, len(polls))
	for _, poll := range polls {
		st, err := repeat(cfg, unit, func() (float64, error) {
			return h.run(p, cfg.batch, poll*PollUnit, before), nil
		})
		if err != nil {
			return out, fmt.Errorf("probe: spin handoff at poll %d: %w", poll, err)
		}
		out = append(out, st)
	}
	return out, nil
}

// SpinUnit measures how long, in µs, a waiter on cpu takes to check an
// unchanging word PollUnit times: the time one poll level adds to a spin
// before the futex sleep. A sample times 32·Settings.Batch units.
func SpinUnit(cpu int, s *Settings) (Stats, error) {
	const unit = "µs"
	if !haveLinux {
		return Stats{Unit: unit}, ErrNeedLinux
	}
	cfg, err := s.resolve()
	if err != nil {
		return Stats{Unit: unit}, err
	}
	p, err := NewPool([]int{cpu}, 0)
	if err != nil {
		return Stats{Unit: unit}, fmt.Errorf("probe: spin unit: %w", err)
	}
	defer p.Close()
	units := 32 * cfg.batch
	var w waitWord
	return repeat(cfg, unit, func() (float64, error) {
		var elapsed int64
		p.Run(func(int) {
			t0 := now()
			w.spin(0, units*PollUnit) // nobody stores: it spins to the end
			elapsed = now() - t0
		})
		return float64(elapsed) / float64(units) / 1e3, nil
	})
}
