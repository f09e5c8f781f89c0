package gguf

import (
	"fmt"
	"math"
)

// Uint32Value, Float32Value and StringValue are metadata values, for a
// header made in memory (NewFile).
func Uint32Value(v uint32) Value { return Value{Type: Uint32, u: uint64(v)} }

// StringValue is a string metadata value.
func StringValue(s string) Value { return Value{Type: String, s: s} }

// NewFile is a GGUF v3 header made in memory, not read from a file: the
// header a converter would write for these keys and tensors (a model
// described by its config, package hfconfig). The tensors' data is laid
// out in their order at the default alignment; DataOffset is 0 and Size
// -1, since no file holds it. A key or tensor name given twice, a tensor
// of an unknown type or one whose rows are not a multiple of its type's
// block is an error.
func NewFile(kvs []KV, tensors []Tensor) (*File, error) {
	f := &File{Version: 3, Alignment: DefaultAlignment, Size: -1, kv: map[string]int{}}
	for _, kv := range kvs {
		if _, dup := f.kv[kv.Key]; dup {
			return nil, fmt.Errorf("gguf: key %q given twice", kv.Key)
		}
		f.kv[kv.Key] = len(f.KVs)
		f.KVs = append(f.KVs, kv)
	}
	names := map[string]bool{}
	off := int64(0)
	for _, t := range tensors {
		if names[t.Name] {
			return nil, fmt.Errorf("gguf: tensor %q given twice", t.Name)
		}
		names[t.Name] = true
		if !t.Type.Known() {
			return nil, fmt.Errorf("gguf: tensor %s has ggml type %d, which blsim does not know", t.Name, uint32(t.Type))
		}
		if len(t.Dims) == 0 || len(t.Dims) > MaxDims {
			return nil, fmt.Errorf("gguf: tensor %s has %d dimensions, not 1 to %d", t.Name, len(t.Dims), MaxDims)
		}
		for _, d := range t.Dims {
			if d <= 0 || d > math.MaxInt32 {
				return nil, fmt.Errorf("gguf: tensor %s has dimension %d", t.Name, d)
			}
		}
		if t.Dims[0]%t.Type.BlockWeights() != 0 {
			return nil, fmt.Errorf("gguf: tensor %s of type %s has rows of %d weights, not a multiple of its block of %d", t.Name, t.Type, t.Dims[0], t.Type.BlockWeights())
		}
		t.Dims = append([]int64(nil), t.Dims...)
		t.Offset = off
		off = pad(off+t.Bytes(), f.Alignment)
		f.Tensors = append(f.Tensors, t)
	}
	f.DataEnd = off
	return f, nil
}
