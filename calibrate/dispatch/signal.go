package dispatch

import (
	"github.com/blsim/blsim/calibrate/busy"
	"github.com/blsim/blsim/calibrate/probe"
)

// driver is a persistent goroutine that drives a second pool: Start hands it
// a function, Wait returns once it has run. One generation per op; no
// goroutine is created per op.
type driver struct {
	pool  *probe.Pool
	spins int
	start *probe.Word
	done  *probe.Word
	gen   uint32
	fn    func(*probe.Pool)
	stop  bool
	exit  chan struct{}
}

// newDriver starts the driver pinned to the pool's first CPU: it is the
// pool's worker 0 (see probe.NewCallerPool).
func newDriver(p *probe.Pool, spins int) (*driver, error) {
	d := &driver{pool: p, spins: spins, start: new(probe.Word), done: new(probe.Word), exit: make(chan struct{})}
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
	defer busy.Exiting() // a Watch counts the thread's time to its end
	pinned <- nil
	var gen uint32
	for {
		gen = d.start.Wait(gen, d.spins)
		if d.stop {
			d.done.Post(gen)
			return
		}
		d.fn(d.pool)
		d.done.Post(gen)
	}
}

// Start runs fn(pool) on the driver goroutine.
func (d *driver) Start(fn func(*probe.Pool)) {
	d.fn = fn
	d.gen++
	d.start.Post(d.gen)
}

// Wait returns once the function of the last Start has returned.
func (d *driver) Wait() {
	for v := d.done.Load(); v != d.gen; {
		v = d.done.Wait(v, d.spins)
	}
	d.fn = nil
}

// Close stops the goroutine and closes its pool.
func (d *driver) Close() {
	d.stop = true
	d.gen++
	d.start.Post(d.gen)
	<-d.exit
	d.pool.Close()
}
