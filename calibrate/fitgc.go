package calibrate

import (
	"os"
	"path/filepath"
	"runtime/debug"
)

// FitGCPercent is the collector's setting (GOGC) for calibrate's fit: the
// fit allocates fast and keeps little, so at the default 100 the collector
// ran about 480 times in one fit of a recorded quick calibration
// (BenchmarkFitQuick, testdata/quick-vm-five/v-1.jsonl, the 2-vCPU build
// machine) and at 400 about 84.
// Measured there (2026-12-03, go test -bench BenchmarkFitQuick -benchtime 1x -count 5, medians): 1.11 s a fit at GOGC=100, 0.90 s with FitCollector (-19%); again 1.49 and 1.03 s (-31%).
const FitGCPercent = 400

// FitMemoryLimitBytes bounds the heap while the fit runs at FitGCPercent
// (the runtime's soft memory limit): at most this, and at most half of
// MemAvailable (FitCollector). The recorded refits of calibrate's tests
// run at the same pair (internal/testgc).
const FitMemoryLimitBytes = 3 << 30

// FitCollector sets the garbage collector for a fit: GOGC=FitGCPercent,
// with a memory limit of FitMemoryLimitBytes or half of MemAvailable in
// the meminfo file under root (a procfs tree, "/" on a live machine),
// whichever is less. It returns a function that restores the previous
// settings. It changes nothing where GOGC or GOMEMLIMIT is set (the
// user's choice stands) or where the meminfo file cannot be read (no
// bound to keep the heap under). The fit's results do not depend on how
// often the collector runs.
func FitCollector(root string) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	avail, err := MemAvailable(filepath.Join(root, "proc", "meminfo"))
	if err != nil || avail <= 0 {
		return func() {}
	}
	limit := min(int64(FitMemoryLimitBytes), avail/2)
	percent, was := debug.SetGCPercent(FitGCPercent), debug.SetMemoryLimit(limit)
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(was)
	}
}
