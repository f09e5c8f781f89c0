package probe

import (
	"runtime"
	"sync/atomic"
)

// PollUnit is how many times a waiter checks its word per unit of poll before
// it sleeps in the futex: poll p spins p·PollUnit checks, as ggml's thread
// pool spins 1024·poll rounds. Poll 0 sleeps at once. A check here is a bare
// atomic load, without ggml's pause or yield instruction, so a unit is
// shorter than ggml's; SpinUnit measures it.
const PollUnit = 1024

// waitWord is a 32-bit word that threads wait on, spinning first and then
// sleeping in the futex, and the count of those asleep, so that a poster
// makes the wake system call only when someone sleeps.
type waitWord struct {
	word     uint32
	sleepers int32
	_        [56]byte // keep the next word off this cache line
}

func (w *waitWord) load() uint32 { return atomic.LoadUint32(&w.word) }

// wait returns the word's value once it differs from old, checking it spins
// times before sleeping.
func (w *waitWord) wait(old uint32, spins int) uint32 {
	if v, ok := w.spin(old, spins); ok {
		return v
	}
	// Announce the sleeper before the last check: a poster stores the word
	// before it reads sleepers, so with sequentially consistent atomics
	// either it sees the sleeper or this check sees its store.
	atomic.AddInt32(&w.sleepers, 1)
	for {
		if v := atomic.LoadUint32(&w.word); v != old {
			atomic.AddInt32(&w.sleepers, -1)
			return v
		}
		futexWait(&w.word, old)
	}
}

// spin checks the word spins times and returns its value and true as soon
// as it differs from old.
func (w *waitWord) spin(old uint32, spins int) (uint32, bool) {
	for range spins {
		if v := atomic.LoadUint32(&w.word); v != old {
			return v, true
		}
	}
	return old, false
}

// store sets the word and wakes every sleeper.
func (w *waitWord) store(v uint32) {
	atomic.StoreUint32(&w.word, v)
	if atomic.LoadInt32(&w.sleepers) > 0 {
		futexWake(&w.word, 1<<30)
	}
}

// add adds d to the word without waking anyone and returns the new value.
func (w *waitWord) add(d uint32) uint32 { return atomic.AddUint32(&w.word, d) }

// wake wakes every sleeper.
func (w *waitWord) wake() {
	if atomic.LoadInt32(&w.sleepers) > 0 {
		futexWake(&w.word, 1<<30)
	}
}

// waitFor returns once the word equals want, spinning then sleeping.
func (w *waitWord) waitFor(want uint32, spins int) {
	for v := w.load(); v != want; {
		v = w.wait(v, spins)
	}
}

// ensureProcs raises GOMAXPROCS to at least n, so that n locked threads and
// the caller can all hold a P at once.
func ensureProcs(n int) {
	if runtime.GOMAXPROCS(0) < n {
		runtime.GOMAXPROCS(n)
	}
}

// Word is a 32-bit word that one goroutine posts and another waits on, as
// the pools' workers wait for their work: a waiter checks it spins times
// and then sleeps in the futex, and a poster makes the wake system call only
// when someone sleeps. A goroutine locked to its thread sleeps there, so a
// wake-up is one futex wake, not a hand-over of the runtime's P as a
// channel's is. The zero value is ready to use.
type Word struct{ w waitWord }

// Wait returns the word's value once it differs from old, checking it spins
// times before sleeping.
func (w *Word) Wait(old uint32, spins int) uint32 { return w.w.wait(old, spins) }

// Post stores v and wakes the sleepers.
func (w *Word) Post(v uint32) { w.w.store(v) }

// Load is the word's value now.
func (w *Word) Load() uint32 { return w.w.load() }
