package readfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.yaml")
	if err := os.WriteFile(small, []byte("name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, 2000), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(small, 100); err != nil || string(b) != "name: x\n" {
		t.Errorf("small: %q %v", b, err)
	}
	if _, err := Read(big, 1000); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "2000 bytes") {
		t.Errorf("big: %v", err)
	}
	if _, err := Read(dir, 1000); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "none"), 1000); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if runtime.GOOS == "linux" {
		// /dev/zero never ends: it is read up to the limit, then refused.
		if _, err := Read("/dev/zero", 1<<20); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
}
