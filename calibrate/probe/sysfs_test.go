package probe

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLLCBytesAt(t *testing.T) {
	for _, tc := range []struct {
		root string
		want int64
		err  error
	}{
		{"testdata/rk3588/sys", 3072 << 10, nil},
		{"testdata/x86/sys", 266240 << 10, nil},
		{"testdata/nol3/sys", 1024 << 10, nil},
		{"testdata/empty/sys", 0, ErrNoCacheInfo},
		{"testdata/missing/sys", 0, ErrNoCacheInfo},
	} {
		t.Run(tc.root, func(t *testing.T) {
			got, err := LLCBytesAt(tc.root)
			if !errors.Is(err, tc.err) || got != tc.want {
				t.Errorf("LLCBytesAt = %d, %v; want %d, %v", got, err, tc.want, tc.err)
			}
		})
	}
	_, err := LLCBytesAt("testdata/bad/sys")
	if err == nil || !strings.Contains(err.Error(), "lots") || !strings.Contains(err.Error(), "index0/size") {
		t.Errorf("bad size: err = %v, want one naming the file and value", err)
	}
}

func TestLLCBytesHere(t *testing.T) {
	n, err := LLCBytes()
	if errors.Is(err, ErrNoCacheInfo) {
		t.Skip("this kernel lists no caches")
	}
	if err != nil || n < 64<<10 {
		t.Errorf("LLCBytes = %d, %v", n, err)
	}
}

func TestParseCacheSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"32K", 32 << 10}, {"3072K", 3 << 20}, {"1M", 1 << 20}, {"2G", 2 << 30}, {"512", 512},
		{"", -1}, {"K", -1}, {"-4K", -1}, {"0K", -1}, {"12Q", -1},
	} {
		got, err := parseCacheSize(tc.in)
		if tc.want < 0 {
			if err == nil {
				t.Errorf("parseCacheSize(%q) = %d, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseCacheSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestWorkingSetBytes(t *testing.T) {
	for _, tc := range []struct{ llc, max, want int64 }{
		{3 << 20, 1 << 30, 1 << 30},
		{3 << 20, 0, 1 << 30},
		{260 << 20, 1 << 30, 1 << 30},
		{260 << 20, 0, 2080 << 20},
		{3 << 20, 64 << 20, 64 << 20},
	} {
		if got := WorkingSetBytes(tc.llc, tc.max); got != tc.want {
			t.Errorf("WorkingSetBytes(%d, %d) = %d, want %d", tc.llc, tc.max, got, tc.want)
		}
	}
	if ws := DefaultWorkingSet(32 << 20); ws <= 0 || ws > 32<<20 {
		t.Errorf("DefaultWorkingSet(32 MiB) = %d", ws)
	}
	// Many times the cache, on any host this runs on.
	llc, err := LLCBytes()
	if err != nil {
		llc = fallbackLLC
	}
	if ws := DefaultWorkingSet(0); ws < min(DRAMMultiple*llc, memAvailable("/proc/meminfo")/4) {
		t.Errorf("DefaultWorkingSet(0) = %d MiB for a %d MiB cache", ws>>20, llc>>20)
	}
}

func TestMemAvailable(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "meminfo")
	if err := os.WriteFile(f, []byte("MemTotal:       24683584 kB\nMemFree:        22504212 kB\nMemAvailable:   24143284 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := memAvailable(f); got != 24143284<<10 {
		t.Errorf("memAvailable = %d", got)
	}
	if memAvailable(filepath.Join(dir, "none")) != 0 {
		t.Error("a missing file")
	}
}
