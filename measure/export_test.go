package measure

import (
	"errors"
	"io"
	"os"
)

// Test-only helpers: nothing outside the tests calls them (deadcode).

// Read is ReadChecked without a further check.
func Read(r io.Reader, name string) ([]Measurement, []error) {
	return ReadChecked(r, name, nil)
}

// Done returns the IDs measured with status ok (or flagged: the run
// finished, its record just does not fit the plan) in path (none if the
// file does not exist yet). It reads without the lock: OpenAppend is how
// a writer learns what to skip.
func Done(path string) (map[string]bool, error) {
	done := map[string]bool{}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return done, nil
	}
	ms, errs := ReadFile(path)
	for _, err := range errs {
		var le *LineError
		var more *MoreBadLines
		if !errors.As(err, &le) && !errors.As(err, &more) {
			return nil, err
		}
	}
	for _, m := range ms {
		if m.finished() {
			done[m.ID] = true
		}
	}
	return done, nil
}
