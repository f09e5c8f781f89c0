// Package readfile opens and reads input files within limits, so that a
// path naming a device (/dev/zero), a named pipe no program writes to, or
// a huge file fails with one line instead of reading, or waiting, without
// end.
package readfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// YAMLLimit is the most a SoC, workload, grid or knobs file may hold:
// 1 MiB, a hundred times the largest real one (the rk3588-npu preset,
// 6.1 KB; a fitted profile adds its uncertainty and provenance, a few KB).
// Parsing YAML takes memory and time in proportion to its nodes, so the
// limit is what bounds both (package yamlx bounds what aliases expand to).
const YAMLLimit = 1 << 20

// ErrTooLarge is wrapped by the error for a file over its limit.
var ErrTooLarge = errors.New("over the size limit")

// Read returns the contents of path, or an error when it holds more than
// limit bytes (a regular file is judged by its size before reading; any
// other file, such as a device or a FIFO, by reading at most limit+1
// bytes). A directory is an error, and so is a named pipe that no program
// writes to (Open).
func Read(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st := f.Info()
	if st.Mode().IsRegular() && st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, %w of %s", path, st.Size(), ErrTooLarge, size(limit))
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: more than %s (%w; it is %s, not a regular file)", path, size(limit), ErrTooLarge, kind(st.Mode()))
	}
	return b, nil
}

// kind names a file mode that is not a regular file.
func kind(m os.FileMode) string {
	switch {
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// Size is n bytes for people: whole MiB as MiB, else bytes.
func Size(n int64) string { return size(n) }

func size(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
