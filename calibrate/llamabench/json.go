package llamabench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// jsonDecoder reads llama-bench's json output: an array of objects, each
// pretty-printed over many lines. It finds each object by matching braces,
// so that one bad object costs only itself; it also reads objects outside
// an array and arrays written one after another.
type jsonDecoder struct {
	src      *source
	depth    int // arrays open at the top level
	openLine int // line of the last '[' opened
}

func (d *jsonDecoder) next() (Record, error) {
	for {
		c, err := d.src.readByte()
		if err == io.EOF {
			if d.depth > 0 {
				d.depth = 0
				return Record{}, d.src.errorf(d.openLine, "unexpected end of input: array not closed")
			}
			return Record{}, io.EOF
		}
		if err != nil {
			return Record{}, err
		}
		switch c {
		case ' ', '\t', '\r', '\n', ',':
		case '[':
			d.depth++
			d.openLine = d.src.line
		case ']':
			if d.depth == 0 {
				return Record{}, d.src.errorf(d.src.line, "unexpected ]")
			}
			d.depth--
		case '{':
			return d.object()
		default:
			line := d.src.line
			if err := d.src.skipLine(); err != nil && err != io.EOF {
				return Record{}, err
			}
			return Record{}, d.src.errorf(line, "unexpected %q outside an object", c)
		}
	}
}

// object reads one object whose '{' has been read and makes a record of it.
func (d *jsonDecoder) object() (Record, error) {
	start := d.src.line
	buf := []byte{'{'}
	depth, inString, escaped := 1, false, false
	for depth > 0 {
		c, err := d.src.readByte()
		if err == io.EOF {
			d.depth = 0 // one error for a truncated file is enough
			return Record{}, d.src.errorf(start, "unexpected end of input in object")
		}
		if err != nil {
			return Record{}, err
		}
		buf = append(buf, c)
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	return decodeObject(d.src, buf, start)
}

// decodeObject makes a record of the JSON object b, which starts at line.
func decodeObject(src *source, b []byte, line int) (Record, error) {
	fields, err := objectFields(b)
	if err != nil {
		at := line
		var se *json.SyntaxError
		if errors.As(err, &se) && se.Offset > 0 && se.Offset <= int64(len(b)) {
			at += bytes.Count(b[:se.Offset-1], []byte("\n"))
		}
		return Record{}, src.errorf(at, "invalid JSON: %v", err)
	}
	rec, err := buildRecord(fields, line, nil)
	if err != nil {
		return Record{}, src.errorf(line, "%v", err)
	}
	return rec, nil
}

// objectFields returns the members of the JSON object b as text: strings
// unquoted, other values as written; null members are left out.
func objectFields(b []byte) (map[string]string, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	fields := make(map[string]string, len(raw))
	for k, v := range raw {
		switch {
		case string(v) == "null":
		case v[0] == '"':
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return nil, err
			}
			fields[k] = s
		default:
			fields[k] = string(v)
		}
	}
	return fields, nil
}

// writeJSON writes recs as llama-bench's json printer does.
func writeJSON(w *bufio.Writer, recs []Record) {
	w.WriteString("[\n")
	for i := range recs {
		if i > 0 {
			w.WriteString(",\n")
		}
		w.WriteString("  {\n")
		for _, kv := range jsonMembers(&recs[i]) {
			fmt.Fprintf(w, "    \"%s\": %s,\n", kv[0], kv[1])
		}
		fmt.Fprintf(w, "    \"samples_ns\": [ %s ],\n", joinSamplesNS(recs[i].SamplesNS))
		fmt.Fprintf(w, "    \"samples_ts\": [ %s ]\n", joinSamplesTS(recs[i].SamplesTS))
		w.WriteString("  }")
	}
	w.WriteString("\n]\n")
}

// jsonMembers returns the name and JSON text of each member of rec before
// the samples: llama-bench's fields, then extra fields.
func jsonMembers(rec *Record) [][2]string {
	var kv [][2]string
	for i := range schema {
		f := &schema[i]
		kv = append(kv, [2]string{f.name, jsonValue(f.kind, value(rec, f))})
	}
	for _, k := range extraKeys(*rec) {
		kv = append(kv, [2]string{escapeJSON(k), jsonExtra(rec.Fields[k])})
	}
	return kv
}

// jsonValue is llama-bench's format_json_value: strings quoted, booleans as
// true or false, numbers bare (and booleans, which older llama-bench versions
// wrote for some of its numeric fields). Any other value is quoted, so that
// the output stays valid JSON.
func jsonValue(k kind, v string) string {
	switch {
	case k == kindBool && v == "0":
		return "false"
	case k == kindBool && v == "1":
		return "true"
	case (k == kindInt || k == kindFloat) && (isJSONNumber(v) || v == "true" || v == "false"):
		return v
	}
	return `"` + escapeJSON(v) + `"`
}

// jsonExtra writes the value of a field this package does not know: bare if
// it reads as a JSON number, boolean, array or object, quoted otherwise.
func jsonExtra(v string) string {
	t := strings.TrimSpace(v)
	if t != "" && (isJSONNumber(t) || t == "true" || t == "false" ||
		(t[0] == '[' || t[0] == '{') && json.Valid([]byte(t))) {
		return t
	}
	return `"` + escapeJSON(v) + `"`
}

func isJSONNumber(v string) bool {
	return v != "" && (v[0] == '-' || v[0] >= '0' && v[0] <= '9') && json.Valid([]byte(v))
}

// escapeJSON escapes as llama-bench does: quote, backslash and control
// characters; other bytes are written as they are.
func escapeJSON(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c <= 0x1f:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func joinSamplesNS(ns []int64) string {
	s := make([]string, len(ns))
	for i, v := range ns {
		s[i] = strconv.FormatInt(v, 10)
	}
	return strings.Join(s, ", ")
}

func joinSamplesTS(ts []float64) string {
	s := make([]string, len(ts))
	for i, v := range ts {
		s[i] = formatG(v)
	}
	return strings.Join(s, ", ")
}
