package measure

import (
	"strings"
	"testing"
)

// One decoder reads every line: a line that is not a record (an unknown
// field, a wrong type, a cut line, text after the record, not an object)
// is one bad line, and the good lines after it still read.
func TestLinesAfterBadLines(t *testing.T) {
	good := `{"schema":"blsim/measurement/v1","id":"r1","kind":"reported","soc":"rk3588","workload":"qwen3.5-35b-a3b","plan":{"mode":"native","engines":["big"],"threads":[4],"poll":50},"unit":"t/s","samples":[26.2,26.3],"median":26.25,"cv":0,"status":"ok"}`
	bad := []struct{ line, want string }{
		{`{"not": 1}`, `unknown field "not"`},
		{`{"id": 5}`, "cannot unmarshal number"},
		{`{"id": "x"`, "unexpected EOF"},
		{good + ` {}`, "text after the record"},
		{`[1,2]`, "cannot unmarshal array"},
		{`"str"`, "cannot unmarshal string"},
		{`12`, "cannot unmarshal number"},
		{`{"id": "x",,}`, "invalid character"},
	}
	lines := []string{good}
	for _, b := range bad {
		lines = append(lines, b.line, good)
	}
	ms, errs := Read(strings.NewReader(strings.Join(lines, "\n")), "f")
	if len(ms) != len(bad)+1 || len(errs) != len(bad) {
		t.Fatalf("%d good, %d bad lines: want %d and %d (%v)", len(ms), len(errs), len(bad)+1, len(bad), errs)
	}
	for i, b := range bad {
		if msg := errs[i].Error(); !strings.Contains(msg, "not a measurement: ") || !strings.Contains(msg, b.want) {
			t.Errorf("line %q: %q, want %q", b.line, msg, b.want)
		}
	}
	for _, m := range ms {
		if m.ID != "r1" || m.Median != 26.25 || m.Plan == nil || m.Plan.Engines[0] != "big" {
			t.Errorf("read back %+v", m)
		}
	}
}
