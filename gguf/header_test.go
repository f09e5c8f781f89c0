package gguf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oneLine fails unless err is a one-line error containing want.
func wantErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	msg := err.Error()
	if strings.ContainsAny(msg, "\r\n") {
		t.Errorf("error has more than one line: %q", msg)
	}
	if !strings.Contains(msg, want) {
		t.Errorf("error %q does not contain %q", msg, want)
	}
}

func read(data []byte) (*File, error) {
	return ReadHeader(bytes.NewReader(data), int64(len(data)))
}

func tinyHeader() *builder {
	return newBuilder("llama").u32("llama.block_count", 1).
		tensor("token_embd.weight", 8, 64, 10).
		tensor("blk.0.attn_norm.weight", 0, 64)
}

func TestReadHeaderGood(t *testing.T) {
	b := tinyHeader().
		kv("i8", Int8, int64(-3)).kv("i16", Int16, int64(-300)).kv("i32", Int32, int64(-70000)).
		kv("i64", Int64, int64(math.MinInt64)).kv("u8", Uint8, uint64(200)).kv("u16", Uint16, uint64(60000)).
		kv("u64", Uint64, uint64(math.MaxUint64)).kv("f32", Float32, 1.5).kv("f64", Float64, -2.25).
		kv("yes", Bool, true).kv("list", Array, arr(Int32, int64(1), int64(-2), int64(3))).
		kv("names", Array, arr(String, "a", "bb"))
	f, err := read(b.bytes())
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 3 || len(f.KVs) != 14 || len(f.Tensors) != 2 || f.Alignment != 32 {
		t.Fatalf("got version %d, %d keys, %d tensors, alignment %d", f.Version, len(f.KVs), len(f.Tensors), f.Alignment)
	}
	ints := map[string]int64{"i8": -3, "i16": -300, "i32": -70000, "i64": math.MinInt64, "u8": 200, "u16": 60000}
	for k, want := range ints {
		v, _ := f.Get(k)
		if got, ok := v.Int(); !ok || got != want {
			t.Errorf("%s = %d (%v), want %d", k, got, ok, want)
		}
	}
	if v, _ := f.Get("u64"); v.String() != "18446744073709551615" {
		t.Errorf("u64 = %s", v)
	}
	if _, ok := mustGet(t, f, "u64").Int(); ok {
		t.Error("u64 max read as an int64")
	}
	if x, _ := mustGet(t, f, "f32").Float(); x != 1.5 {
		t.Errorf("f32 = %g", x)
	}
	if x, _ := mustGet(t, f, "f64").Float(); x != -2.25 {
		t.Errorf("f64 = %g", x)
	}
	if x, ok := mustGet(t, f, "yes").Bool(); !x || !ok {
		t.Error("bool not read")
	}
	l := mustGet(t, f, "list")
	if l.Len != 3 || l.Elem != Int32 || len(l.Elems) != 3 {
		t.Fatalf("list = %s", l)
	}
	if n, _ := l.Elems[1].Int(); n != -2 {
		t.Errorf("list[1] = %d", n)
	}
	if s, _ := mustGet(t, f, "names").Elems[1].Str(); s != "bb" {
		t.Errorf("names[1] = %q", s)
	}
	te := f.Tensors[0]
	if te.Name != "token_embd.weight" || te.Type.String() != "q8_0" || te.Elements() != 640 || te.Bytes() != 680 {
		t.Errorf("tensor 0 = %+v (%d bytes)", te, te.Bytes())
	}
	if f.Tensors[1].Offset != 704 || f.DataEnd != f.DataOffset+704+256 {
		t.Errorf("offsets: tensor 1 at %d, data %d..%d", f.Tensors[1].Offset, f.DataOffset, f.DataEnd)
	}
	if f.DataOffset%32 != 0 {
		t.Errorf("data offset %d not aligned", f.DataOffset)
	}
}

func mustGet(t *testing.T, f *File, k string) Value {
	t.Helper()
	v, ok := f.Get(k)
	if !ok {
		t.Fatalf("no key %s", k)
	}
	return v
}

