package llamabench

import (
	"bufio"
	"fmt"
	"io"
)

// Write prints recs to w in the given format, as llama-bench's printer for
// that format would: json ("[", the objects, "]"), jsonl (one object per
// line), csv (header and rows), md (a table and footer for each run of
// records with the same build; nothing for no records) or sql.
//
// Each record's typed fields are written; llama-bench's other fields come
// from Fields, or take llama-bench's default when Fields lacks them; fields
// of Fields that llama-bench does not know are written after its own (in csv
// and sql as extra columns), sorted by name.
func Write(w io.Writer, format Format, recs []Record) error {
	bw := bufio.NewWriter(w)
	switch format {
	case JSON:
		writeJSON(bw, recs)
	case JSONL:
		writeJSONL(bw, recs)
	case CSV:
		writeCSV(bw, recs)
	case Markdown:
		writeMarkdown(bw, recs)
	case SQL:
		writeSQL(bw, recs)
	default:
		return fmt.Errorf("llamabench: cannot write format %v", format)
	}
	return bw.Flush()
}
