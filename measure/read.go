package measure

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/blsim/blsim/internal/readfile"
)

// LineError is a line of a measurements file that could not be read.
type LineError struct {
	File string
	Line int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// MoreBadLines stands, at the end of Read's errors, for the bad lines past
// the first MaxKeptErrors: their count, and the last one's number. Read
// keeps no more, so that a file of a million bad lines costs the memory
// of a hundred.
type MoreBadLines struct {
	File       string
	N          int
	LastLineNo int
}

func (e *MoreBadLines) Error() string {
	return fmt.Sprintf("%s: %d more bad %s, the last at line %d", e.File, e.N, lines(e.N), e.LastLineNo)
}

// MaxKeptErrors is how many bad lines Read returns one by one.
const MaxKeptErrors = 100

// BadLines is the number of bad lines errs (as Read returns them) stand
// for.
func BadLines(errs []error) int {
	n := len(errs)
	for _, err := range errs {
		var more *MoreBadLines
		if errors.As(err, &more) {
			n += more.N - 1
		}
	}
	return n
}

// MaxLineBytes is the longest line Read takes; a longer one is reported
// (with its line number) and skipped, and reading goes on. A real line is
// at most about 12 KB (a workload's YAML and the head and tail of a run's
// stdout and stderr); 1 MiB leaves room for eighty times that.
var MaxLineBytes = 1 << 20

// MaxFileBytes is the most Read reads of one file: past it, reading stops
// with an error wrapping readfile.ErrTooLarge, which makes the file
// unusable (Check). 64 MiB is some 5,000 runs of a full calibration with
// their output; a Go program may raise it.
var MaxFileBytes int64 = 64 << 20

// ReadChecked reads every measurement of r. Bad lines are returned as
// *LineError (the first MaxKeptErrors, then one *MoreBadLines) and reading
// goes on; an I/O error, or more than MaxFileBytes, ends it with an error
// of another type. Two finished runs (ok or flagged) with one ID but other
// values are a *LineError on the later line, which is skipped: the file
// had two writers. check, when not nil, is a further test of each record:
// one it fails is a bad line (a plan the SoC at hand cannot run).
func ReadChecked(r io.Reader, name string, check func(*Measurement) error) ([]Measurement, []error) {
	return read(r, name, check)
}

func read(r io.Reader, name string, check func(*Measurement) error) ([]Measurement, []error) {
	return readSized(r, name, check, -1)
}

// readSized is read of a file of size bytes (-1: not known), which sizes
// the result from its first lines, so that a long file is not copied
// over and over as it grows.
func readSized(r io.Reader, name string, check func(*Measurement) error, size int64) ([]Measurement, []error) {
	var out []Measurement
	var errs []error
	var in interner // one copy of each repeated string and plan
	var dec lineDecoder
	var sample int64 // bytes of the first lines, to size out
	sized := false
	var more *MoreBadLines
	// bad counts a bad line, keeping the first MaxKeptErrors (their
	// message made only then: a million bad lines cost a count).
	bad := func(line int, err error) {
		if len(errs) < MaxKeptErrors {
			errs = append(errs, &LineError{name, line, err.Error()})
			return
		}
		if more == nil {
			more = &MoreBadLines{File: name}
			errs = append(errs, more)
		}
		more.N++
		more.LastLineNo = line
	}
	br := bufio.NewReaderSize(io.LimitReader(r, MaxFileBytes+1), 64*1024)
	finished := map[string]int{} // ID -> index in out
	var total int64
	for line := 1; ; line++ {
		b, n, err := readLine(br, MaxLineBytes)
		total += n
		if total > MaxFileBytes {
			errs = append(errs, fmt.Errorf("%s: more than %s (%w of measure.MaxFileBytes); reading stopped at line %d", name, readfile.Size(MaxFileBytes), readfile.ErrTooLarge, line))
			break
		}
		if b == nil && n > 0 {
			bad(line, errors.New("a line of more than "+readfile.Size(int64(MaxLineBytes))+": skipped"))
		} else if text := bytes.TrimSpace(b); len(text) > 0 {
			if len(out) == 64 && size > 0 && !sized {
				// The rest of the file as long as its first lines, an
				// eighth more: growing by append would hold the old
				// and a twice larger copy at once.
				grown := make([]Measurement, len(out), int64(len(out))*size/sample*9/8+64)
				copy(grown, out)
				out, sized = grown, true
			}
			// The record is decoded in its place in out, and taken out
			// again if it is bad.
			out = append(out, Measurement{})
			m := &out[len(out)-1]
			perr := dec.parse(text, len(errs) < MaxKeptErrors, m)
			if perr == nil && check != nil {
				perr = check(m)
			}
			if perr == nil {
				if i, dup := finished[m.ID]; dup && m.finished() && !sameValues(&out[i], m) {
					perr = fmt.Errorf("run %s was already measured with other values (a second writer?): skipped", m.ID)
				} else if m.finished() && !dup {
					finished[m.ID] = len(out) - 1
				}
			}
			if perr != nil {
				*m = Measurement{}
				out = out[:len(out)-1]
				bad(line, perr)
			} else {
				in.intern(m)
				sample += n
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			break
		}
	}
	return out, errs
}

// readLine reads one line (with its newline, if any) of at most limit
// bytes before the newline: it returns nil, and the bytes consumed, for a
// longer one. A line that fits the reader's buffer is returned as a slice
// of it, valid until the next read; a longer one is copied.
func readLine(br *bufio.Reader, limit int) ([]byte, int64, error) {
	chunk, err := br.ReadSlice('\n')
	n := int64(len(chunk))
	if err != bufio.ErrBufferFull && n <= int64(limit)+1 {
		if chunk == nil {
			chunk = []byte{}
		}
		return chunk, n, err
	}
	var buf []byte
	over := n > int64(limit)+1
	if !over {
		buf = append(buf, chunk...)
	}
	for err == bufio.ErrBufferFull {
		chunk, err = br.ReadSlice('\n')
		n += int64(len(chunk))
		if !over && n > int64(limit)+1 {
			over, buf = true, nil
		} else if !over {
			buf = append(buf, chunk...)
		}
	}
	if over {
		return nil, n, err
	}
	return buf, n, err
}

// finished reports whether m is a run that ended with a value.
func (m *Measurement) finished() bool { return m.Status == StatusOK || m.Status == StatusFlagged }

// sameValues reports whether two records of one ID hold the same result.
func sameValues(a, b *Measurement) bool {
	return a.Median == b.Median && slices.Equal(a.Samples, b.Samples)
}

// ReadFile reads a measurements file (readfile.Open: a named pipe no
// program writes to is an error, not a wait without end).
func ReadFile(path string) ([]Measurement, []error) {
	return readFile(path, nil)
}

func readFile(path string, check func(*Measurement) error) ([]Measurement, []error) {
	f, err := readfile.Open(path)
	if err != nil {
		return nil, []error{fmt.Errorf("measurements: %w", err)}
	}
	defer f.Close()
	return readSized(f, path, check, min(f.Size(), MaxFileBytes))
}
