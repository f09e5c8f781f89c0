package llamabench

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Reader reads llama-bench records from one input, one at a time.
type Reader struct {
	src    *source
	format Format
	dec    decoder
	n      int   // records and syntax errors returned so far
	err    error // io.EOF or a read error, returned from then on
}

// decoder reads the records of one format. next returns io.EOF at the end,
// a *SyntaxError for a bad record, or another error when reading failed.
type decoder interface {
	next() (Record, error)
}

// NewReader returns a Reader of r, which holds output of llama-bench in the
// given format; Auto detects it from the first line. name is the file name
// that errors report.
func NewReader(r io.Reader, name string, format Format) *Reader {
	return &Reader{src: newSource(r, name), format: format}
}

// Next returns the next record. At the end of the input it returns io.EOF.
// A *SyntaxError concerns one record or line; Next can be called again to
// read on. An input with no records at all gives one *SyntaxError ("empty
// input" or "no records") before io.EOF. Any other error is from reading
// and is returned again by every later call.
func (r *Reader) Next() (Record, error) {
	if r.err != nil {
		return Record{}, r.err
	}
	if r.dec == nil {
		r.start()
	}
	rec, err := r.dec.next()
	var se *SyntaxError
	switch {
	case err == io.EOF && r.n == 0:
		r.n++
		msg := "no records"
		if !r.src.content {
			msg = "empty input"
		}
		return Record{}, r.src.errorf(1, "%s", msg)
	case err == nil, errors.As(err, &se):
		r.n++
		return rec, err
	}
	r.err = err
	return Record{}, err
}

// start detects the format if need be and makes the decoder.
func (r *Reader) start() {
	if r.format == Auto {
		data, err := r.src.br.Peek(peekSize)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			r.dec = failDecoder{err}
			return
		}
		f, err := DetectFormat(data)
		switch {
		case err == ErrEmpty:
			r.dec = failDecoder{io.EOF}
			return
		case err != nil:
			r.src.content = true
			line := 1 + bytes.Count(data[:len(data)-len(bytes.TrimLeft(data, " \t\r\n"))], []byte("\n"))
			r.dec = &onceDecoder{err: r.src.errorf(line, "cannot detect the format (want json, jsonl, csv, md or sql)")}
			return
		}
		r.format = f
	}
	switch r.format {
	case JSON:
		r.dec = &jsonDecoder{src: r.src}
	case JSONL:
		r.dec = &jsonlDecoder{src: r.src}
	case CSV:
		r.dec = newCSVDecoder(r.src)
	case Markdown:
		r.dec = &mdDecoder{src: r.src}
	case SQL:
		r.dec = &sqlDecoder{src: r.src}
	default:
		r.dec = failDecoder{errors.New("llamabench: unknown format " + r.format.String())}
	}
}

// failDecoder always returns err.
type failDecoder struct{ err error }

func (d failDecoder) next() (Record, error) { return Record{}, d.err }

// onceDecoder returns err once, then io.EOF.
type onceDecoder struct{ err error }

func (d *onceDecoder) next() (Record, error) {
	err := d.err
	if err == nil {
		return Record{}, io.EOF
	}
	d.err = nil
	return Record{}, err
}

// Parse reads all records of r. It returns the good records and, in order,
// every error: *SyntaxErrors for bad records, and last the read error that
// stopped it, if any.
func Parse(r io.Reader, name string, format Format) ([]Record, []error) {
	rd := NewReader(r, name, format)
	var recs []Record
	var errs []error
	for {
		rec, err := rd.Next()
		var se *SyntaxError
		switch {
		case err == io.EOF:
			return recs, errs
		case err == nil:
			recs = append(recs, rec)
		case errors.As(err, &se):
			errs = append(errs, err)
		default:
			return recs, append(errs, err)
		}
	}
}
