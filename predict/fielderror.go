package predict

import "fmt"

// FieldError is a request field that does not hold: Field names it
// ("engines", "threads", "fracs", "modes", "poll", "draws", "test", "run"
// for the ubatch count of the test, "sweep", "sensitivity"), Index the engine
// it is about (-1: none).
type FieldError struct {
	Field string
	Index int
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

func fieldErr(field string, i int, format string, a ...any) error {
	return &FieldError{Field: field, Index: i, Err: fmt.Errorf(format, a...)}
}
