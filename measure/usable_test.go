package measure

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheck: the one rule for bad lines. A crash's partial line, or bad
// lines up to a tenth, are warned about (five listed, the rest counted);
// more, or no good measurement, make the file unusable, with the first
// bad line named.
func TestCheck(t *testing.T) {
	bad := func(n int) []error {
		var errs []error
		for i := range n {
			errs = append(errs, &LineError{"m.jsonl", i + 1, "not a measurement"})
		}
		return errs
	}
	for _, tc := range []struct {
		name     string
		good     int
		errs     []error
		warnings []string
		err      string
	}{
		{"clean", 3, nil, nil, ""},
		{"crashed", 3, bad(1), []string{"skipped m.jsonl:1: not a measurement"}, ""},
		{"seven in seventy", 63, bad(7), []string{"skipped m.jsonl:1: not a measurement", "skipped m.jsonl:2: not a measurement",
			"skipped m.jsonl:3: not a measurement", "skipped m.jsonl:4: not a measurement", "skipped m.jsonl:5: not a measurement",
			"2 more bad lines in m.jsonl"}, ""},
		{"six in seventy", 64, bad(6), []string{"skipped m.jsonl:1: not a measurement", "skipped m.jsonl:2: not a measurement",
			"skipped m.jsonl:3: not a measurement", "skipped m.jsonl:4: not a measurement", "skipped m.jsonl:5: not a measurement",
			"1 more bad line in m.jsonl"}, ""},
		{"empty", 0, nil, nil, "m.jsonl has no measurements"},
		{"nothing readable", 0, bad(2), nil, "m.jsonl has no readable measurements (2 bad lines; first: m.jsonl:1: not a measurement)"},
		{"one unreadable", 0, bad(1), nil, "m.jsonl has no readable measurements (1 bad line; first: m.jsonl:1: not a measurement)"},
		{"too many bad", 2, bad(2), nil, "m.jsonl: 2 of its 4 lines are bad, more than a tenth (first: m.jsonl:1: not a measurement); fix or remove them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			warnings, err := Check("m.jsonl", tc.good, tc.errs)
			if fmt.Sprint(warnings) != fmt.Sprint(tc.warnings) {
				t.Errorf("warnings %q, want %q", warnings, tc.warnings)
			}
			if got := fmt.Sprint(err); (tc.err == "" && err != nil) || (tc.err != "" && got != tc.err) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}

func TestReadUsable(t *testing.T) {
	dir := t.TempDir()
	crashed := filepath.Join(dir, "crashed.jsonl")
	w, err := Create(crashed)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(sample("a"))
	w.Write(sample("b"))
	w.Close()
	f, _ := os.OpenFile(crashed, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"schema":"blsim/measurement/v1","id":"half`)
	f.Close()
	ms, warnings, err := ReadUsable(crashed, nil)
	if err != nil || len(ms) == 0 || len(warnings) != 1 || !strings.HasPrefix(warnings[0], "skipped "+crashed+":") {
		t.Errorf("crashed file: %d measurements, warnings %q, %v", len(ms), warnings, err)
	}
	if _, _, err := ReadUsable(filepath.Join(dir, "none.jsonl"), nil); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}
