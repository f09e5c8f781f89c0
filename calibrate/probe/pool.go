package probe

import (
	"errors"
	"fmt"
	"github.com/blsim/blsim/calibrate/busy"
	"sync"
	"sync/atomic"
)

// Pool is a set of persistent goroutines, each locked to its own OS thread
// and pinned to one CPU, that run work handed to them by Run. Idle workers
// wait for work by checking a word poll·PollUnit times and then sleeping in
// the futex; Run waits for them to finish the same way, so with poll > 0 the
// calling goroutine should not itself be pinned to one of the pool's CPUs. A
// Pool must not be used by more than one goroutine at a time.
type Pool struct {
	cpus  []int
	tids  []int
	poll  int
	spins int
	// caller: worker 0 is the goroutine that calls Run, pinned to cpus[0]
	// by its own Pin; goroutines serve cpus[1:], and goroutine i runs
	// fn(i+base) (base 1 in a caller pool, else 0).
	caller bool
	base   int

	work waitWord // generation counter the workers wait on
	done waitWord // workers finished in this generation
	fn   func(worker int)
	stop bool   // read by workers after they see a new generation
	live uint32 // workers that pinned and wait for work

	exited sync.WaitGroup
	closed bool
}

// NewPool starts one worker per CPU in cpus, worker i pinned to cpus[i], and
// waits until all are pinned. The CPUs must be distinct and usable by the
// process; poll must not be negative. NewPool raises GOMAXPROCS to at least
// len(cpus)+1.
func NewPool(cpus []int, poll int) (*Pool, error) {
	if !haveLinux {
		return nil, ErrNeedLinux
	}
	if len(cpus) == 0 {
		return nil, errors.New("probe: pool needs at least one cpu")
	}
	if poll < 0 {
		return nil, fmt.Errorf("probe: poll %d must not be negative", poll)
	}
	seen := map[int]bool{}
	for _, c := range cpus {
		if seen[c] {
			return nil, fmt.Errorf("probe: cpu %d listed twice in %v", c, cpus)
		}
		seen[c] = true
		if err := checkCPU(c); err != nil {
			return nil, err
		}
	}
	ensureProcs(len(cpus) + 1)
	p := &Pool{
		cpus:  append([]int(nil), cpus...),
		tids:  make([]int, len(cpus)),
		poll:  poll,
		spins: poll * PollUnit,
	}
	errs := make(chan error, len(cpus))
	for i, c := range p.cpus {
		p.exited.Add(1)
		go p.worker(i, c, errs)
	}
	var failed []error
	for range cpus {
		if err := <-errs; err != nil {
			failed = append(failed, err)
		} else {
			p.live++
		}
	}
	if failed != nil {
		p.Close()
		return nil, fmt.Errorf("probe: start pool on cpus %v: %w", cpus, errors.Join(failed...))
	}
	return p, nil
}

// NewCallerPool is like NewPool, except that worker 0 is the goroutine that
// calls Run: it must have pinned itself to cpus[0] (Pin) before calling Run.
// So a pool of n CPUs runs n threads in all, as ggml's does (its main thread
// is worker 0), and waiting for the other workers happens on worker 0's own
// CPU instead of on a thread competing with the workers.
func NewCallerPool(cpus []int, poll int) (*Pool, error) {
	if !haveLinux {
		return nil, ErrNeedLinux
	}
	if len(cpus) == 0 {
		return nil, errors.New("probe: pool needs at least one cpu")
	}
	if err := checkCPU(cpus[0]); err != nil {
		return nil, err
	}
	var p *Pool
	if len(cpus) > 1 {
		var err error
		if p, err = NewPool(cpus[1:], poll); err != nil {
			return nil, err
		}
	} else {
		if poll < 0 {
			return nil, fmt.Errorf("probe: poll %d must not be negative", poll)
		}
		p = &Pool{poll: poll, spins: poll * PollUnit}
	}
	p.cpus = append([]int{cpus[0]}, p.cpus...)
	p.tids = append([]int{0}, p.tids...)
	p.caller, p.base = true, 1
	return p, nil
}

// worker runs on its own goroutine. It returns still locked to its thread,
// so the runtime discards the pinned thread instead of reusing it.
func (p *Pool) worker(i, cpu int, errs chan<- error) {
	defer p.exited.Done()
	if err := Pin(cpu); err != nil {
		errs <- err
		return
	}
	defer busy.Exiting() // a Watch counts the thread's time to its end
	p.tids[i] = gettid()
	errs <- nil
	var gen uint32
	for {
		gen = p.work.wait(gen, p.spins)
		stop := p.stop
		if !stop {
			p.fn(i + p.base)
		}
		if p.done.add(1) == p.live {
			p.done.wake()
		}
		if stop {
			return
		}
	}
}

// Run calls fn(i) on every worker i at once and returns when all have
// returned. fn must not panic.
func (p *Pool) Run(fn func(worker int)) {
	if p.closed {
		panic("probe: Run on a closed Pool")
	}
	if p.caller {
		if p.live == 0 {
			fn(0)
			return
		}
		p.fn = fn
		atomic.StoreUint32(&p.done.word, 0)
		p.work.store(p.work.load() + 1)
		fn(0)
		p.done.waitFor(p.live, p.spins)
		p.fn = nil
		return
	}
	p.fn = fn
	p.dispatch()
	p.fn = nil
}

func (p *Pool) dispatch() {
	atomic.StoreUint32(&p.done.word, 0)
	p.work.store(p.work.load() + 1)
	p.done.waitFor(p.live, p.spins)
}

// Close stops the workers and waits until they have exited; their threads
// exit with them. Close may be called more than once.
func (p *Pool) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	p.stop = true
	if p.live > 0 {
		p.dispatch()
	}
	p.exited.Wait()
	return nil
}

// CPUs returns the CPU each worker is pinned to.
func (p *Pool) CPUs() []int { return append([]int(nil), p.cpus...) }

// Size returns the number of workers.
func (p *Pool) Size() int { return len(p.cpus) }
