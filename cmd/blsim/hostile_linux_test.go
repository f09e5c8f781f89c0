package main

// BenchmarkHostileInputs: the time and peak memory of blsim on the
// hostile inputs of issue 31, each read by the command that takes it, as
// one process per run (this test binary as blsim), its peak resident set
// from the kernel (its VmHWM as it ends: getrusage's ru_maxrss of a child
// would include this benchmark's own peak, which it inherits through
// vfork). The guarantee (docs/guarantees.md): every reader under 256 MB
// and 2 s on a header or file of up to 64 MB.
//
//	go test -c -o blsim.test ./cmd/blsim
//	blsim.test -test.run '^$' -test.bench HostileInputs -test.benchtime 3x

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/blsim/blsim/gguf"
)

// hostile is one input and the command that reads it.
type hostile struct {
	name string
	args []string
	// make writes the input (the path is dir/file) and, for a pipe,
	// returns the writer to start with each run.
	make func(b *testing.B, path string) func()
	file string
}

func BenchmarkHostileInputs(b *testing.B) {
	dir := b.TempDir()
	cases := []hostile{
		{"gguf-24.8MB-small-arrays", []string{"workloads", "show", "--gguf"}, smallArrays(24_800_000), "a.gguf"},
		{"gguf-64MB-header", []string{"workloads", "show", "--gguf"}, bigTokenizer(60 << 20), "t.gguf"},
		{"gguf-4.3GB-sparse", []string{"workloads", "show", "--gguf"}, sparseArrays(4_300_000_000), "s.gguf"},
		{"gguf-endless-pipe", []string{"workloads", "show", "--gguf"}, endlessPipe, "p.gguf"},
		{"yaml-alias-bomb-41KB", []string{"predict", "--soc"}, text(aliasBombText(41_000)), "bomb.yaml"},
		{"yaml-alias-bomb-186KB", []string{"predict", "--soc"}, text(aliasBombText(186_000)), "bomb2.yaml"},
		{"yaml-60000-keys", []string{"predict", "--soc"}, text(manyKeys(60000)), "keys.yaml"},
		{"yaml-64MiB-flat-list", []string{"predict", "--soc"}, text(strings.Repeat("- 1\n", 16<<20)), "list.yaml"},
		{"jsonl-20MB-bad-lines", []string{"validate", "--soc", "rk3588", "--measurements"}, text(strings.Repeat("{\"not\": \"a record\"}\n", 20_000_000/21)), "bad.jsonl"},
		{"jsonl-64MB-good-lines", []string{"validate", "--soc", "rk3588", "--measurements"}, goodLines(64 << 20), "good.jsonl"},
		{"jsonl-64MB-real-workload-yaml", []string{"validate", "--soc", "rk3588", "--measurements"}, realRecords(64 << 20), "real.jsonl"},
		{"jsonl-1.1GB-sparse", []string{"validate", "--soc", "rk3588", "--measurements"}, sparse(1_100_000_000), "sparse.jsonl"},
		{"jsonl-prompt-2^20-ubatch-1", []string{"validate", "--soc", "rk3588", "--measurements"}, hugeRun, "huge.jsonl"},
	}
	hwm := filepath.Join(dir, "hwm")
	for _, c := range cases {
		path := filepath.Join(dir, c.file)
		b.Run(c.name, func(b *testing.B) {
			// Written here, so that -bench picks which inputs are made;
			// b.Loop times only the loop.
			start := c.make(b, path)
			var peak int64
			var last string
			for b.Loop() {
				if start != nil {
					start()
				}
				cmd := blsimBench(b, append(c.args, path)...)
				cmd.Env = append(cmd.Env, "BLSIM_TEST_HWM="+hwm)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				_ = os.Remove(hwm)
				_ = cmd.Run()
				kb, err := peakKB(hwm)
				if err != nil {
					b.Fatal(err)
				}
				peak = max(peak, kb)
				last = strings.TrimSpace(stderr.String())
			}
			b.ReportMetric(float64(peak)/1024, "peak-MB")
			if i := strings.LastIndexByte(last, '\n'); i >= 0 {
				last = last[i+1:]
			}
			b.Log(last)
		})
	}
}

