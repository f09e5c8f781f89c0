package measure

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// lineDecoder decodes the lines of a measurements file, one record each,
// with one json.Decoder fed a line at a time: a decoder made per line
// costs its buffer each time, the most of what reading a file of many
// short records allocates.
type lineDecoder struct {
	src lineSource
	dec *json.Decoder
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

// parse decodes and validates one line (without surrounding space): one
// JSON object of known fields and nothing after it.
func (d *lineDecoder) parse(text []byte) (Measurement, error) {
	var m Measurement
	d.src.b = text
	if d.dec == nil {
		d.dec = json.NewDecoder(&d.src)
		d.dec.DisallowUnknownFields()
	}
	err := d.dec.Decode(&m)
	if err == nil && (len(d.src.b) > 0 || buffered(d.dec) > 0) {
		err = errors.New("text after the record")
	}
	if err != nil {
		// A decoder keeps its error, and its buffer what is left of the
		// line: the next line gets a new one.
		d.dec = nil
		return m, fmt.Errorf("not a measurement: %w", err)
	}
	return m, m.Validate()
}

// buffered is how many bytes dec has read past the value it decoded.
func buffered(dec *json.Decoder) int {
	if r, ok := dec.Buffered().(*bytes.Reader); ok {
		return r.Len()
	}
	return 1 // not known: taken as text after the record
}
