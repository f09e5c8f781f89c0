package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

var (
	errNoExchange      = errors.New("no atomic exchange")
	errSyncUnsupported = syscall.EINVAL
)

// exchange swaps the folders a and b in one step (renameat2 with
// RENAME_EXCHANGE); errNoExchange where the file system cannot.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return errNoExchange
	}
	if err != nil {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	return nil
}

// processRuns reports whether process pid exists.
func processRuns(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// mountPoint reports whether the folder dir (st its Lstat) is a mount
// point: on another device than its parent, or the same inode (the root).
func mountPoint(dir string, st fs.FileInfo) bool {
	pst, err := os.Stat(filepath.Dir(dir))
	if err != nil {
		return false
	}
	a, ok1 := st.Sys().(*syscall.Stat_t)
	b, ok2 := pst.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && (a.Dev != b.Dev || a.Ino == b.Ino)
}
