package dispatch

import (
	"sync/atomic"

	"github.com/blsim/blsim/calibrate/probe"
)

// signal is a word one goroutine waits on: it checks the word spins times
// and then blocks on a channel, and a poster wakes it only when it sleeps
// (the protocol of probe's futex waits, with a channel for the futex).
type signal struct {
	word     atomic.Uint32
	sleepers atomic.Int32
	_        [56]byte
	ch       chan struct{}
}

func newSignal() *signal { return &signal{ch: make(chan struct{}, 1)} }

// post stores v and wakes the waiter if it sleeps.
func (s *signal) post(v uint32) {
	s.word.Store(v)
	if s.sleepers.Load() > 0 {
		select {
		case s.ch <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
}

// wait returns the word once it differs from old.
func (s *signal) wait(old uint32, spins int) uint32 {
	for range spins {
		if v := s.word.Load(); v != old {
			return v
		}
	}
	// Announce the sleeper before the last check: a poster stores the word
	// before it reads sleepers, so either it sees the sleeper or this check
	// sees its store. A stale token in ch only causes a spurious re-check.
	s.sleepers.Add(1)
	for {
		if v := s.word.Load(); v != old {
			s.sleepers.Add(-1)
			return v
		}
		<-s.ch
	}
}

// driver is a persistent goroutine that drives a second pool: Start hands it
// a function, Wait returns once it has run. One generation per op; no
// goroutine is created per op.
type driver struct {
	pool  *probe.Pool
	spins int
	start *signal
	done  *signal
	gen   uint32
	fn    func(*probe.Pool)
	stop  bool
	exit  chan struct{}
}

// newDriver starts the driver pinned to the pool's first CPU: it is the
// pool's worker 0 (see probe.NewCallerPool).
func newDriver(p *probe.Pool, spins int) (*driver, error) {
	d := &driver{pool: p, spins: spins, start: newSignal(), done: newSignal(), exit: make(chan struct{})}
	pinned := make(chan error, 1)
	go d.loop(pinned)
	if err := <-pinned; err != nil {
		<-d.exit
		return nil, err
	}
	return d, nil
}

// loop returns still locked to its thread, so the runtime discards the
// pinned thread instead of reusing it.
func (d *driver) loop(pinned chan<- error) {
	defer close(d.exit)
	if err := probe.Pin(d.pool.CPUs()[0]); err != nil {
		pinned <- err
		return
	}
	pinned <- nil
	var gen uint32
	for {
		gen = d.start.wait(gen, d.spins)
		if d.stop {
			d.done.post(gen)
			return
		}
		d.fn(d.pool)
		d.done.post(gen)
	}
}

// Start runs fn(pool) on the driver goroutine.
func (d *driver) Start(fn func(*probe.Pool)) {
	d.fn = fn
	d.gen++
	d.start.post(d.gen)
}

// Wait returns once the function of the last Start has returned.
func (d *driver) Wait() {
	for v := d.done.word.Load(); v != d.gen; {
		v = d.done.wait(v, d.spins)
	}
	d.fn = nil
}

// Close stops the goroutine and closes its pool.
func (d *driver) Close() {
	d.stop = true
	d.gen++
	d.start.post(d.gen)
	<-d.exit
	d.pool.Close()
}