// TestReadHeaderLongArrays: arrays past KeptArray are read past, their
// length kept (a tokenizer's vocabulary).
func TestReadHeaderLongArrays(t *testing.T) {
	tokens := make([]any, KeptArray+1)
	scores := make([]any, KeptArray+1)
	for i := range tokens {
		tokens[i] = "tok"
		scores[i] = 0.5
	}
	b := tinyHeader().kv("tokenizer.ggml.tokens", Array, arr(String, tokens...)).
		kv("tokenizer.ggml.scores", Array, arr(Float32, scores...)).u32("after", 7)
	f, err := read(b.bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"tokenizer.ggml.tokens", "tokenizer.ggml.scores"} {
		if v := mustGet(t, f, k); v.Len != KeptArray+1 || v.Elems != nil {
			t.Errorf("%s: len %d, %d kept", k, v.Len, len(v.Elems))
		}
	}
	if n, _ := mustGet(t, f, "after").Int(); n != 7 {
		t.Errorf("the key after the arrays reads %d", n)
	}
}

// TestReadHeaderBad: every broken header is a one-line error saying where
// and why; none is read past its bounds.
func TestReadHeaderBad(t *testing.T) {
	swap := func(data []byte, at int, v any) []byte {
		var b bytes.Buffer
		_ = binary.Write(&b, binary.LittleEndian, v)
		copy(data[at:], b.Bytes())
		return data
	}
	long := strings.Repeat("x", MaxNameBytes+1)
	for _, tc := range []struct {
		name string
		data func() []byte
		want string
	}{
		{"empty file", func() []byte { return nil }, "offset 0: file ends while reading the magic"},
		{"wrong magic", func() []byte { return []byte("GGML\x03\x00\x00\x00") }, `magic "GGML" is not "GGUF"`},
		{"a YAML file", func() []byte { return []byte("schema: blsim/workload/v1\n") }, "not a GGUF file"},
		{"version 1", func() []byte { return swap(tinyHeader().bytes(), 4, uint32(1)) }, "GGUF version 1 is not read"},
		{"version 4", func() []byte { return swap(tinyHeader().bytes(), 4, uint32(4)) }, "GGUF version 4 is not 2 or 3"},
		{"big-endian", func() []byte { return swap(tinyHeader().bytes(), 4, uint32(3<<24)) }, "big-endian GGUF"},
		{"tensor count past the limit", func() []byte { return swap(tinyHeader().bytes(), 8, uint64(1<<40)) }, "tensor count 1099511627776 is over the limit of 65536"},
		{"key count past the limit", func() []byte { return swap(tinyHeader().bytes(), 16, uint64(math.MaxUint64)) }, "metadata count 18446744073709551615 is over the limit"},
		{"counts past the file", func() []byte { return swap(tinyHeader().bytes(), 8, uint64(60000)) }, "need at least"},
		{"key length past the file", func() []byte { return swap(tinyHeader().bytes(), 24, uint64(1<<15)) }, "key 0 is 32768 bytes long, the file has"},
		{"key length past the limit", func() []byte { return swap(tinyHeader().bytes(), 24, uint64(1<<40)) }, "over the limit of 65536"},
		{"unknown value type", func() []byte { return newBuilder("").kv("k", 13, uint64(0)).bytes() }, `"k": unknown value type 13`},
		{"bool of 2", func() []byte { return newBuilder("").kv("k", Bool, uint64(2)).bytes() }, "bool value 2"},
		{"array of arrays", func() []byte { return newBuilder("").kv("k", Array, arr(Array)).bytes() }, "an array of arrays"},
		{"array of unknown type", func() []byte { return newBuilder("").kv("k", Array, arr(20)).bytes() }, "array of unknown value type 20"},
		{"array past the limit", func() []byte {
			d := newBuilder("").kv("k", Array, arr(Uint8, uint64(1))).bytes()
			return swap(d, len(d)-9, uint64(MaxArrayLen+1))
		}, "over the limit of 67108864"},
		{"array past the file", func() []byte {
			d := newBuilder("").kv("k", Array, arr(Uint32, uint64(1))).bytes()
			return swap(d, len(d)-12, uint64(1000))
		}, `"k": array of 1000 u32 needs at least 4000 bytes`},
		{"string value past the file", func() []byte {
			d := newBuilder("").str("k", "abc").bytes()
			return swap(d, len(d)-11, uint64(1<<20))
		}, `the value of "k" is 1048576 bytes long, the file has 3 left`},
		{"duplicate key", func() []byte { return newBuilder("llama").str("general.architecture", "x").bytes() }, `key "general.architecture" given twice`},
		{"alignment not a power of two", func() []byte { return tinyHeader().u32("general.alignment", 24).bytes() }, "general.alignment 24 (u32) is not a power of two"},
		{"alignment not u32", func() []byte { return tinyHeader().kv("general.alignment", Uint64, uint64(32)).bytes() }, "stored as u32"},
		{"unknown ggml type", func() []byte { return newBuilder("").tensor("t", 41, 32).bytes() }, `tensor "t" has ggml type 41, which blsim does not know`},
		{"removed ggml type", func() []byte { return newBuilder("").tensor("t", 31, 32).bytes() }, "ggml type 31"},
		{"no dimensions", func() []byte { return newBuilder("").tensor("t", 0).bytes() }, `tensor "t" has 0 dimensions`},
		{"five dimensions", func() []byte { return newBuilder("").tensor("t", 0, 1, 1, 1, 1, 1).bytes() }, "has 5 dimensions, not 1 to 4"},
		{"zero dimension", func() []byte { return newBuilder("").tensor("t", 0, 4, 0).bytes() }, `tensor "t" dimension 1 is 0`},
		{"elements past 2^63", func() []byte { return newBuilder("").tensor("t", 0, 1<<32, 1<<32).bytes() }, "more than 2^63 elements"},
		{"bytes past 2^63", func() []byte { return newBuilder("").tensor("t", 0, 1<<31, 1<<31).bytes() }, "more than 2^63 bytes"},
		{"row not whole blocks", func() []byte { return newBuilder("").tensor("t", 12, 100, 2).bytes() }, "rows of 100 weights, not a multiple of its block of 256"},
		{"tensor name too long", func() []byte { return newBuilder("").tensor(long, 0, 4).bytes() }, "over the limit of 63"},
		{"duplicate tensor", func() []byte { return newBuilder("").tensor("t", 0, 4).tensor("t", 0, 4).bytes() }, `tensor "t" listed twice`},
		{"misaligned data", func() []byte {
			b := newBuilder("").tensor("a", 0, 4)
			b.tensors[0].off = 4
			return b.bytes()
		}, `tensor "a" data offset 4 is not aligned to 32`},
		{"overlapping data", func() []byte {
			b := newBuilder("").tensor("a", 0, 64).tensor("b", 0, 64)
			b.tensors[1].off = 128
			return b.bytes()
		}, `tensor "b" data at offset 128 overlaps tensor "a"'s, which ends at 256`},
		{"offset past 2^63", func() []byte {
			b := newBuilder("").tensor("a", 0, 4)
			b.tensors[0].off = math.MaxInt64 - 31
			return b.bytes()
		}, "data ends past 2^63 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := read(tc.data())
			wantErr(t, err, tc.want)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Errorf("%T is not a *FormatError", err)
			}
		})
	}
}

