// Package testgc sets the garbage collector for test binaries whose
// recorded refits allocate fast and keep little (calibrate, calibrate/fit).
package testgc

import (
	"os"
	"runtime/debug"
	"testing"
)

// Main runs m's tests with the collector at GOGC=400 (a memory limit of
// 3 GiB in its place near that size), unless GOGC or GOMEMLIMIT is set,
// and exits with their status. At the default 100, three of calibrate's
// recorded tests (TestRecordedFull{SleepExit,SecondRun,IdentifiesCaps},
// one binary, 2-vCPU build machine, quiet) took 38.7 s wall and 71 CPU-s,
// a sixth of it system time (the collector on the second CPU); at 400,
// 21.4 s and 42 CPU-s. No test's figure or assertion depends on how often
// the collector runs: the memory tests call runtime.GC themselves.
func Main(m *testing.M) {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(400)
		debug.SetMemoryLimit(3 << 30)
	}
	os.Exit(m.Run())
}
