package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CheckOutput makes sure, before any work, that path can take an output
// file: its folder exists, it is not a device, a folder or a link, and it
// is none of the inputs, by name or by device and inode (a profile written
// over the measurements it was fitted from would lose them).
func CheckOutput(path string, inputs ...string) error {
	abs, _ := filepath.Abs(path)
	for _, in := range inputs {
		if ia, err := filepath.Abs(in); in != "" && err == nil && ia == abs {
			return errors.New("is also an input; name another file")
		}
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil {
		return err
	} else if !st.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.Mode()&fs.ModeSymlink != 0:
		return errors.New("is a symbolic link; name the file itself")
	case !st.Mode().IsRegular():
		return fmt.Errorf("is not a regular file (%v); blsim writes only regular files", st.Mode().Type())
	}
	for _, in := range inputs {
		if ist, err := os.Stat(in); in != "" && err == nil && os.SameFile(st, ist) {
			return fmt.Errorf("is also an input (%s); name another file", in)
		}
	}
	return nil
}
