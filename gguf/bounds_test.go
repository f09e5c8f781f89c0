package gguf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 31, case 4: a header is read within MaxHeaderBytes, whatever it
// declares: a sparse file whose strings run past the bound, a pipe that
// never ends, many small arrays (each kept in memory at 80 bytes a value:
// a 24.8 MB header took 1.96 GB). What no bound stops is read.
func TestHeaderBounds(t *testing.T) {
	dir := t.TempDir()
	// Two 40 MB strings: each fits MaxStringBytes, together not the header.
	p := filepath.Join(dir, "sparse.gguf")
	var b bytes.Buffer
	le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString(Magic)
	le(uint32(3))
	le(uint64(0))
	le(uint64(2))
	le(uint64(1))
	b.WriteString("a")
	le(uint32(String))
	le(uint64(40 << 20))
	head := b.Bytes()
	var second bytes.Buffer
	binary.Write(&second, binary.LittleEndian, uint64(1))
	second.WriteString("b")
	binary.Write(&second, binary.LittleEndian, uint32(String))
	binary.Write(&second, binary.LittleEndian, uint64(40<<20))
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(head)
	f.WriteAt(second.Bytes(), int64(len(head))+40<<20)
	f.Truncate(int64(len(head)) + 40<<20 + int64(second.Len()) + 40<<20)
	f.Close()
	if _, err := Read(p); err == nil || !strings.Contains(err.Error(), "gguf.MaxHeaderBytes, 64 MiB") {
		t.Errorf("a sparse header past the bound: %v", err)
	}

	// A pipe that never ends: refused at the bound.
	if runtime.GOOS == "linux" {
		fifo := filepath.Join(dir, "endless.gguf")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		go func() {
			w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			defer w.Close()
			// MaxKVs keys, each an array of MaxArrayLen bytes: no
			// count bounds it (4 TiB), only MaxHeaderBytes. The code
			// before the fix read on until the writer stopped.
			le := func(v any) { binary.Write(w, binary.LittleEndian, v) }
			w.WriteString(Magic)
			le(uint32(3))
			le(uint64(0))
			le(uint64(MaxKVs))
			zeros := make([]byte, 1<<20)
			for i := 0; ; i++ {
				key := fmt.Sprintf("k%d", i)
				le(uint64(len(key)))
				w.WriteString(key)
				le(uint32(Array))
				le(uint32(Uint8))
				le(uint64(MaxArrayLen))
				for range MaxArrayLen / len(zeros) {
					if _, err := w.Write(zeros); err != nil {
						return
					}
				}
			}
		}()
		done := make(chan error, 1)
		go func() { _, err := Read(fifo); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "64 MiB") {
				t.Errorf("an endless pipe: %v", err)
			}
		case <-time.After(time.Minute):
			t.Error("an endless pipe: still reading after a minute")
		}
	}

	// Many small arrays: read, with at most MaxKeptElems values kept.
	many := newBuilder("")
	vals := make([]any, KeptArray)
	for i := range vals {
		vals[i] = uint64(i % 200)
	}
	for i := 0; i < 2*MaxKeptElems/KeptArray; i++ {
		many.kv("k"+strings.Repeat("x", i), Array, arr(Uint8, vals...))
	}
	data := many.bytes()
	h, err := ReadHeader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, kv := range h.KVs {
		kept += len(kv.Value.Elems)
	}
	if kept != MaxKeptElems {
		t.Errorf("kept %d array values of %d, want MaxKeptElems (%d)", kept, 2*MaxKeptElems, MaxKeptElems)
	}
}

// Issue 31, case 18: what llama.cpp's loader refuses, blsim refuses: an
// architecture padded with whitespace, a count stored as a float, the
// same tensor in two shards.
func TestLlamaCppRefuses(t *testing.T) {
	if _, err := func() (*Model, error) {
		b := qwen3moeBuilder(2)
		b.set("general.architecture", String, " qwen3moe ")
		m, err := b.model(t, "padded.gguf")
		if err != nil {
			return nil, err
		}
		_, err = m.Workload()
		return m, err
	}(); err == nil || !strings.Contains(err.Error(), `" qwen3moe " is not an architecture blsim maps`) {
		t.Errorf("a padded architecture: %v", err)
	}
	b := qwen3moeBuilder(2)
	b.set("qwen3moe.block_count", Float32, 2.0)
	m, err := b.model(t, "float.gguf")
	if err == nil {
		_, err = m.Workload()
	}
	if err == nil || !strings.Contains(err.Error(), "qwen3moe.block_count") || !strings.Contains(err.Error(), "not an integer") {
		t.Errorf("block_count as a float: %v", err)
	}
	dir := t.TempDir()
	whole := qwen3moeBuilder(2)
	// Two shards whose split.tensors.count counts the tensor twice, so
	// that only the duplicate is wrong: the first shard's first tensor is
	// in the second shard too. (The code before the fix mapped this.)
	n := len(whole.tensors) + 1
	per := (len(whole.tensors) + 1) / 2
	split := func(no int) *builder {
		return newBuilder("").kv("split.no", Uint16, uint64(no)).kv("split.count", Uint16, uint64(2)).kv("split.tensors.count", Int32, int64(n))
	}
	s0 := split(0)
	s0.kvs = append(append([]bkv(nil), whole.kvs...), s0.kvs...)
	s0.tensors = append(s0.tensors, whole.tensors[:per]...)
	first := s0.write(t, dir, "dup-00001-of-00002.gguf", 0)
	s1 := split(1)
	s1.tensors = append(append(s1.tensors, whole.tensors[per:]...), whole.tensors[0])
	s1.write(t, dir, "dup-00002-of-00002.gguf", 0)
	if _, err := Read(first); err == nil || !strings.Contains(err.Error(), "the tensor is in shard 1 too") {
		t.Errorf("a tensor in two shards: %v", err)
	}
	// A shard whose split.no is past its count (a panic before).
	bad := newBuilder("").kv("split.count", Uint16, uint64(2)).kv("split.no", Uint16, uint64(2)).write(t, dir, "x-00001-of-00002.gguf", 0)
	if _, err := Read(bad); err == nil || !strings.Contains(err.Error(), "split.no: 2 is not a shard of 2") {
		t.Errorf("split.no past the count: %v", err)
	}
}

// A general.name holding control characters is kept escaped: it is
// printed, and an ESC sequence would drive the terminal.
func TestNameEscaped(t *testing.T) {
	b := qwen3moeBuilder(2)
	b.set("general.name", String, "Qwen\x1b[2J\x1b[Hforged\u009b")
	m, err := b.model(t, "esc.gguf")
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != `Qwen\x1b[2J\x1b[Hforged\u009b` {
		t.Errorf("name %q", m.Name)
	}
}

// Shards lists a split model's files by llama.cpp's names, for the
// output guard: every shard is an input.
func TestShards(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"m-00001-of-00003.gguf", "m-00002-of-00003.gguf", "m-00001-of-00002.gguf", "other-00002-of-00003.gguf"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	got := Shards(filepath.Join(dir, "m-00003-of-00003.gguf"))
	if len(got) != 2 || filepath.Base(got[0]) != "m-00001-of-00003.gguf" || filepath.Base(got[1]) != "m-00002-of-00003.gguf" {
		t.Errorf("shards %q", got)
	}
	if Shards(filepath.Join(dir, "model.gguf")) != nil {
		t.Error("a file that is not a shard has shards")
	}
}
