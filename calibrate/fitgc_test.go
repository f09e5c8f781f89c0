package calibrate

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"testing"
)

// TestFitCollector checks that FitCollector sets the collector for the fit
// (GOGC=FitGCPercent, a memory limit of at most FitMemoryLimitBytes and
// half of MemAvailable), restores what was set before, and leaves the
// collector alone where GOGC or GOMEMLIMIT is set or meminfo is missing.
func TestFitCollector(t *testing.T) {
	meminfo := func(availKB int64) string {
		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, "proc"), 0o755); err != nil {
			t.Fatal(err)
		}
		b := []byte("MemTotal:       4000000 kB\nMemAvailable:   " + strconv.FormatInt(availKB, 10) + " kB\n")
		if err := os.WriteFile(filepath.Join(root, "proc", "meminfo"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return root
	}
	percent, limit := debug.SetGCPercent(150), debug.SetMemoryLimit(1<<40)
	defer func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) }()
	current := func() (int, int64) {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p, debug.SetMemoryLimit(-1)
	}
	for _, c := range []struct {
		name    string
		root    string
		env     string
		percent int
		limit   int64
	}{
		{"plenty of memory", meminfo(16 << 20), "", FitGCPercent, FitMemoryLimitBytes},
		{"2 GiB available", meminfo(2 << 20), "", FitGCPercent, 1 << 30},
		{"no meminfo", t.TempDir(), "", 150, 1 << 40},
		{"GOGC set", meminfo(16 << 20), "GOGC", 150, 1 << 40},
		{"GOMEMLIMIT set", meminfo(16 << 20), "GOMEMLIMIT", 150, 1 << 40},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.env != "" {
				t.Setenv(c.env, "200")
			}
			restore := FitCollector(c.root)
			p, l := current()
			restore()
			if p != c.percent || l != c.limit {
				t.Errorf("during the fit: GOGC %d, limit %d bytes; want %d, %d", p, l, c.percent, c.limit)
			}
			if p, l := current(); p != 150 || l != 1<<40 {
				t.Errorf("after: GOGC %d, limit %d bytes; want the settings before (150, %d)", p, l, int64(1<<40))
			}
		})
	}
}
