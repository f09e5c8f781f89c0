package gguf

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// builder writes GGUF headers for the tests: any keys, any tensor infos,
// optionally broken, with no tensor data (a header-only file).
type builder struct {
	bytes.Buffer
	version uint32
	kvs     []bkv
	tensors []btensor
	align   int64
}

type bkv struct {
	key string
	t   ValueType
	v   any // uint64, int64, float64, bool, string, or barr
}

type barr struct {
	elem ValueType
	vals []any
}

type btensor struct {
	name string
	dims []int64
	typ  Type
	off  int64 // -1: the next aligned offset
}

func newBuilder(arch string) *builder {
	b := &builder{version: 3, align: DefaultAlignment}
	if arch != "" {
		b.str("general.architecture", arch)
	}
	return b
}

func (b *builder) u32(k string, v uint64) *builder {
	b.kvs = append(b.kvs, bkv{k, Uint32, v})
	return b
}

func (b *builder) str(k, v string) *builder {
	b.kvs = append(b.kvs, bkv{k, String, v})
	return b
}

func (b *builder) kv(k string, t ValueType, v any) *builder {
	b.kvs = append(b.kvs, bkv{k, t, v})
	return b
}

func (b *builder) tensor(name string, typ Type, dims ...int64) *builder {
	b.tensors = append(b.tensors, btensor{name, dims, typ, -1})
	return b
}

// drop removes key k.
func (b *builder) drop(k string) *builder {
	out := b.kvs[:0]
	for _, kv := range b.kvs {
		if kv.key != k {
			out = append(out, kv)
		}
	}
	b.kvs = out
	return b
}

// set replaces key k's value (or adds it).
func (b *builder) set(k string, t ValueType, v any) *builder {
	for i := range b.kvs {
		if b.kvs[i].key == k {
			b.kvs[i] = bkv{k, t, v}
			return b
		}
	}
	return b.kv(k, t, v)
}

func (b *builder) le(v any) {
	_ = binary.Write(&b.Buffer, binary.LittleEndian, v)
}

func (b *builder) wstr(s string) {
	b.le(uint64(len(s)))
	b.WriteString(s)
}

func (b *builder) value(t ValueType, v any) {
	switch t {
	case Uint8, Bool:
		switch x := v.(type) {
		case bool:
			if x {
				b.le(uint8(1))
			} else {
				b.le(uint8(0))
			}
		case uint64:
			b.le(uint8(x))
		}
	case Int8:
		b.le(int8(v.(int64)))
	case Uint16:
		b.le(uint16(v.(uint64)))
	case Int16:
		b.le(int16(v.(int64)))
	case Uint32:
		b.le(uint32(v.(uint64)))
	case Int32:
		b.le(int32(v.(int64)))
	case Uint64:
		b.le(v.(uint64))
	case Int64:
		b.le(v.(int64))
	case Float32:
		b.le(math.Float32bits(float32(v.(float64))))
	case Float64:
		b.le(math.Float64bits(v.(float64)))
	case String:
		b.wstr(v.(string))
	case Array:
		a := v.(barr)
		b.le(uint32(a.elem))
		b.le(uint64(len(a.vals)))
		for _, e := range a.vals {
			b.value(a.elem, e)
		}
	}
}

// bytes encodes the header.
func (b *builder) bytes() []byte {
	b.Reset()
	b.WriteString(Magic)
	b.le(b.version)
	b.le(uint64(len(b.tensors)))
	b.le(uint64(len(b.kvs)))
	for _, kv := range b.kvs {
		b.wstr(kv.key)
		b.le(uint32(kv.t))
		b.value(kv.t, kv.v)
	}
	off := int64(0)
	for _, t := range b.tensors {
		b.wstr(t.name)
		b.le(uint32(len(t.dims)))
		for _, d := range t.dims {
			b.le(uint64(d))
		}
		b.le(uint32(t.typ))
		o := t.off
		if o < 0 {
			o = off
		}
		b.le(uint64(o))
		if bw := t.typ.BlockWeights(); bw > 0 {
			tt := Tensor{Dims: t.dims, Type: t.typ}
			off = pad(o+tt.Bytes(), b.align)
		}
	}
	return append([]byte(nil), b.Buffer.Bytes()...)
}

// model reads the builder's header as a Model named name.
func (b *builder) model(t *testing.T, name string) (*Model, error) {
	t.Helper()
	data := b.bytes()
	h, err := ReadHeader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	return FromHeader(h, name)
}

// write writes the header to a file in dir, extended to size bytes (a
// sparse file) when size > 0.
func (b *builder) write(t testing.TB, dir, name string, size int64) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if size > 0 {
		if err := os.Truncate(p, size); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// arr is an array value.
func arr(elem ValueType, vals ...any) barr { return barr{elem, vals} }

// qwen3moeBuilder is a Qwen3-30B-A3B-shaped header (real widths, 48
// layers at Q4_K with Q6_K down projections in every other layer, as
// Q4_K_M does), no data.
func qwen3moeBuilder(layers int) *builder {
	const d, heads, kv, hd, E, K, ff, vocab = 2048, 32, 4, 128, 128, 8, 768, 151936
	b := newBuilder("qwen3moe").str("general.name", "Qwen3-30B-A3B-like").
		u32("qwen3moe.block_count", uint64(layers)).u32("qwen3moe.embedding_length", d).
		u32("qwen3moe.attention.head_count", heads).u32("qwen3moe.attention.head_count_kv", kv).
		u32("qwen3moe.attention.key_length", hd).u32("qwen3moe.attention.value_length", hd).
		u32("qwen3moe.expert_count", E).u32("qwen3moe.expert_used_count", K).
		u32("qwen3moe.expert_feed_forward_length", ff).u32("qwen3moe.feed_forward_length", 6144)
	const q4k, q6k, f32 = Type(12), Type(14), Type(0)
	b.tensor("token_embd.weight", q4k, d, vocab)
	b.tensor("output_norm.weight", f32, d)
	b.tensor("output.weight", q6k, d, vocab)
	for i := 0; i < layers; i++ {
		p := "blk." + strconv.Itoa(i) + "."
		down := q4k
		if i%2 == 0 {
			down = q6k
		}
		b.tensor(p+"attn_norm.weight", f32, d).
			tensor(p+"attn_q.weight", q4k, d, heads*hd).
			tensor(p+"attn_k.weight", q4k, d, kv*hd).
			tensor(p+"attn_v.weight", down, d, kv*hd).
			tensor(p+"attn_q_norm.weight", f32, hd).
			tensor(p+"attn_k_norm.weight", f32, hd).
			tensor(p+"attn_output.weight", q4k, heads*hd, d).
			tensor(p+"ffn_norm.weight", f32, d).
			tensor(p+"ffn_gate_inp.weight", f32, d, E).
			tensor(p+"ffn_gate_exps.weight", q4k, d, ff, E).
			tensor(p+"ffn_up_exps.weight", q4k, d, ff, E).
			tensor(p+"ffn_down_exps.weight", down, ff, d, E)
	}
	return b
}