// TestReadHeaderTruncated: a header cut at any byte is an error naming
// what was being read, never a panic or a silent short read.
func TestReadHeaderTruncated(t *testing.T) {
	full := tinyHeader().kv("list", Array, arr(String, "a", "b")).kv("f", Float64, 1.0).bytes()
	for n := 0; n < len(full); n++ {
		_, err := read(full[:n])
		if err == nil {
			t.Fatalf("header cut at %d of %d bytes read without error", n, len(full))
		}
		if msg := err.Error(); strings.ContainsAny(msg, "\n") || !strings.Contains(msg, "offset") {
			t.Fatalf("cut at %d: %q", n, msg)
		}
	}
	// Read without knowing the size: the end of the file says it.
	_, err := ReadHeader(bytes.NewReader(full[:len(full)-3]), -1)
	wantErr(t, err, "file ends while reading the offset of tensor \"blk.0.attn_norm.weight\" (truncated)")
}

func TestReadErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "model.gguf")
	if err := os.WriteFile(p, []byte("GGUF\x03\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Read(p)
	wantErr(t, err, p+": offset 4: file ends while reading the version")
	_, err = Read(filepath.Join(dir, "missing.gguf"))
	wantErr(t, err, "missing.gguf")
	_, err = Read(dir)
	wantErr(t, err, "is a directory")
	if err := os.WriteFile(p, []byte("# a YAML workload\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Read(p)
	wantErr(t, err, "not a GGUF file")
}
