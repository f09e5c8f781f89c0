package busy

import (
	"sync"
)

// A ThreadExit is a thread's CPU time, in seconds, when it ended, and the
// CPU it ended on.
type ThreadExit struct {
	TID, CPU int
	Secs     float64
}

// maxExits is how many exits the log keeps: a Watch started before the
// oldest of them no longer sees that one.
const maxExits = 4096

// exits is the log of the pinned threads of this process that ended: a
// pool's workers end with the pool, between two samples of a Watch, and
// would otherwise take the time they ran since the last sample with them.
var exits struct {
	mu   sync.Mutex
	log  []ThreadExit
	next int // exits logged so far; log holds the last len(log) of them
}

// Exiting logs the calling thread's CPU time and CPU before the thread
// ends (deferred by a goroutine that exits locked to its pinned thread),
// so that a Watch counts all of its time as the run's own, on its CPU.
// Where the thread's CPU time cannot be read, it logs nothing.
func Exiting() {
	e, ok := threadNow()
	if !ok {
		return
	}
	exits.mu.Lock()
	defer exits.mu.Unlock()
	if len(exits.log) == maxExits {
		copy(exits.log, exits.log[1:])
		exits.log = exits.log[:maxExits-1]
	}
	exits.log = append(exits.log, e)
	exits.next++
}

// exitsSince returns the exits logged after the first n, and the count to
// ask from next time.
func exitsSince(n int) ([]ThreadExit, int) {
	exits.mu.Lock()
	defer exits.mu.Unlock()
	first := exits.next - len(exits.log) // the index of log[0]
	i := max(n-first, 0)
	if i > len(exits.log) {
		i = len(exits.log)
	}
	return append([]ThreadExit(nil), exits.log[i:]...), exits.next
}
