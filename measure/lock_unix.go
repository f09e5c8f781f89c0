//go:build unix

package measure

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// lock takes an exclusive advisory lock (flock) on f, held until f is
// closed, so that one process at a time appends measurements to a file. A
// second writer gets ErrLocked, with the holder's pid where /proc/locks
// tells it.
func lock(f *os.File, path string) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.EWOULDBLOCK) {
		return fmt.Errorf("measurements %s: lock: %w", path, err)
	}
	who := "another process"
	if pid := lockHolder(f); pid != "" {
		who += " (pid " + pid + ")"
	}
	return fmt.Errorf("measurements %s: %w by %s; wait for it, or measure into another file", path, ErrLocked, who)
}

// lockHolder is the pid holding a flock on f's inode, from /proc/locks
// ("1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"), or "".
func lockHolder(f *os.File) string {
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return ""
	}
	ino := fmt.Sprintf(":%d", sys.Ino)
	for _, line := range strings.Split(string(b), "\n") {
		fs := strings.Fields(line)
		if len(fs) >= 6 && fs[1] == "FLOCK" && strings.HasSuffix(fs[5], ino) {
			return fs[4]
		}
	}
	return ""
}
