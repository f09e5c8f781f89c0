package gguf

import (
	"fmt"
)

// Type is a GGML tensor type, the number a GGUF tensor info stores
// (ggml/include/ggml.h, enum ggml_type).
type Type uint32

// typeInfo is one row of ggml's type_traits: the type's name, how many
// weights a block holds and how many bytes it takes.
type typeInfo struct {
	name  string // lower case: ggml spells the k-quants "q4_K"
	block int64
	bytes int64
}

// types mirrors ggml/src/ggml.c type_traits (blck_size, type_size), the
// block structs of ggml/src/ggml-common.h, checked with sizeof against a
// llama.cpp checkout (build 4748) and, for mxfp4 and nvfp4, the
// static_asserts of the current ggml-common.h. Ids 4, 5 (the removed
// q4_2, q4_3) and 31-33, 36-38 (the removed repacked layouts) are not
// types a GGUF may hold.
var types = map[Type]typeInfo{
	0:  {"f32", 1, 4},
	1:  {"f16", 1, 2},
	2:  {"q4_0", 32, 18},
	3:  {"q4_1", 32, 20},
	6:  {"q5_0", 32, 22},
	7:  {"q5_1", 32, 24},
	8:  {"q8_0", 32, 34},
	9:  {"q8_1", 32, 36},
	10: {"q2_k", 256, 84},
	11: {"q3_k", 256, 110},
	12: {"q4_k", 256, 144},
	13: {"q5_k", 256, 176},
	14: {"q6_k", 256, 210},
	15: {"q8_k", 256, 292},
	16: {"iq2_xxs", 256, 66},
	17: {"iq2_xs", 256, 74},
	18: {"iq3_xxs", 256, 98},
	19: {"iq1_s", 256, 50},
	20: {"iq4_nl", 32, 18},
	21: {"iq3_s", 256, 110},
	22: {"iq2_s", 256, 82},
	23: {"iq4_xs", 256, 136},
	24: {"i8", 1, 1},
	25: {"i16", 1, 2},
	26: {"i32", 1, 4},
	27: {"i64", 1, 8},
	28: {"f64", 1, 8},
	29: {"iq1_m", 256, 56},
	30: {"bf16", 1, 2},
	34: {"tq1_0", 256, 54},
	35: {"tq2_0", 256, 66},
	39: {"mxfp4", 32, 17},
	40: {"nvfp4", 64, 36},
}

// Known reports whether blsim knows the type's block layout.
func (t Type) Known() bool {
	_, ok := types[t]
	return ok
}

// String is the type's lower-case ggml name (q4_k, mxfp4), or "type N"
// for a type blsim does not know.
func (t Type) String() string {
	if ti, ok := types[t]; ok {
		return ti.name
	}
	return fmt.Sprintf("type %d", uint32(t))
}

// MarshalText writes the type's name (JSON map keys and values).
func (t Type) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// BlockWeights is how many weights one block of the type holds (0 when
// the type is unknown).
func (t Type) BlockWeights() int64 { return types[t].block }

// BlockBytes is the bytes of one block of the type (0 when unknown).
func (t Type) BlockBytes() int64 { return types[t].bytes }

// BitsPerWeight is the type's storage per weight, scales included:
// q4_0 4.5, q4_k 4.5, q6_k 6.5625, q8_0 8.5, mxfp4 4.25, f16 16.
func (t Type) BitsPerWeight() float64 {
	ti, ok := types[t]
	if !ok {
		return 0
	}
	return 8 * float64(ti.bytes) / float64(ti.block)
}

// TypeNames lists the names of the known types in id order.
func TypeNames() []string {
	var out []string
	for id := Type(0); id <= 40; id++ {
		if ti, ok := types[id]; ok {
			out = append(out, ti.name)
		}
	}
	return out
}
