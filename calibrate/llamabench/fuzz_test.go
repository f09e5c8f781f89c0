package llamabench

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzParse reads arbitrary input in every format. It must never panic,
// every error must be a *SyntaxError naming the file and a line, every
// record must have a throughput, and the records must be writable in every
// format and readable again without panicking.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"n_prompt": 512, "avg_ts": 26.26, "samples_ns": [ 1 ],"samples_ts": [ 2 ]}`))
	f.Add([]byte("| model | test | t/s |\n| - | -: | -: |\n| m | pp512 | 26.26 ± 0.12 |\n\nbuild: abc (1)\n"))
	// Issue 31: sizes no run has, and a name that drives a terminal.
	f.Add([]byte(`{"n_prompt": 1048576, "n_ubatch": 1, "n_depth": 4611686018427387904, "avg_ts": 1e308, "model_type": "\u001b[2J"}`))
	f.Add([]byte("| model | test | t/s |\n| - | -: | -: |\n| \x1b[2J | pp1048576 @ d4611686018427387904 | 1e308 ± 1e308 |\n"))
	formats := []Format{Auto, JSON, JSONL, CSV, Markdown, SQL}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range formats {
			recs, errs := Parse(bytes.NewReader(data), "fuzz", format)
			for _, err := range errs {
				var se *SyntaxError
				if !errors.As(err, &se) || se.FileName != "fuzz" || se.Line < 1 {
					t.Fatalf("%v: bad error %#v", format, err)
				}
			}
			for _, r := range recs {
				if !(r.AvgTS > 0) || r.Line < 1 {
					t.Fatalf("%v: record with AvgTS %v at line %d", format, r.AvgTS, r.Line)
				}
			}
			for _, out := range formats[1:] {
				var b bytes.Buffer
				if err := Write(&b, out, recs); err != nil {
					t.Fatalf("Write %v: %v", out, err)
				}
				Parse(&b, "again", out)
			}
		}
	})
}
