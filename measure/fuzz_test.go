package measure

import (
	"strings"
	"testing"
)

// FuzzRead: any bytes read into measurements that validate and bad lines
// that each name the file and a line, one line apiece; never a panic.
func FuzzRead(f *testing.F) {
	good := `{"schema":"blsim/measurement/v1","id":"a","kind":"dispatcher","unit":"t/s","samples":[10,12,11],"median":11,"status":"ok","plan":{"mode":"native","engines":["big"],"threads":[1],"poll":50}}`
	for _, s := range []string{good + "\n", good + "\n" + good[:40], "garbage\n" + good, `{"schema":"blsim/measurement/v1","id":"x","kind":"k","median":1e-300,"unit":"t/s","status":"ok"}`, "\n\n", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, errs := Read(strings.NewReader(string(data)), "fuzz.jsonl")
		for _, m := range ms {
			if err := m.Validate(); err != nil {
				t.Fatalf("read a measurement that does not validate: %v", err)
			}
		}
		for _, err := range errs {
			if msg := err.Error(); !strings.HasPrefix(msg, "fuzz.jsonl") || strings.ContainsAny(msg, "\r\n") {
				t.Errorf("error %q: want one line naming the file", msg)
			}
		}
	})
}
