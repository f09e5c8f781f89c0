package llamabench

import (
	"bufio"
	"fmt"
	"strings"
)

// jsonlDecoder reads llama-bench's jsonl output: one JSON object per line.
type jsonlDecoder struct {
	src *source
}

func (d *jsonlDecoder) next() (Record, error) {
	for {
		l, n, err := d.src.readLine()
		if err != nil {
			return Record{}, err
		}
		l = strings.TrimSpace(l)
		switch {
		case l == "":
			continue
		case l[0] != '{':
			return Record{}, d.src.errorf(n, "not a JSON object: %s", quote(l))
		}
		return decodeObject(d.src, []byte(l), n)
	}
}

// writeJSONL writes recs as llama-bench's jsonl printer does, including its
// missing space before "samples_ts".
func writeJSONL(w *bufio.Writer, recs []Record) {
	for i := range recs {
		w.WriteString("{")
		for _, kv := range jsonMembers(&recs[i]) {
			fmt.Fprintf(w, "\"%s\": %s, ", kv[0], kv[1])
		}
		fmt.Fprintf(w, "\"samples_ns\": [ %s ],", joinSamplesNS(recs[i].SamplesNS))
		fmt.Fprintf(w, "\"samples_ts\": [ %s ]", joinSamplesTS(recs[i].SamplesTS))
		w.WriteString("}\n")
	}
}
