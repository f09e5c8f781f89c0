package cli

import (
	"errors"
	"io/fs"
	"regexp"
)

// NoSuchFile turns an error opening or statting a file into one line that
// says so in the same words whatever flag named the file: "PATH: no such
// file" (or the system's reason: permission denied, not a directory).
func NoSuchFile(err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New(pe.Path + ": no such file")
	}
	return errors.New(pe.Path + ": " + pe.Err.Error())
}

// enoent is how Go's os package words a missing file.
var enoent = regexp.MustCompile(`\b(?:open|stat|lstat) ([^:\n]+): no such file or directory`)

// Line is err as the one line blsim prints: a missing file reads
// "PATH: no such file" whichever reader met it.
func Line(err error) string {
	return enoent.ReplaceAllString(err.Error(), "$1: no such file")
}
