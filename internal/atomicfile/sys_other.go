//go:build !linux

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

var (
	errNoExchange      = errors.New("no atomic exchange")
	errSyncUnsupported = errors.New("folder sync unsupported")
)

// exchange is errNoExchange: ReplaceDir moves the old folder aside.
func exchange(a, b string) error { return errNoExchange }

// processRuns reports whether process pid exists (FindProcess and a
// signal 0 where the system has them).
func processRuns(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}

// mountPoint: only the root is known to be one here.
func mountPoint(dir string, st fs.FileInfo) bool {
	pst, err := os.Stat(filepath.Dir(dir))
	return err == nil && os.SameFile(st, pst)
}
