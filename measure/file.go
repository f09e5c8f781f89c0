package measure

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
)

// Writer appends measurements to a JSONL file, syncing each to disk
// before Write returns.
type Writer struct {
	f    *os.File
	path string
}

// ErrLocked is wrapped by Create's error when another process is writing
// the file.
var ErrLocked = errors.New("being written")

// Create opens path for appending (creating it if needed), locked against
// other writers until Close: a second process creating a Writer on the same
// file gets an error wrapping ErrLocked, naming the holder's pid where the
// system tells it.
func Create(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("measurements: %w", err)
	}
	if err := lock(f, path); err != nil {
		f.Close()
		return nil, err
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

// MaxLineBytes is the longest line Read takes; a longer one is reported
// (with its line number) and skipped, and reading goes on.
var MaxLineBytes = 64 << 20

// MaxFileBytes is the most Read reads of one file (1 GiB, about four
// million runs): past it, reading stops with an error. A Go program may
// raise it.
var MaxFileBytes int64 = 1 << 30

// Read reads every measurement of r. Bad lines are returned as *LineError
// and reading goes on; an I/O error, or more than MaxFileBytes, ends it.
// Two finished runs (ok or flagged) with one ID but other values are a
// *LineError on the later line, which is skipped: the file had two writers.
func Read(r io.Reader, name string) ([]Measurement, []error) {
	var out []Measurement
	var errs []error
	br := bufio.NewReaderSize(io.LimitReader(r, MaxFileBytes+1), 64*1024)
	finished := map[string]int{} // ID -> index in out
	var total int64
	for line := 1; ; line++ {
		b, n, err := readLine(br, MaxLineBytes)
		total += n
		if total > MaxFileBytes {
			errs = append(errs, fmt.Errorf("%s: more than %s; reading stopped at line %d (measure.MaxFileBytes)", name, bytesText(MaxFileBytes), line))
			break
		}
		if b == nil && n > 0 {
			errs = append(errs, &LineError{name, line, "a line of more than " + bytesText(int64(MaxLineBytes)) + ": skipped"})
		} else if text := strings.TrimSpace(string(b)); text != "" {
			if m, lerr := parseLine(text, name, line); lerr != nil {
				errs = append(errs, lerr)
			} else if i, dup := finished[m.ID]; dup && m.finished() && !sameValues(&out[i], &m) {
				errs = append(errs, &LineError{name, line, fmt.Sprintf("run %s was already measured with other values (a second writer?): skipped", m.ID)})
			} else {
				if m.finished() && !dup {
					finished[m.ID] = len(out)
				}
				out = append(out, m)
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
// longer one.
func readLine(br *bufio.Reader, limit int) ([]byte, int64, error) {
	var buf []byte
	var n int64
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		if !over {
			if n > int64(limit)+1 {
				over, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if over {
			return nil, n, err
		}
		if buf == nil {
			buf = []byte{}
		}
		return buf, n, err
	}
}

// bytesText is n in MiB when it is whole MiB, else in bytes.
func bytesText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

func parseLine(text, name string, line int) (Measurement, error) {
	var m Measurement
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, &LineError{name, line, "not a measurement: " + err.Error()}
	}
	if err := m.Validate(); err != nil {
		return m, &LineError{name, line, err.Error()}
	}
	return m, nil
}

// finished reports whether m is a run that ended with a value.
func (m *Measurement) finished() bool { return m.Status == StatusOK || m.Status == StatusFlagged }

// sameValues reports whether two records of one ID hold the same result.
func sameValues(a, b *Measurement) bool {
	return a.Median == b.Median && slices.Equal(a.Samples, b.Samples)
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

// CheckNames checks that every measurement of ms that names a SoC names
// one of socs, and that every one naming a workload without carrying its
// YAML names workload.
func CheckNames(ms []Measurement, socs []string, workload string) error {
	for _, m := range ms {
		if m.SoC != "" && !slices.Contains(socs, m.SoC) {
			return fmt.Errorf("measurements are for soc %s, not %s", m.SoC, socs[0])
		}
		if m.Workload != "" && m.WorkloadYAML == "" && m.Workload != workload {
			return fmt.Errorf("measurements are for workload %s, not %s", m.Workload, workload)
		}
	}
	return nil
}

// Sources are the "source" knobs of ms's usable throughputs, sorted, each
// once.
func Sources(ms []Measurement) []string {
	set := map[string]bool{}
	for _, m := range ms {
		if src := m.Knobs["source"]; src != "" && m.IsThroughput() && m.OK() {
			set[src] = true
		}
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}
