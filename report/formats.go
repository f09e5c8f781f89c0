package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Format is how a table is written, as llama-bench's -o names them:
// text (blsim's aligned table), md, csv, json (one document) or jsonl
// (one record a line).
type Format string

const (
	FormatText  Format = "text"
	FormatMD    Format = "md"
	FormatCSV   Format = "csv"
	FormatJSON  Format = "json"
	FormatJSONL Format = "jsonl"
)

// Formats are every Format, in the order help lists them.
var Formats = []Format{FormatText, FormatMD, FormatCSV, FormatJSON, FormatJSONL}

// ParseFormat reads -o's value; "" is text.
func ParseFormat(s string) (Format, error) {
	if s == "" {
		return FormatText, nil
	}
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("%q: want text, md, csv, json or jsonl", s)
}

// Column is one column of a table: its name in csv and json (llama-bench's
// field name where it has one), its name in text and md (llama-bench's
// markdown name), whether it is a number (right-aligned in md), and its
// cell of row i.
type Column struct {
	Field, Title string
	Number       bool
	Cell         func(i int) string
}

// WriteTable writes n rows in format f: text and md with the titles, csv
// with the field names; json writes doc, jsonl record(i) per row.
func WriteTable(w io.Writer, f Format, cols []Column, n int, doc any, record func(i int) any) error {
	switch f {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	case FormatJSONL:
		enc := json.NewEncoder(w)
		for i := range n {
			if err := enc.Encode(record(i)); err != nil {
				return err
			}
		}
		return nil
	case FormatCSV:
		cw := csv.NewWriter(w)
		head := make([]string, len(cols))
		for j, c := range cols {
			head[j] = c.Field
		}
		if err := cw.Write(head); err != nil {
			return err
		}
		for i := range n {
			rec := make([]string, len(cols))
			for j, c := range cols {
				rec[j] = c.Cell(i)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	case FormatMD:
		return markdownTable(w, cols, n)
	case FormatText, "":
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		for _, c := range cols {
			fmt.Fprintf(tw, "%s\t", c.Title)
		}
		fmt.Fprintln(tw)
		for i := range n {
			for _, c := range cols {
				fmt.Fprintf(tw, "%s\t", c.Cell(i))
			}
			fmt.Fprintln(tw)
		}
		return tw.Flush()
	}
	return fmt.Errorf("format %q: want text, md, csv, json or jsonl", f)
}

// markdownTable is a table as llama-bench prints it: padded cells, a rule
// of dashes with numbers right-aligned (---:).
func markdownTable(w io.Writer, cols []Column, n int) error {
	width := make([]int, len(cols))
	for j, c := range cols {
		width[j] = max(len(c.Title), 3)
		for i := range n {
			width[j] = max(width[j], len(c.Cell(i)))
		}
	}
	line := func(cell func(j int) string) {
		var b strings.Builder
		b.WriteString("|")
		for j, c := range cols {
			v := cell(j)
			pad := strings.Repeat(" ", width[j]-len(v))
			if c.Number {
				v = pad + v
			} else {
				v += pad
			}
			b.WriteString(" " + v + " |")
		}
		fmt.Fprintln(w, b.String())
	}
	line(func(j int) string { return cols[j].Title })
	line(func(j int) string {
		if cols[j].Number {
			return strings.Repeat("-", width[j]-1) + ":"
		}
		return strings.Repeat("-", width[j])
	})
	for i := range n {
		line(func(j int) string { return cols[j].Cell(i) })
	}
	return nil
}
