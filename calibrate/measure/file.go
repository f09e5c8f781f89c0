package measure

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Writer appends measurements to a JSONL file, syncing each to disk
// before Write returns.
type Writer struct {
	f    *os.File
	path string
}

// Create opens path for appending (creating it if needed).
func Create(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("measurements: %w", err)
	}
	// A previous run killed mid-write may have left a partial last line:
	// start ours on a fresh line so it stays readable.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		if last, err := lastByte(path); err == nil && last != '\n' {
			if _, err := f.WriteString("\n"); err != nil {
				f.Close()
				return nil, fmt.Errorf("measurements %s: %w", path, err)
			}
		}
	}
	return &Writer{f: f, path: path}, nil
}

func lastByte(path string) (byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	b := make([]byte, 1)
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if _, err := f.ReadAt(b, st.Size()-1); err != nil {
		return 0, err
	}
	return b[0], nil
}

// Write appends m as one line and syncs the file. The whole line is
// written with one write call, so a crash leaves at most a partial last
// line, which readers report and skip.
func (w *Writer) Write(m Measurement) error {
	if m.Schema == "" {
		m.Schema = Schema
	}
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("measurements %s: %s: %w", w.path, m.ID, err)
	}
	b = append(b, '\n')
	if _, err := w.f.Write(b); err != nil {
		return fmt.Errorf("measurements %s: writing %s: %w", w.path, m.ID, err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("measurements %s: syncing %s: %w", w.path, m.ID, err)
	}
	return nil
}

// Close closes the file.
func (w *Writer) Close() error { return w.f.Close() }

// LineError is a line of a measurements file that could not be read.
type LineError struct {
	File string
	Line int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Read reads every measurement of r. Bad lines are returned as *LineError
// and reading goes on; an I/O error ends it.
func Read(r io.Reader, name string) ([]Measurement, []error) {
	var out []Measurement
	var errs []error
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var m Measurement
		dec := json.NewDecoder(strings.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil {
			errs = append(errs, &LineError{name, line, "not a measurement: " + err.Error()})
			continue
		}
		if err := m.Validate(); err != nil {
			errs = append(errs, &LineError{name, line, err.Error()})
			continue
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", name, err))
	}
	return out, errs
}

// ReadFile reads a measurements file.
func ReadFile(path string) ([]Measurement, []error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, []error{fmt.Errorf("measurements: %w", err)}
	}
	defer f.Close()
	return Read(f, path)
}

// Done returns the IDs measured with status ok (or flagged: the run
// finished, its record just does not fit the plan) in path (none if the file
// does not exist yet), for --resume.
func Done(path string) (map[string]bool, error) {
	done := map[string]bool{}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return done, nil
	}
	if err != nil {
		return nil, fmt.Errorf("measurements: %w", err)
	}
	defer f.Close()
	ms, _ := Read(f, path)
	for _, m := range ms {
		if m.Status == StatusOK || m.Status == StatusFlagged {
			done[m.ID] = true
		}
	}
	return done, nil
}
