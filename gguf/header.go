package gguf

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sort"
	"strconv"
)

// The bounds a header must keep to. A header past one is refused with an
// error naming the key, tensor or offset, before anything it declares is
// allocated; no bound is near what a real model needs (a 671B MoE has
// about 1,100 tensors and 50 keys, a 262k-token vocabulary is one array).
const (
	MaxTensors     = 1 << 16  // tensor infos
	MaxKVs         = 1 << 16  // metadata keys
	MaxKeyBytes    = 1 << 16  // one key (the GGUF spec: at most 65535 bytes)
	MaxStringBytes = 64 << 20 // one string value (an embedded tokenizer.json)
	MaxArrayLen    = 1 << 26  // elements of one array value
	MaxNameBytes   = 63       // a tensor name (ggml's GGML_MAX_NAME 64, with its NUL)
	MaxDims        = 4        // a tensor's dimensions (GGML_MAX_DIMS)
	// MaxHeaderBytes bounds the whole header, so that a sparse file, a
	// device or a pipe that never ends is refused after reading at most
	// this much. A real header is mostly its tokenizer: llama.cpp's
	// vocabulary-only GGUFs (models/ggml-vocab-*.gguf) hold 0.6 to 4.0 MB,
	// about 39 bytes a token with its merges, so the largest public
	// vocabulary (Gemma 3's 262,144 tokens) comes to about 10 MB; 64 MiB
	// is six times that.
	MaxHeaderBytes = 64 << 20
	// MaxKeptElems bounds the array elements kept in memory over the
	// whole header (each small array's, see KeptArray): a Value takes 80
	// bytes, so a header of many 4 KiB arrays of bytes would otherwise
	// take 80 times its size. A real model keeps a few per-layer arrays
	// of at most a thousand values.
	MaxKeptElems = 1 << 16
)

// Magic is the first four bytes of every GGUF file.
const Magic = "GGUF"

// DefaultAlignment is the data alignment of a file without
// general.alignment.
const DefaultAlignment = 32

// File is a GGUF header: the metadata and the tensor infos, and where the
// tensor data would start. The data itself is never read.
type File struct {
	Version uint32
	KVs     []KV
	Tensors []Tensor
	// Alignment of the tensor data (general.alignment, default 32).
	Alignment int64
	// DataOffset is where the tensor data starts in the file; DataEnd is
	// where the last tensor's data ends (DataOffset + the furthest
	// offset + size).
	DataOffset, DataEnd int64
	// Size is the file's size in bytes, -1 when not known.
	Size int64

	kv map[string]int
}

// Tensor is one tensor info: its name, shape, type and where its data
// lies in the data section.
type Tensor struct {
	Name string
	// Dims is the shape with the row length first (ggml's ne[0]): a
	// matrix from n_embd to n_ff is {n_embd, n_ff}, a routed experts'
	// tensor {n_embd, n_ff, n_expert}.
	Dims   []int64
	Type   Type
	Offset int64
}

// Elements is the number of weights in the tensor.
func (t Tensor) Elements() int64 {
	n := int64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// Bytes is the tensor's data size.
func (t Tensor) Bytes() int64 {
	return t.Elements() / t.Type.BlockWeights() * t.Type.BlockBytes()
}

// Get returns the metadata value of key.
func (f *File) Get(key string) (Value, bool) {
	i, ok := f.kv[key]
	if !ok {
		return Value{}, false
	}
	return f.KVs[i].Value, true
}

// FormatError is a header that is not GGUF or breaks the format: the byte
// offset where reading stopped and why. File is set by Read.
type FormatError struct {
	File   string
	Offset int64
	Msg    string
	// Err is ErrNotGGUF for a file without the GGUF magic, else nil.
	Err error
}

// Unwrap returns Err.
func (e *FormatError) Unwrap() error { return e.Err }

func (e *FormatError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("%s: offset %d: %s", e.File, e.Offset, e.Msg)
	}
	return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg)
}

// ReadHeader reads a GGUF v2 or v3 header from r: magic, version, counts,
// the metadata and the tensor infos, and stops there. size is the size of
// the whole file (-1 if unknown): declared counts and lengths that cannot
// fit in what is left are refused at once, as are those past the Max
// bounds. Errors are *FormatError.
func ReadHeader(r io.Reader, size int64) (*File, error) {
	h := &hreader{r: bufio.NewReaderSize(r, 1<<16), size: size}
	f, err := h.file()
	if err != nil {
		return nil, err
	}
	f.Size = size
	return f, nil
}

