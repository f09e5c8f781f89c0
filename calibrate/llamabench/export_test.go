package llamabench

// Test-only helpers: nothing outside the tests calls them (deadcode).

// Format returns the format being read: the one given to NewReader, or once
// Next has been called, the one detected.
func (r *Reader) Format() Format { return r.format }
