package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// TempDir makes a new, empty folder next to dir (same parent, a hidden
// name starting with dir's), readable by all (0755) like a folder made with
// os.Mkdir, to fill and then move into place with ReplaceDir.
func TempDir(dir string) (string, error) {
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// CheckReplaceable fails unless dir does not exist, or is a folder
// holding only files named in allowed (a previous output of the same
// kind), so that replacing it loses nothing else.
func CheckReplaceable(dir string, allowed []string) error {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
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

// ReplaceDir renames the finished folder tmp to dir, moving a previous dir
// aside first and deleting it only once the new one is in place; on
// failure the previous one is put back.
func ReplaceDir(tmp, dir string) error {
	if _, err := os.Stat(dir); err == nil {
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
		return os.RemoveAll(old)
	}
	return os.Rename(tmp, dir)
}
