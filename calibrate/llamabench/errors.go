package llamabench

import "fmt"

// SyntaxError reports a record, or a line, that could not be read. A Reader
// that returns a SyntaxError can go on reading: the error concerns only the
// record that starts at Line.
type SyntaxError struct {
	FileName string // the name given to NewReader
	Line     int    // 1-based line where the bad record or line starts
	Msg      string // what is wrong
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.FileName, e.Line, e.Msg)
}

// quote shortens s for an error message and quotes it.
func quote(s string) string {
	const max = 40
	if len(s) > max {
		return fmt.Sprintf("%q...", s[:max])
	}
	return fmt.Sprintf("%q", s)
}
