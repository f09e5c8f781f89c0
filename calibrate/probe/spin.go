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
