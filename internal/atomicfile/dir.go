package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// TempDir makes a new, empty folder next to dir (same parent, a hidden
// name starting with dir's and holding this process's id), readable by
// all (0755) like a folder made with os.Mkdir, to fill and then move into
// place with ReplaceDir. Folders a killed run left beside dir (their
// process is gone) are removed first, so kills leave at most one behind.
func TempDir(dir string) (string, error) {
	removeStale(dir)
	tmp, err := os.MkdirTemp(filepath.Dir(dir), tempPrefix(dir)+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

func tempPrefix(dir string) string { return "." + filepath.Base(dir) + ".tmp-" }

// removeStale removes the temporary folders of dir whose process (the
// pid in their name) no longer runs.
func removeStale(dir string) {
	ents, err := os.ReadDir(filepath.Dir(dir))
	if err != nil {
		return
	}
	prefix := tempPrefix(dir)
	for _, e := range ents {
		if e.IsDir() && ownerGone(e.Name(), prefix) {
			os.RemoveAll(filepath.Join(filepath.Dir(dir), e.Name()))
		}
	}
}

// ownerGone reports whether name is prefix, a process id and "-..." (a
// temporary name this package made) whose process is not this one and no
// longer runs.
func ownerGone(name, prefix string) bool {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return false
	}
	pidText, _, _ := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(pidText)
	return err == nil && pid != os.Getpid() && !processRuns(pid)
}

// CheckReplaceable fails unless dir does not exist, or is a folder
// holding only files named in allowed (a previous output of the same
// kind), so that replacing it loses nothing else.
func CheckReplaceable(dir string, allowed []string) error {
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link; name the folder itself", dir)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s exists and is not a folder", dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() || !slices.Contains(allowed, e.Name()) {
			return fmt.Errorf("%s exists and holds %s, which it would not write", dir, e.Name())
		}
	}
	return nil
}

// CheckDirOutput checks, before any work, that the folder dir (an
// absolute path) can be replaced as a whole: it is not a symbolic link,
// the current folder or one above it, or a mount point (none can be
// renamed), and its parent takes a new folder.
func CheckDirOutput(dir string) error {
	parent := filepath.Dir(dir)
	if wd, err := os.Getwd(); err == nil && (wd == dir || strings.HasPrefix(wd, dir+string(filepath.Separator)) || dir == parent) {
		return errors.New("is the current folder or one above it, which cannot be replaced; name a new folder")
	}
	st, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case st.Mode()&fs.ModeSymlink != 0:
		return errors.New("is a symbolic link; name the folder itself")
	case st.IsDir() && mountPoint(dir, st):
		return errors.New("is a mount point, which cannot be replaced; name a folder inside it")
	}
	pst, err := os.Stat(parent)
	if err != nil {
		return err
	}
	if !pst.IsDir() {
		return fmt.Errorf("%s is not a folder", parent)
	}
	return Writable(parent)
}

// ReplaceDir moves the finished folder tmp into place as dir. Its files
// and tmp itself are synced first; a previous dir is swapped with tmp in
// one step where the system can (Linux's renameat2 RENAME_EXCHANGE), so
// that dir is at every moment the old folder or the new one, then
// deleted; dir's parent is synced last, so the rename survives a power
// loss. Elsewhere the previous dir is moved aside first and put back on
// failure.
func ReplaceDir(tmp, dir string) error {
	if err := syncTree(tmp); err != nil {
		return err
	}
	if _, err := os.Lstat(dir); err == nil {
		if err := exchange(tmp, dir); err == nil {
			os.RemoveAll(tmp) // now the previous folder
			return syncDir(filepath.Dir(dir))
		} else if !errors.Is(err, errNoExchange) {
			return err
		}
		old := tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return err
		}
		if err := os.Rename(tmp, dir); err != nil {
			if rerr := os.Rename(old, dir); rerr != nil {
				return fmt.Errorf("%v (and restoring the previous %s: %v)", err, dir, rerr)
			}
			return err
		}
		os.RemoveAll(old)
		return syncDir(filepath.Dir(dir))
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	return syncDir(filepath.Dir(dir))
}

// syncTree syncs every file directly in dir, then dir.
func syncTree(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return syncDir(dir)
}

// syncDir syncs a folder, so that the names made or renamed in it are on
// disk. A system that cannot sync a folder (EINVAL) is let be.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, errSyncUnsupported) {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}
