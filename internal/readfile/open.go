package readfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// OpenWait is how long Open waits for a program to open a named pipe
// (FIFO) for writing, and IdleWait how long a read from a pipe or a
// terminal waits for data: past them, the reader stops with one line
// instead of waiting forever without a word.
var (
	OpenWait = 10 * time.Second
	IdleWait = 10 * time.Second
)

// ErrNoWriter is wrapped by the error for a named pipe that no program
// opened for writing within OpenWait, or that sent nothing for IdleWait.
var ErrNoWriter = errors.New("no program writes to it")

// File is an input file opened by Open: reading it never waits more than
// IdleWait for data from a pipe or a terminal.
type File struct {
	f    *os.File
	info fs.FileInfo
	name string
}

// Open opens the input file path. A directory is an error; a named pipe
// that no program opens for writing within OpenWait is an error wrapping
// ErrNoWriter (os.Open would wait for one forever).
func Open(path string) (*File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", path)
	}
	var f *os.File
	if st.Mode()&fs.ModeNamedPipe != 0 {
		if f, err = openPipe(path); err != nil {
			return nil, err
		}
	} else if f, err = os.Open(path); err != nil {
		return nil, err
	}
	if st, err = f.Stat(); err != nil {
		f.Close()
		return nil, err
	}
	return &File{f: f, info: st, name: path}, nil
}

// openPipe opens a named pipe, which blocks until a writer opens it, in a
// goroutine it waits OpenWait for; a late open is closed when it comes.
func openPipe(path string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-time.After(OpenWait):
		go func() {
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, fmt.Errorf("%s is a named pipe and waited %v for a program to write to it: %w", path, OpenWait, ErrNoWriter)
	}
}

// Read reads from the file; from a pipe or a terminal, a read that gets
// no data for IdleWait fails with an error wrapping ErrNoWriter.
func (f *File) Read(p []byte) (int, error) {
	deadline := f.f.SetReadDeadline(time.Now().Add(IdleWait)) == nil
	n, err := f.f.Read(p)
	if deadline && errors.Is(err, os.ErrDeadlineExceeded) {
		return n, fmt.Errorf("%s sent nothing for %v: %w", f.name, IdleWait, ErrNoWriter)
	}
	return n, err
}

// ReadAt reads len(p) bytes at off (a regular file's).
func (f *File) ReadAt(p []byte, off int64) (int, error) { return f.f.ReadAt(p, off) }

// Info is what the file was when opened.
func (f *File) Info() fs.FileInfo { return f.info }

// Size is the file's size when it is a regular file, else -1.
func (f *File) Size() int64 {
	if f.info.Mode().IsRegular() {
		return f.info.Size()
	}
	return -1
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }
