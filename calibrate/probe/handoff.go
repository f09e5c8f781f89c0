package probe

import (
	"fmt"
	"sync/atomic"
)

// handoff is the state shared by a poster on worker 0 and a waiter on
// worker 1 of a two-CPU pool.
type handoff struct {
	word  waitWord // the waiter waits for this to reach the handoff's number
	ready atomic.Uint32
	_     [60]byte
	ack   atomic.Uint32
	_     [60]byte
	t1    atomic.Int64
	seq   uint32 // last handoff number used; touched only between Runs
	start *spinBarrier
	sense [2]struct {
		v uint32
		_ [60]byte
	}
}

// run does n handoffs and returns their mean one-way latency in µs, from
// just before the poster stores the word to just after the waiter sees it.
// The waiter spins spins checks before sleeping in the futex; before each
// post the poster calls before(), which returns once the waiter should be
// woken.
func (h *handoff) run(p *Pool, n, spins int, before func()) float64 {
	base := h.seq
	h.seq += uint32(n)
	if h.start == nil {
		h.start = newSpinBarrier(2)
	}
	var total int64
	p.Run(func(w int) {
		// Meet first, so that the first handoff does not wait for the
		// pool's own wake-up of the other worker.
		h.start.wait(&h.sense[w].v)
		for i := base + 1; i <= base+uint32(n); i++ {
			if w == 1 { // waiter
				h.ready.Store(i)
				h.word.wait(i-1, spins)
				h.t1.Store(now())
				h.ack.Store(i)
				continue
			}
			for h.ready.Load() != i {
			}
			before()
			t0 := now()
			h.word.store(i)
			for h.ack.Load() != i {
			}
			total += h.t1.Load() - t0
		}
	})
	return float64(total) / float64(n) / 1e3
}

// pair starts a pool with the poster on from and the waiter on to.
func pair(what string, from, to int) (*Pool, error) {
	if !haveLinux {
		return nil, ErrNeedLinux
	}
	if from == to {
		return nil, fmt.Errorf("probe: %s from cpu %d to itself: the cpus must differ", what, from)
	}
	p, err := NewPool([]int{from, to}, 0)
	if err != nil {
		return nil, fmt.Errorf("probe: %s from cpu %d to cpu %d: %w", what, from, to, err)
	}
	return p, nil
}
