package measure_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/blsim/blsim/measure"
)

// Read a measurements file whose second line is cut short (a run killed
// while it was being written): the good records come back, and the bad
// line as a *LineError naming the file and line; reading goes on.
func ExampleReadChecked() {
	const file = `{"schema":"blsim/measurement/v1","id":"native","kind":"reported","workload":"qwen3.5-35b-a3b","plan":{"mode":"native","engines":["big"],"fracs":[1],"threads":[4],"poll":50},"unit":"t/s","median":26.26,"cv":0,"status":"ok"}
{"schema":"blsim/measurement/v1","id":"tok
{"schema":"blsim/measurement/v1","id":"token","kind":"reported","workload":"qwen3.5-35b-a3b","plan":{"mode":"token","engines":["big","little"],"fracs":[0.88,0.12],"threads":[4,4],"poll":50},"unit":"t/s","median":26.24,"cv":0,"status":"ok"}
`
	ms, errs := measure.ReadChecked(strings.NewReader(file), "seed.jsonl", nil)
	for _, m := range ms {
		fmt.Printf("%s: %.2f %s\n", m.Label(), m.Median, m.Unit)
	}
	for _, err := range errs {
		var le *measure.LineError
		if errors.As(err, &le) {
			fmt.Printf("skipped %s line %d\n", le.File, le.Line)
		}
	}
	// Output:
	// native poll=50: 26.26 t/s
	// token f=0.12 poll=50: 26.24 t/s
	// skipped seed.jsonl line 2
}
