package measure

import (
	"encoding/json"
	"errors"
	"io"
)

// lineDecoder decodes the lines of a measurements file, one record each,
// with one json.Decoder fed a line at a time: a decoder made per line
// costs its buffer each time, the most of what reading a file of many
// short records allocates.
type lineDecoder struct {
	src  lineSource
	dec  *json.Decoder
	fast scanner // fastdecode.go: the lines it can decode alone
}

// lineSource is the line the decoder reads, then io.EOF.
type lineSource struct{ b []byte }

func (s *lineSource) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.b)
	s.b = s.b[n:]
	return n, nil
}

// errBadLine stands for the message of a bad line parse was told it
// need not make.
var errBadLine = errors.New("not a measurement")

// parse decodes and validates one line (without surrounding space) into
// m, which is zero: one JSON object of known fields and nothing after it.
// The scanner decodes the lines it can alone (fastdecode.go), and
// encoding/json the others and those whose error message is wanted: when
// message is false, a line the scanner finds invalid is errBadLine.
func (d *lineDecoder) parse(text []byte, message bool, m *Measurement) error {
	switch d.fast.fastDecode(text, m) {
	case decoded:
		return m.Validate()
	case invalid:
		if !message {
			return errBadLine
		}
	}
	*m = Measurement{}
	return d.viaJSON(text, m)
}

// viaJSON decodes and validates one line with encoding/json.
func (d *lineDecoder) viaJSON(text []byte, m *Measurement) error {
	d.src.b = text
	if d.dec == nil {
		d.dec = json.NewDecoder(&d.src)
		d.dec.DisallowUnknownFields()
	}
	start := d.dec.InputOffset()
	err := d.dec.Decode(m)
	if d.dec.InputOffset()-start != int64(len(text)) {
		// The value did not span the line: text after it, or a syntax
		// error, which a decoder keeps. The next line gets a new one.
		// (An unknown field or a wrong type leaves the decoder at the
		// end of the value, ready for the next line.)
		d.dec = nil
		if err == nil {
			err = errors.New("text after the record")
		}
	}
	if err != nil {
		return notMeasurement{err}
	}
	return m.Validate()
}

// notMeasurement is a line that is not a record, its message made only
// when asked: a file of a million bad lines keeps a hundred.
type notMeasurement struct{ err error }

func (e notMeasurement) Error() string { return "not a measurement: " + e.err.Error() }
func (e notMeasurement) Unwrap() error { return e.err }
