package gguf

import (
	"fmt"
	"math"
	"strings"
)

// ValueType is the type of a metadata value (gguf.h, enum gguf_type).
type ValueType uint32

// The metadata value types of GGUF v2 and v3.
const (
	Uint8 ValueType = iota
	Int8
	Uint16
	Int16
	Uint32
	Int32
	Float32
	Bool
	String
	Array
	Uint64
	Int64
	Float64
)

var valueTypeNames = [...]string{"u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"}

func (t ValueType) String() string {
	if int(t) < len(valueTypeNames) {
		return valueTypeNames[t]
	}
	return fmt.Sprintf("value type %d", uint32(t))
}

// size is the encoded size of a fixed-size value type, 0 for string and
// array.
func (t ValueType) size() int64 {
	switch t {
	case Uint8, Int8, Bool:
		return 1
	case Uint16, Int16:
		return 2
	case Uint32, Int32, Float32:
		return 4
	case Uint64, Int64, Float64:
		return 8
	}
	return 0
}

// KeptArray is the most elements of an array value that are kept in
// memory. Longer arrays (a tokenizer's 150k tokens, scores and merges) are
// read past and only their element type and length are kept: blsim needs
// their length (the vocabulary), never their contents.
const KeptArray = 4096

// Value is one metadata value. Scalars hold their value; an array holds
// its element type, its length and, when it has at most KeptArray
// elements, the elements.
type Value struct {
	Type ValueType
	// Elem and Len describe an array.
	Elem ValueType
	Len  uint64
	// Elems are the array's elements, nil when Len > KeptArray or the
	// header's kept elements would pass MaxKeptElems.
	Elems []Value

	u uint64 // unsigned integers and bool
	i int64  // signed integers
	f float64
	s string
}

// Int returns an integer value (of any integer type) and whether the
// value is one. A float is not, even a whole one: llama.cpp reads a count
// such as block_count as an integer key and refuses a file that stores it
// as a float, and so does blsim.
func (v Value) Int() (int64, bool) {
	switch v.Type {
	case Uint8, Uint16, Uint32, Uint64:
		if v.u > math.MaxInt64 {
			return 0, false
		}
		return int64(v.u), true
	case Int8, Int16, Int32, Int64:
		return v.i, true
	}
	return 0, false
}

// Float returns a numeric value as a float64.
func (v Value) Float() (float64, bool) {
	switch v.Type {
	case Float32, Float64:
		return v.f, true
	}
	if n, ok := v.Int(); ok {
		return float64(n), true
	}
	return 0, false
}

// Bool returns a bool value.
func (v Value) Bool() (bool, bool) {
	if v.Type != Bool {
		return false, false
	}
	return v.u != 0, true
}

// Str returns a string value.
func (v Value) Str() (string, bool) {
	if v.Type != String {
		return "", false
	}
	return v.s, true
}

// String formats the value for people: a scalar as itself, an array as
// its type and length with its first elements.
func (v Value) String() string {
	switch v.Type {
	case String:
		s := v.s
		if len(s) > 60 {
			s = s[:57] + "..."
		}
		return fmt.Sprintf("%q", s)
	case Bool:
		return fmt.Sprint(v.u != 0)
	case Float32, Float64:
		return fmt.Sprint(v.f)
	case Array:
		var b strings.Builder
		fmt.Fprintf(&b, "[%d x %s]", v.Len, v.Elem)
		if len(v.Elems) > 0 {
			b.WriteString(" ")
			for i, e := range v.Elems {
				if i == 8 {
					b.WriteString(" ...")
					break
				}
				if i > 0 {
					b.WriteString(" ")
				}
				b.WriteString(e.String())
			}
		}
		return b.String()
	}
	n, _ := v.Int()
	if v.Type == Uint64 && v.u > math.MaxInt64 {
		return fmt.Sprint(v.u)
	}
	return fmt.Sprint(n)
}

// KV is one metadata key and its value.
type KV struct {
	Key   string
	Value Value
}
