package gguf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
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
	// Issue 31: split models (a split.no past its count panicked every
	// reader), counts at and past the bounds, many small arrays.
	for _, sp := range [][2]uint64{{2, 2}, {0, 2}, {1, 2}, {0, 1}, {5, 3}, {0, 65535}} {
		f.Add(newBuilder("").kv("split.count", Uint16, sp[1]).kv("split.no", Uint16, sp[0]).bytes())
		f.Add(qwen3moeBuilder(2).kv("split.count", Uint16, sp[1]).kv("split.no", Uint16, sp[0]).kv("split.tensors.count", Int32, int64(3)).bytes())
	}
	huge := newBuilder("")
	huge.kv("a", Array, arr(Uint8))
	b := huge.bytes()
	binary.LittleEndian.PutUint64(b[len(b)-8:], MaxArrayLen)
	f.Add(b)
	b = newBuilder("").bytes()
	binary.LittleEndian.PutUint64(b[16:], math.MaxUint64)
	f.Add(b)
	small := newBuilder("")
	for i := range 40 {
		vals := make([]any, KeptArray)
		for j := range vals {
			vals[j] = uint64(j % 7)
		}
		small.kv(fmt.Sprintf("k%d", i), Array, arr(Uint8, vals...))
	}
	f.Add(small.bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadHeader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			oneLineErr(t, err)
			return
		}
		if no, count, err := splitInfo(h); err == nil && count > 1 && count < 100 {
			// A shard: read it from a file named as llama.cpp names shard
			// no+1, which finds (or misses) the others beside it.
			p := filepath.Join(t.TempDir(), fmt.Sprintf("f-%05d-of-%05d.gguf", no+1, count))
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Read(p); err != nil {
				oneLineErr(t, err)
			}
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
