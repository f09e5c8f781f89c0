package gguf

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRead feeds arbitrary bytes to the header reader and the mapping:
// they never panic, every rejection is one line, and what they accept is a
// workload that validates. The seeds are the fixtures' headers (their
// tensor data cut off, which keeps the inputs small) and the builders';
// `go test -fuzz FuzzRead ./gguf` explores from them.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.gguf"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		h, err := read(b)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:h.DataOffset])
	}
	f.Add(tinyHeader().bytes())
	f.Add(qwen3moeBuilder(2).bytes())
	f.Add(qwen35Builder().bytes())
	f.Add([]byte("GGUF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadHeader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			oneLineErr(t, err)
			return
		}
		if h.DataOffset < 0 || h.DataOffset > int64(len(data))+h.Alignment || h.DataEnd < h.DataOffset {
			t.Fatalf("data section %d..%d of a %d-byte file", h.DataOffset, h.DataEnd, len(data))
		}
		m, err := FromHeader(h, "fuzz.gguf")
		if err != nil {
			oneLineErr(t, err)
			return
		}
		w, err := m.Workload()
		if err != nil {
			oneLineErr(t, err)
		} else if err := w.Validate(); err != nil {
			t.Fatalf("mapped a workload that does not validate: %v", err)
		}
		if err := m.Summary(io.Discard, 64); err != nil {
			oneLineErr(t, err)
		}
	})
}

func oneLineErr(t *testing.T, err error) {
	t.Helper()
	if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || msg == "" {
		t.Fatalf("error is not one line: %q", msg)
	}
}
