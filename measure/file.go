package measure

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
)

// Writer appends measurements to a JSONL file, syncing each to disk
// before Write returns.
type Writer struct {
	f    *os.File
	path string
	// fresh: the file was empty when Create locked it.
	fresh bool
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
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("measurements %s: %w", path, err)
	}
	if st.Size() > 0 {
		if last, err := lastByte(path); err == nil && last != '\n' {
			if _, err := f.WriteString("\n"); err != nil {
				f.Close()
				return nil, fmt.Errorf("measurements %s: %w", path, err)
			}
		}
	}
	return &Writer{f: f, path: path, fresh: st.Size() == 0}, nil
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
