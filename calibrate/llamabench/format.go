package llamabench

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Format is one of llama-bench's output formats, as chosen with its -o flag.
type Format int

const (
	// Auto asks a Reader to detect the format with DetectFormat.
	Auto Format = iota
	JSON
	JSONL
	CSV
	Markdown
	SQL
)

var formatNames = [...]string{Auto: "auto", JSON: "json", JSONL: "jsonl", CSV: "csv", Markdown: "md", SQL: "sql"}

// String returns the name llama-bench's -o flag takes: "json", "jsonl",
// "csv", "md" or "sql"; "auto" for Auto.
func (f Format) String() string {
	if f < 0 || int(f) >= len(formatNames) {
		return fmt.Sprintf("Format(%d)", int(f))
	}
	return formatNames[f]
}

// ParseFormat returns the Format named s, as String writes it; "markdown" is
// also accepted.
func ParseFormat(s string) (Format, error) {
	if s == "markdown" {
		return Markdown, nil
	}
	for f, name := range formatNames {
		if s == name {
			return Format(f), nil
		}
	}
	return 0, fmt.Errorf("llamabench: unknown format %s (want json, jsonl, csv, md or sql)", quote(s))
}

// ErrEmpty is returned by DetectFormat for input with nothing but white space.
var ErrEmpty = errors.New("llamabench: empty input")

// utf8BOM is the byte order mark some editors put at the start of a file.
var utf8BOM = []byte("\xef\xbb\xbf")

// DetectFormat guesses the format of llama-bench output from its first
// non-blank line: "[" starts json; "{" alone starts json (a pretty-printed
// object) and "{" followed by more starts jsonl; "|" starts markdown;
// "CREATE TABLE" or "INSERT INTO" starts sql; and a comma-separated list of
// field names is a csv header. data need only hold the first line.
func DetectFormat(data []byte) (Format, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	var line string
	for len(data) > 0 && line == "" {
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = strings.TrimSpace(string(l))
	}
	switch {
	case line == "":
		return Auto, ErrEmpty
	case line[0] == '[':
		return JSON, nil
	case line == "{":
		return JSON, nil
	case line[0] == '{':
		return JSONL, nil
	case line[0] == '|':
		return Markdown, nil
	case hasPrefixFold(line, "CREATE TABLE"), hasPrefixFold(line, "INSERT INTO"):
		return SQL, nil
	case isCSVHeader(line):
		return CSV, nil
	}
	return Auto, fmt.Errorf("llamabench: cannot detect the format of a file starting %s", quote(line))
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// isCSVHeader reports whether line is at least two comma-separated names made
// of letters, digits and underscores, each possibly quoted.
func isCSVHeader(line string) bool {
	names := strings.Split(line, ",")
	if len(names) < 2 {
		return false
	}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if len(n) >= 2 && n[0] == '"' && n[len(n)-1] == '"' {
			n = n[1 : len(n)-1]
		}
		if n == "" {
			return false
		}
		for _, c := range n {
			if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}
