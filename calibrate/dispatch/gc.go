package dispatch

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// gcHold counts the timed runs under way in this process. The collector's
// percentage is process-wide: two runs that each saved and restored it
// could restore "off" last and leave it off for good (a test binary of
// calibrate then grew to 20 GB).
var gcHold struct {
	sync.Mutex
	runs  int
	pct   int
	limit int64
}

// gcHeadroomBytes is how far the Go runtime's memory may grow during timed
// runs before the collector runs anyway: a timed run allocates nothing, but
// other goroutines of the process may.
const gcHeadroomBytes = 1 << 30

// holdGC collects now and keeps the collector off, short of a memory limit
// of what the runtime holds now plus gcHeadroomBytes, until the last of the
// process's timed runs calls the release it returns.
func holdGC() (release func()) {
	gcHold.Lock()
	defer gcHold.Unlock()
	if gcHold.runs == 0 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		gcHold.pct = debug.SetGCPercent(-1)
		gcHold.limit = debug.SetMemoryLimit(int64(ms.Sys-ms.HeapReleased) + gcHeadroomBytes)
	}
	gcHold.runs++
	return func() {
		gcHold.Lock()
		defer gcHold.Unlock()
		if gcHold.runs--; gcHold.runs == 0 {
			debug.SetGCPercent(gcHold.pct)
			debug.SetMemoryLimit(gcHold.limit)
		}
	}
}
