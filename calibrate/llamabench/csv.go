package llamabench

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"strings"
)

// csvDecoder reads llama-bench's csv output: a header row of field names,
// then one row per test. A row starting with "build_commit" is read as a new
// header, so that outputs of several runs may be concatenated.
type csvDecoder struct {
	src    *source
	cr     *csv.Reader
	header []string
}

func newCSVDecoder(src *source) *csvDecoder {
	src.skipBOM()
	cr := csv.NewReader(src.br)
	cr.FieldsPerRecord = -1
	return &csvDecoder{src: src, cr: cr}
}

func (d *csvDecoder) next() (Record, error) {
	for {
		row, err := d.cr.Read()
		var pe *csv.ParseError
		switch {
		case err == io.EOF:
			return Record{}, io.EOF
		case errors.As(err, &pe) && pe.Err != csv.ErrFieldCount:
			d.src.content = true
			return Record{}, d.src.errorf(pe.StartLine, "invalid csv: %v", pe.Err)
		case err != nil:
			return Record{}, err
		}
		d.src.content = true
		line, _ := d.cr.FieldPos(0)
		if d.header == nil || row[0] == "build_commit" {
			d.header = row
			continue
		}
		if len(row) != len(d.header) {
			return Record{}, d.src.errorf(line, "row has %d fields, header has %d", len(row), len(d.header))
		}
		fields := make(map[string]string, len(row))
		for i, name := range d.header {
			if name = strings.TrimSpace(name); name != "" {
				fields[name] = row[i]
			}
		}
		rec, err := buildRecord(fields, line, nil)
		if err != nil {
			return Record{}, d.src.errorf(line, "%v", err)
		}
		return rec, nil
	}
}

// writeCSV writes recs as llama-bench's csv printer does: a bare header, then
// every value quoted. Extra fields of any record become extra columns after
// llama-bench's, empty where a record lacks them.
func writeCSV(w *bufio.Writer, recs []Record) {
	extra := extraKeys(recs...)
	for i, name := range append(FieldNames(), extra...) {
		if i > 0 {
			w.WriteString(",")
		}
		if strings.ContainsAny(name, "\",\r\n") || strings.TrimSpace(name) != name {
			name = csvQuote(name)
		}
		w.WriteString(name)
	}
	w.WriteString("\n")
	for i := range recs {
		vs := append(values(&recs[i]), extraValues(&recs[i], extra)...)
		for j, v := range vs {
			if j > 0 {
				w.WriteString(",")
			}
			w.WriteString(csvQuote(v))
		}
		w.WriteString("\n")
	}
}

func extraValues(rec *Record, keys []string) []string {
	vs := make([]string, len(keys))
	for i, k := range keys {
		vs[i] = rec.Fields[k]
	}
	return vs
}

// csvQuote is llama-bench's escape_csv: the value in quotes, quotes doubled.
func csvQuote(v string) string {
	return `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
}
