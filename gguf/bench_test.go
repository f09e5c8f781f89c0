package gguf

import (
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// bigHeader is a 20 GB model's header: a Qwen3-30B-A3B-shaped MoE of 56
// layers at Q4_K/Q6_K (about 21 GB of tensor data) with a full BPE
// tokenizer (151,936 tokens, their types, 151,387 merges): some 6 MB of
// header, as large as real ones get.
func bigHeader() *builder {
	b := qwen3moeBuilder(56)
	const vocab, merges = 151936, 151387
	tokens := make([]any, vocab)
	types := make([]any, vocab)
	for i := range tokens {
		tokens[i] = "tok" + strconv.Itoa(i)
		types[i] = int64(1)
	}
	m := make([]any, merges)
	for i := range m {
		m[i] = "a" + strconv.Itoa(i) + " b"
	}
	b.str("tokenizer.ggml.model", "gpt2").kv("tokenizer.ggml.tokens", Array, arr(String, tokens...)).
		kv("tokenizer.ggml.token_type", Array, arr(Int32, types...)).kv("tokenizer.ggml.merges", Array, arr(String, m...)).
		str("tokenizer.chat_template", "{% for message in messages %}{{ message.content }}{% endfor %}")
	return b
}

// writeBig writes bigHeader as a sparse file as long as its data says.
func writeBig(tb testing.TB) (string, int64) {
	tb.Helper()
	b := bigHeader()
	data := b.bytes()
	h, err := read(data)
	if err != nil {
		tb.Fatal(err)
	}
	if h.DataEnd < 20e9 {
		tb.Fatalf("the big header describes %d bytes, want over 20 GB", h.DataEnd)
	}
	p := b.write(tb, tb.TempDir(), "big.gguf", 0)
	if err := os.Truncate(p, h.DataEnd); err != nil {
		tb.Skipf("no sparse file of %d bytes here: %v", h.DataEnd, err)
	}
	return p, h.DataEnd
}

// TestRead20GBHeader: a 20 GB model's header is read in well under a
// second and 50 MB, and its workload mapped, from a sparse file: the
// tensor data is never touched.
func TestRead20GBHeader(t *testing.T) {
	skipShort(t)
	p, size := writeBig(t)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	m, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	w, err := m.Workload()
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d-byte file (%d header bytes): read and mapped in %v, %.1f MB allocated", size, m.File.DataOffset, took, float64(alloc)/1e6)
	if took > time.Second {
		t.Errorf("took %v, want under 1 s", took)
	}
	if alloc > 50e6 {
		t.Errorf("allocated %d bytes, want under 50 MB", alloc)
	}
	if len(m.Notes) != 0 || w.Model.Layers != 56 || w.Model.Vocab != 151936 {
		t.Errorf("notes %q, %d layers, vocab %d", m.Notes, w.Model.Layers, w.Model.Vocab)
	}
	if v, _ := m.File.Get("tokenizer.ggml.tokens"); v.Len != 151936 || v.Elems != nil {
		t.Errorf("tokens: %d, %d kept", v.Len, len(v.Elems))
	}
}

func BenchmarkRead20GBHeader(b *testing.B) {
	p, _ := writeBig(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Read(p); err != nil {
			b.Fatal(err)
		}
	}
}
