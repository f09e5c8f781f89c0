package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkOutput makes sure, before any work, that path can take an output
// file: its folder exists, it is not a device, a folder or a link, and it
// is none of the inputs (a profile written over the measurements it was
// fitted from would lose them). flag names the flag in errors.
func checkOutput(flag, path string, inputs ...string) error {
	if path == "" {
		return nil
	}
	abs, _ := filepath.Abs(path)
	for _, in := range inputs {
		if ia, err := filepath.Abs(in); in != "" && err == nil && ia == abs {
			return fmt.Errorf("%s %s: is also an input; name another file", flag, path)
		}
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	} else if !st.IsDir() {
		return fmt.Errorf("%s %s: %s is not a folder", flag, path, dir)
	}
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%s %s: %w", flag, path, err)
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s %s: is a symbolic link; name the file itself", flag, path)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s %s: is not a regular file (%v); blsim writes only regular files", flag, path, st.Mode().Type())
	}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
			return fmt.Errorf("%s %s: is also an input (%s); name another file", flag, path, in)
		}
	}
	return nil
}
