package measure

import (
	"errors"
	"fmt"
)

// Usable says whether a file read with good measurements and bad lines can
// be used, one rule for every command: at least one good measurement, and
// bad lines no more than one (the partial last line a crash leaves) or a
// tenth of all lines, whichever is more.
func Usable(good, bad int) bool { return good > 0 && bad <= max(1, (good+bad)/10) }

// MaxListed is how many bad lines Check lists one by one; a further line
// counts the rest.
const MaxListed = 5

// Check applies the one rule (Usable) to what Read returned for the file
// name: good measurements and the errors of its bad lines. An error that
// is not a bad line (the file is over MaxFileBytes, or could not be read)
// makes it unusable whatever the count. A usable file gets the warnings to
// show, "skipped LINE-ERROR" for each of the first MaxListed bad lines and
// "N more bad lines in NAME" for the rest; a file that is not usable gets
// an error naming its first bad line.
func Check(name string, good int, errs []error) (warnings []string, err error) {
	for _, e := range errs {
		var le *LineError
		var more *MoreBadLines
		if !errors.As(e, &le) && !errors.As(e, &more) {
			return nil, e
		}
	}
	bad := BadLines(errs)
	if !Usable(good, bad) {
		switch {
		case good == 0 && bad == 0:
			return nil, fmt.Errorf("%s has no measurements", name)
		case good == 0:
			return nil, fmt.Errorf("%s has no readable measurements (%d bad %s; first: %v)", name, bad, lines(bad), errs[0])
		}
		return nil, fmt.Errorf("%s: %d of its %d lines are bad, more than a tenth (first: %v); fix or remove them",
			name, bad, good+bad, errs[0])
	}
	for i, e := range errs {
		if i == MaxListed {
			warnings = append(warnings, fmt.Sprintf("%d more bad %s in %s", bad-MaxListed, lines(bad-MaxListed), name))
			break
		}
		warnings = append(warnings, fmt.Sprintf("skipped %v", e))
	}
	return warnings, nil
}

// ReadUsable reads the measurements file at path (ReadFile) by the one
// rule: its measurements and the warnings Check gives, or Check's error
// when it is not usable (a file that cannot be opened has no readable
// measurements). check, when not nil, is a further test of each record
// (a plan the SoC at hand can run): a record it fails is a bad line like
// any other.
func ReadUsable(path string, check func(*Measurement) error) ([]Measurement, []string, error) {
	ms, errs := readFile(path, check)
	warnings, err := Check(path, len(ms), errs)
	if err != nil {
		return nil, nil, err
	}
	return ms, warnings, nil
}

// lines is "line" for one and "lines" for any other count.
func lines(n int) string {
	if n == 1 {
		return "line"
	}
	return "lines"
}