func (h *hreader) file() (*File, error) {
	h.what = "the magic"
	b, err := h.read(4)
	if err != nil {
		return nil, err
	}
	if string(b) != Magic {
		return nil, &FormatError{Offset: 0, Msg: fmt.Sprintf("magic %q is not %q: %v", string(b), Magic, ErrNotGGUF), Err: ErrNotGGUF}
	}
	h.what = "the version"
	v, err := h.u32()
	if err != nil {
		return nil, err
	}
	switch {
	case v == 1:
		return nil, h.fail("GGUF version 1 is not read (llama.cpp dropped it too): convert the model again")
	case v == bits.ReverseBytes32(2) || v == bits.ReverseBytes32(3):
		return nil, h.fail("version %d is a big-endian GGUF (byte-swapped version %d): only little-endian files are read", v, bits.ReverseBytes32(v))
	case v != 2 && v != 3:
		return nil, h.fail("GGUF version %d is not 2 or 3", v)
	}
	f := &File{Version: v, Alignment: DefaultAlignment, kv: map[string]int{}}
	h.what = "the tensor count"
	nt, err := h.u64()
	if err != nil {
		return nil, err
	}
	if nt > MaxTensors {
		return nil, h.fail("tensor count %d is over the limit of %d", nt, MaxTensors)
	}
	h.what = "the metadata count"
	nkv, err := h.u64()
	if err != nil {
		return nil, err
	}
	if nkv > MaxKVs {
		return nil, h.fail("metadata count %d is over the limit of %d", nkv, MaxKVs)
	}
	// Every key takes at least 12 bytes (length and type) and every tensor
	// info at least 24 (name length, dims count, type, offset).
	if need := 12*nkv + 24*nt; need > uint64(h.left()) {
		return nil, h.fail("%d keys and %d tensors need at least %d bytes, %s", nkv, nt, need, h.leftText())
	}
	f.KVs = make([]KV, 0, nkv)
	for i := uint64(0); i < nkv; i++ {
		kv, err := h.kv(i)
		if err != nil {
			return nil, err
		}
		if _, dup := f.kv[kv.Key]; dup {
			return nil, h.fail("key %q given twice", kv.Key)
		}
		f.kv[kv.Key] = len(f.KVs)
		f.KVs = append(f.KVs, kv)
	}
	if v, ok := f.Get("general.alignment"); ok {
		a, isInt := v.Int()
		if v.Type != Uint32 || !isInt || a <= 0 || a&(a-1) != 0 {
			return nil, h.fail("general.alignment %s (%s) is not a power of two stored as u32", v, v.Type)
		}
		f.Alignment = a
	}
	f.Tensors = make([]Tensor, 0, nt)
	names := make(map[string]bool, nt)
	for i := uint64(0); i < nt; i++ {
		t, err := h.tensor(i)
		if err != nil {
			return nil, err
		}
		if names[t.Name] {
			return nil, h.fail("tensor %q listed twice", t.Name)
		}
		names[t.Name] = true
		f.Tensors = append(f.Tensors, t)
	}
	f.DataOffset = pad(h.off, f.Alignment)
	end, err := dataEnd(f)
	if err != nil {
		return nil, &FormatError{Offset: h.off, Msg: err.Error()}
	}
	f.DataEnd = end
	return f, nil
}

func (h *hreader) tensor(i uint64) (Tensor, error) {
	h.what = fmt.Sprintf("the name of tensor %d", i)
	name, err := h.str(MaxNameBytes, true)
	if err != nil {
		return Tensor{}, err
	}
	t := Tensor{Name: name}
	q := strconv.Quote(name)
	h.what = "the dimensions of tensor " + q
	nd, err := h.u32()
	if err != nil {
		return t, err
	}
	if nd == 0 || nd > MaxDims {
		return t, h.fail("tensor %s has %d dimensions, not 1 to %d", q, nd, MaxDims)
	}
	t.Dims = make([]int64, nd)
	elems := uint64(1)
	for j := range t.Dims {
		d, err := h.u64()
		if err != nil {
			return t, err
		}
		if d == 0 || d > math.MaxInt64 {
			return t, h.fail("tensor %s dimension %d is %d", q, j, d)
		}
		hi, lo := bits.Mul64(elems, d)
		if hi != 0 || lo > math.MaxInt64 {
			return t, h.fail("tensor %s has more than 2^63 elements", q)
		}
		elems = lo
		t.Dims[j] = int64(d)
	}
	h.what = "the type of tensor " + q
	ty, err := h.u32()
	if err != nil {
		return t, err
	}
	t.Type = Type(ty)
	if !t.Type.Known() {
		return t, h.fail("tensor %s has ggml type %d, which blsim does not know (known: %s)", q, ty, joinNames())
	}
	if t.Dims[0]%t.Type.BlockWeights() != 0 {
		return t, h.fail("tensor %s of type %s has rows of %d weights, not a multiple of its block of %d", q, t.Type, t.Dims[0], t.Type.BlockWeights())
	}
	if elems/uint64(t.Type.BlockWeights()) > math.MaxInt64/uint64(t.Type.BlockBytes()) {
		return t, h.fail("tensor %s has more than 2^63 bytes", q)
	}
	h.what = "the offset of tensor " + q
	off, err := h.u64()
	if err != nil {
		return t, err
	}
	if off > math.MaxInt64 {
		return t, h.fail("tensor %s offset %d is past 2^63", q, off)
	}
	t.Offset = int64(off)
	return t, nil
}

// dataEnd checks that the tensors' data is aligned and does not overlap,
// and returns where it ends.
func dataEnd(f *File) (int64, error) {
	idx := make([]int, len(f.Tensors))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return f.Tensors[idx[a]].Offset < f.Tensors[idx[b]].Offset })
	end := int64(0)
	var prev string
	for _, i := range idx {
		t := f.Tensors[i]
		if t.Offset%f.Alignment != 0 {
			return 0, fmt.Errorf("tensor %q data offset %d is not aligned to %d", t.Name, t.Offset, f.Alignment)
		}
		if t.Offset < end {
			return 0, fmt.Errorf("tensor %q data at offset %d overlaps tensor %q's, which ends at %d", t.Name, t.Offset, prev, end)
		}
		if t.Offset > math.MaxInt64-t.Bytes()-f.DataOffset {
			return 0, fmt.Errorf("tensor %q data ends past 2^63 bytes", t.Name)
		}
		end, prev = t.Offset+t.Bytes(), t.Name
	}
	return f.DataOffset + end, nil
}

func pad(n, align int64) int64 {
	return (n + align - 1) / align * align
}

func joinNames() string {
	names := TypeNames()
	s := names[0]
	for _, n := range names[1:] {
		s += " " + n
	}
	return s
}
