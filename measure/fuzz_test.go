package measure

import (
	"strings"
	"testing"
)

// FuzzRead: any bytes read into measurements that validate and bad lines
// that each name the file and a line, one line apiece; never a panic.
func FuzzRead(f *testing.F) {
	good := `{"schema":"blsim/measurement/v1","id":"a","kind":"dispatcher","unit":"t/s","samples":[10,12,11],"median":11,"status":"ok","plan":{"mode":"native","engines":["big"],"threads":[1],"poll":50}}`
	for _, s := range []string{good + "\n", good + "\n" + good[:40], "garbage\n" + good, `{"schema":"blsim/measurement/v1","id":"x","kind":"k","median":1e-300,"unit":"t/s","status":"ok"}`, "\n\n", "",
		// Issue 31: runs no prediction can make, a CV of 1e308, a sample
		// below the range, a plan of no shape.
		strings.Replace(good, `"status"`, `"run":{"prompt_tokens":1048576,"ubatch":1},"status"`, 1),
		strings.Replace(good, `"status"`, `"run":{"prompt_tokens":512,"ubatch":512,"depth":4611686018427387904},"status"`, 1),
		strings.Replace(good, `"median":11`, `"median":11,"cv":1e308`, 1), strings.Replace(good, `[10,12,11]`, `[10,1e-9,11]`, 1),
		strings.Replace(good, `"threads":[1]`, `"threads":[100000]`, 1), strings.Replace(good, `"mode":"native"`, `"mode":"token","fracs":[0.5,0.7]`, 1),
		strings.Repeat("garbage\n", 300) + good} {
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
		if len(errs) > MaxKeptErrors+1 {
			t.Fatalf("%d errors kept", len(errs))
		}
	})
}