// peakKB reads the VmHWM line writePeakRSS wrote, in kB.
func peakKB(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("the child's peak resident set: %w", err)
	}
	var kb int64
	if _, err := fmt.Sscanf(strings.TrimSpace(string(b)), "VmHWM: %d kB", &kb); err != nil {
		return 0, fmt.Errorf("%s: %q: %w", path, b, err)
	}
	return kb, nil
}

func blsimBench(b *testing.B, args ...string) *exec.Cmd {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), "BLSIM_TEST_MAIN=1")
	return cmd
}

func text(s string) func(*testing.B, string) func() {
	return func(b *testing.B, path string) func() {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			b.Fatal(err)
		}
		return nil
	}
}

// le is a GGUF header under construction.
type le struct{ bytes.Buffer }

func (h *le) put(vs ...any) {
	for _, v := range vs {
		if s, ok := v.(string); ok {
			binary.Write(h, binary.LittleEndian, uint64(len(s)))
			h.WriteString(s)
			continue
		}
		binary.Write(h, binary.LittleEndian, v)
	}
}

func ggufStart(nkv uint64) *le {
	h := &le{}
	h.WriteString(gguf.Magic)
	h.put(uint32(3), uint64(0), nkv)
	return h
}

// smallArrays: keys of 4,096-byte arrays (kept in memory, 80 bytes a
// value, before issue 31) up to size bytes.
func smallArrays(size int) func(*testing.B, string) func() {
	return func(b *testing.B, path string) func() {
		n := size / (4096 + 32)
		h := ggufStart(uint64(n))
		for i := range n {
			h.put(fmt.Sprintf("k%07d", i), uint32(gguf.Array), uint32(gguf.Uint8), uint64(4096))
			h.Write(make([]byte, 4096))
		}
		if err := os.WriteFile(path, h.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		return nil
	}
}

// bigTokenizer: a readable header of about size bytes, most of it one
// array of strings (a vocabulary), then the mapping fails (no model).
func bigTokenizer(size int) func(*testing.B, string) func() {
	return func(b *testing.B, path string) func() {
		h := ggufStart(2)
		h.put("general.architecture", uint32(gguf.String), "llama")
		n := size / 24
		h.put("tokenizer.ggml.tokens", uint32(gguf.Array), uint32(gguf.String), uint64(n))
		for i := range n {
			h.put(fmt.Sprintf("tok%013d", i))
		}
		if err := os.WriteFile(path, h.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
		return nil
	}
}

// sparseArrays: a sparse file of size bytes whose header is keys of
// 4,096 empty strings each (32 KB of zeros, never written).
func sparseArrays(size int64) func(*testing.B, string) func() {
	return func(b *testing.B, path string) func() {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		const keys = 65536
		h := ggufStart(keys)
		f.Write(h.Bytes())
		off := int64(h.Len())
		for i := range keys {
			k := &le{}
			k.put(fmt.Sprintf("k%07d", i), uint32(gguf.Array), uint32(gguf.String), uint64(4096))
			f.WriteAt(k.Bytes(), off)
			off += int64(k.Len()) + 4096*8
		}
		if err := f.Truncate(size); err != nil {
			b.Fatal(err)
		}
		return nil
	}
}

// endlessPipe: a named pipe fed a header that never ends.
func endlessPipe(b *testing.B, path string) func() {
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		b.Fatal(err)
	}
	return func() {
		go func() {
			w, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			defer w.Close()
			h := ggufStart(65536)
			w.Write(h.Bytes())
			chunk := make([]byte, 0, 1<<20)
			for i := 0; ; i++ {
				k := &le{}
				k.put(fmt.Sprintf("k%07d", i), uint32(gguf.Array), uint32(gguf.Uint8), uint64(4096))
				chunk = append(append(chunk, k.Bytes()...), make([]byte, 4096)...)
				if len(chunk) > 1<<20 {
					w.SetWriteDeadline(time.Now().Add(10 * time.Second))
					if _, err := w.Write(chunk); err != nil {
						return
					}
					chunk = chunk[:0]
				}
			}
		}()
	}
}

// aliasBombText is a billion laughs of about size bytes: ten levels of
// ten aliases, padded with wider levels.
func aliasBombText(size int) string {
	var s strings.Builder
	s.WriteString("l0: &a0 [lol,lol,lol,lol,lol,lol,lol,lol,lol,lol]\n")
	for i := 1; s.Len() < size; i++ {
		fmt.Fprintf(&s, "l%d: &a%d [", i, i)
		for j := range 10 {
			if j > 0 {
				s.WriteString(",")
			}
			fmt.Fprintf(&s, "*a%d", i-1)
		}
		s.WriteString("]\n")
		if i > 9 { // wide levels: the nine before, ten times each
			fmt.Fprintf(&s, "w%d: [%s*a9]\n", i, strings.Repeat("*a9,", 60))
		}
	}
	return s.String()
}

func manyKeys(n int) string {
	var s strings.Builder
	s.WriteString("schema: blsim/soc/v1\nname: keys\nuncertainty:\n")
	for i := range n {
		fmt.Fprintf(&s, "  k%d: 1\n", i)
	}
	return s.String()
}

// goodLines: seed records up to size bytes.
func goodLines(size int) func(*testing.B, string) func() {
	return func(b *testing.B, path string) func() {
		var s strings.Builder
		for i := 0; s.Len() < size-400; i++ {
			fmt.Fprintf(&s, `{"schema":"blsim/measurement/v1","id":"r%d","kind":"reported","soc":"rk3588","workload":"qwen3.5-35b-a3b","plan":{"mode":"native","engines":["big"],"threads":[4],"poll":50},"unit":"t/s","samples":[26.2,26.3],"median":26.25,"cv":0,"status":"ok"}`+"\n", i%64)
		}
		if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		return nil
	}
}

func sparse(size int64) func(*testing.B, string) func() {
	return func(b *testing.B, path string) func() {
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Truncate(path, size); err != nil {
			b.Fatal(err)
		}
		return nil
	}
}

func hugeRun(b *testing.B, path string) func() {
	rec := `{"schema":"blsim/measurement/v1","id":"huge","kind":"reported","soc":"rk3588","workload":"qwen3.5-35b-a3b","plan":{"mode":"native","engines":["big"],"threads":[4],"poll":50},"run":{"prompt_tokens":1048576,"ubatch":1},"unit":"t/s","median":26.25,"cv":0,"status":"ok"}` + "\n"
	if err := os.WriteFile(path, []byte(rec), 0o644); err != nil {
		b.Fatal(err)
	}
	return nil
}

// realRecords: the 48 records of a real llama-bench campaign
// (calibrate/fit/testdata/llamacpp-dense: llama.cpp c392e50 on this VM,
// two workloads, each record carrying its workload's YAML, 1.4 KB a
// line), repeated with distinct ids up to size bytes: what calibrate
// writes, at the size of measure.MaxFileBytes.
func realRecords(size int) func(*testing.B, string) func() {
	return func(b *testing.B, path string) func() {
		src, err := os.ReadFile(filepath.Join("..", "..", "calibrate", "fit", "testdata", "llamacpp-dense", "grid.jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		lines := strings.SplitAfter(strings.TrimSpace(string(src)), "\n")
		var s strings.Builder
		for i := 0; ; i++ {
			line := lines[i%len(lines)]
			if !strings.HasSuffix(line, "\n") {
				line += "\n"
			}
			line = strings.Replace(line, `"id":"`, fmt.Sprintf(`"id":"copy%d/`, i/len(lines)), 1)
			if s.Len()+len(line) > size {
				break
			}
			s.WriteString(line)
		}
		if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		return nil
	}
}
