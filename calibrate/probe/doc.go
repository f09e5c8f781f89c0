// Package probe implements the microbenchmarks that calibrate blsim's cost
// model on the machine itself: streaming read bandwidth alone and under
// contention from another CPU set, in-cache kernel throughput, futex wake and
// spin handoff latency, barrier cost, and a reader for the last-level cache
// size.
//
// Every measurement runs on threads that are locked to their goroutine
// (runtime.LockOSThread) and pinned to one CPU (sched_setaffinity). Pool keeps
// such threads alive across measurements and hands them work through a
// spin-then-futex wait governed by a poll knob, as ggml's thread pool does.
// Pinned threads are never returned to the Go scheduler: when a pool closes,
// its goroutines exit while still locked, so the runtime discards their
// threads. Because locked threads each need a P to run Go code, creating a
// pool raises GOMAXPROCS to at least the number of workers plus one.
//
// Each measurement is repeated until the coefficient of variation of its
// samples falls to Settings.TargetCV or Settings.Budget is spent, and is
// returned as Stats (median, MAD, quartiles, CV, the samples themselves). The
// unit is in Stats.Unit and in the function's documentation.
//
// Measuring needs Linux. On other systems the measuring functions return
// ErrNeedLinux; the parser LLCBytesAt and
// Summarize work everywhere.
package probe
