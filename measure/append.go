package measure

import (
	"errors"
	"fmt"
)

// ErrMeasured is wrapped by OpenAppend's error for a file that already
// holds measurements when resume is not set.
var ErrMeasured = errors.New("already holds measurements")

// OpenAppend opens the measurements file path to append a grid's runs to.
// It takes the file's lock first (Create) and only then reads it, so that
// what it reports done is what the file holds while this process alone may
// add to it: a second process cannot finish runs between the reading and
// the locking, which it would then measure again.
//
// Without resume, a file that holds anything is refused (an error wrapping
// ErrMeasured): the same grid run again writes other values under the
// same IDs, and those lines would be bad. With resume, the file must be
// usable by the one rule (ReadUsable) before anything is measured; done
// lists the IDs it holds finished (ok or flagged), and warnings its bad
// lines. A file that does not exist is created.
func OpenAppend(path string, resume bool) (*Writer, map[string]bool, []string, error) {
	w, err := Create(path)
	if err != nil {
		return nil, nil, nil, err
	}
	done := map[string]bool{}
	if w.fresh {
		return w, done, nil, nil
	}
	if !resume {
		w.Close()
		return nil, nil, nil, fmt.Errorf("measurements %s: %w", path, ErrMeasured)
	}
	ms, warnings, err := ReadUsable(path, nil)
	if err != nil {
		w.Close()
		return nil, nil, nil, fmt.Errorf("resuming: %w", err)
	}
	for _, m := range ms {
		if m.finished() {
			done[m.ID] = true
		}
	}
	return w, done, warnings, nil
}
