package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// hreader reads the header's little-endian fields, counting the offset.
type hreader struct {
	r    *bufio.Reader
	off  int64
	size int64
	buf  [8]byte
	what string // what is being read, for errors
	kept int    // array elements kept (MaxKeptElems)
}

func (h *hreader) fail(format string, a ...any) error {
	return &FormatError{Offset: h.off, Msg: fmt.Sprintf(format, a...)}
}

// left is how many bytes the header may still take: what remains of the
// file, and at most what remains of MaxHeaderBytes.
func (h *hreader) left() int64 {
	l := MaxHeaderBytes - h.off
	if h.size >= 0 {
		l = min(l, h.size-h.off)
	}
	return l
}

// leftText says what left is: "the file has N left", or the header's
// bound when that is nearer.
func (h *hreader) leftText() string {
	if h.size >= 0 && h.size-h.off <= MaxHeaderBytes-h.off {
		return fmt.Sprintf("the file has %d left", h.size-h.off)
	}
	return fmt.Sprintf("a header may hold %d more (gguf.MaxHeaderBytes, %d MiB in all)", MaxHeaderBytes-h.off, MaxHeaderBytes>>20)
}

func (h *hreader) read(n int) ([]byte, error) {
	if h.off+int64(n) > MaxHeaderBytes {
		return nil, h.fail("reading %s: the header is over %d MiB (gguf.MaxHeaderBytes); no real model's is", h.what, MaxHeaderBytes>>20)
	}
	if _, err := io.ReadFull(h.r, h.buf[:n]); err != nil {
		return nil, h.eof(err)
	}
	h.off += int64(n)
	return h.buf[:n], nil
}

func (h *hreader) eof(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return h.fail("file ends while reading %s (truncated)", h.what)
	}
	return h.fail("reading %s: %v", h.what, err)
}

func (h *hreader) u32() (uint32, error) {
	b, err := h.read(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (h *hreader) u64() (uint64, error) {
	b, err := h.read(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// skip reads past n bytes.
func (h *hreader) skip(n int64) error {
	if n > h.left() {
		return h.fail("%s needs %d bytes, %s", h.what, n, h.leftText())
	}
	for n > 0 {
		k := int(min(n, 1<<30))
		d, err := h.r.Discard(k)
		h.off += int64(d)
		if err != nil {
			return h.eof(err)
		}
		n -= int64(k)
	}
	return nil
}

// str reads a string of at most limit bytes; keep false reads past it.
func (h *hreader) str(limit int64, keep bool) (string, error) {
	n, err := h.u64()
	if err != nil {
		return "", err
	}
	if n > uint64(limit) {
		return "", h.fail("%s is %d bytes long, over the limit of %d", h.what, n, limit)
	}
	if int64(n) > h.left() {
		return "", h.fail("%s is %d bytes long, %s", h.what, n, h.leftText())
	}
	if !keep {
		return "", h.skip(int64(n))
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(h.r, b); err != nil {
		return "", h.eof(err)
	}
	h.off += int64(n)
	return string(b), nil
}

func (h *hreader) kv(i uint64) (KV, error) {
	h.what = fmt.Sprintf("key %d", i)
	key, err := h.str(MaxKeyBytes, true)
	if err != nil {
		return KV{}, err
	}
	h.what = "the type of " + strconv.Quote(key)
	t, err := h.u32()
	if err != nil {
		return KV{}, err
	}
	h.what = "the value of " + strconv.Quote(key)
	val, err := h.value(ValueType(t), key, true)
	if err != nil {
		return KV{}, err
	}
	return KV{Key: key, Value: val}, nil
}

// value reads one value of type t; top false means it is an element of
// an array (arrays do not nest).
func (h *hreader) value(t ValueType, key string, top bool) (Value, error) {
	v := Value{Type: t}
	switch t {
	case Uint8, Uint16, Uint32, Uint64, Bool:
		b, err := h.read(int(t.size()))
		if err != nil {
			return v, err
		}
		v.u = leUint(b)
		if t == Bool && v.u > 1 {
			return v, h.fail("%s: bool value %d is not 0 or 1", strconv.Quote(key), v.u)
		}
	case Int8, Int16, Int32, Int64:
		b, err := h.read(int(t.size()))
		if err != nil {
			return v, err
		}
		n := leUint(b)
		shift := 64 - 8*uint(len(b))
		v.i = int64(n<<shift) >> shift // sign-extend
	case Float32:
		b, err := h.read(4)
		if err != nil {
			return v, err
		}
		v.f = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case Float64:
		b, err := h.read(8)
		if err != nil {
			return v, err
		}
		v.f = math.Float64frombits(binary.LittleEndian.Uint64(b))
	case String:
		s, err := h.str(MaxStringBytes, true)
		if err != nil {
			return v, err
		}
		v.s = s
	case Array:
		if !top {
			return v, h.fail("%s: an array of arrays (GGUF readers, llama.cpp's among them, do not take them)", strconv.Quote(key))
		}
		h.what = "the array " + strconv.Quote(key)
		return h.array(key)
	default:
		return v, h.fail("%s: unknown value type %d", strconv.Quote(key), uint32(t))
	}
	return v, nil
}

func (h *hreader) array(key string) (Value, error) {
	et, err := h.u32()
	if err != nil {
		return Value{}, err
	}
	n, err := h.u64()
	if err != nil {
		return Value{}, err
	}
	elem := ValueType(et)
	v := Value{Type: Array, Elem: elem, Len: n}
	switch {
	case elem == Array:
		return v, h.fail("%s: an array of arrays (GGUF readers, llama.cpp's among them, do not take them)", strconv.Quote(key))
	case elem > Float64:
		return v, h.fail("%s: array of unknown value type %d", strconv.Quote(key), et)
	}
	if n > MaxArrayLen {
		return v, h.fail("%s: array of %d elements is over the limit of %d", strconv.Quote(key), n, MaxArrayLen)
	}
	minSize := elem.size()
	if elem == String {
		minSize = 8
	}
	if minSize > 0 && n*uint64(minSize) > uint64(h.left()) {
		return v, h.fail("%s: array of %d %s needs at least %d bytes, %s", strconv.Quote(key), n, elem, n*uint64(minSize), h.leftText())
	}
	keep := n <= KeptArray && h.kept+int(n) <= MaxKeptElems
	if keep {
		h.kept += int(n)
	}
	if keep {
		v.Elems = make([]Value, 0, n)
	}
	if !keep && elem.size() > 0 {
		return v, h.skip(int64(n) * elem.size())
	}
	for i := uint64(0); i < n; i++ {
		if !keep && elem == String {
			if _, err := h.str(MaxStringBytes, false); err != nil {
				return v, err
			}
			continue
		}
		e, err := h.value(elem, key, false)
		if err != nil {
			return v, err
		}
		v.Elems = append(v.Elems, e)
	}
	return v, nil
}

func leUint(b []byte) uint64 {
	var n uint64
	for i := len(b) - 1; i >= 0; i-- {
		n = n<<8 | uint64(b[i])
	}
	return n
}
