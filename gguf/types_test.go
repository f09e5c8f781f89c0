package gguf

import (
	"testing"

	"github.com/blsim/blsim/model"
)

// TestTypeBits: bits per weight, scales included, of the types quantised
// models use (bytes per block / weights per block, ggml's type_traits).
func TestTypeBits(t *testing.T) {
	for name, want := range map[string]float64{
		"q4_0": 4.5, "q4_1": 5, "q5_0": 5.5, "q5_1": 6, "q8_0": 8.5,
		"q2_k": 2.625, "q3_k": 3.4375, "q4_k": 4.5, "q5_k": 5.5, "q6_k": 6.5625, "q8_k": 9.125,
		"iq4_xs": 4.25, "iq4_nl": 4.5, "iq2_xxs": 2.0625, "iq2_xs": 2.3125, "iq2_s": 2.5625,
		"iq3_xxs": 3.0625, "iq3_s": 3.4375, "iq1_s": 1.5625, "iq1_m": 1.75, "tq1_0": 1.6875, "tq2_0": 2.0625,
		"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "mxfp4": 4.25, "nvfp4": 4.5,
		"i8": 8, "i16": 16, "i32": 32, "i64": 64, "q8_1": 9,
	} {
		ty, ok := TypeByName(name)
		if !ok {
			t.Errorf("%s: not known", name)
			continue
		}
		if got := ty.BitsPerWeight(); got != want {
			t.Errorf("%s: %g bits per weight, want %g", name, got, want)
		}
		if ty.String() != name {
			t.Errorf("type %d is named %q, want %q", ty, ty, name)
		}
	}
	if ty, ok := TypeByName("Q4_K"); !ok || ty != 12 {
		t.Errorf("Q4_K is %d, %v", ty, ok)
	}
	if Type(4).Known() || Type(31).Known() || Type(41).Known() {
		t.Error("a removed or future type is known")
	}
	if Type(41).String() != "type 41" || Type(41).BitsPerWeight() != 0 {
		t.Errorf("type 41: %s, %g", Type(41), Type(41).BitsPerWeight())
	}
	if n := len(TypeNames()); n != len(types) {
		t.Errorf("TypeNames lists %d of %d types", n, len(types))
	}
}

// TestEveryTypeInAHeader: a tensor of every known type reads back with
// its type and exact byte size, and a class of mixed types reports each.
func TestEveryTypeInAHeader(t *testing.T) {
	b := newBuilder("llama")
	var want []Type
	for id := Type(0); id <= 40; id++ {
		if !id.Known() {
			continue
		}
		want = append(want, id)
		b.tensor("blk.0.ffn_gate."+id.String()+".weight", id, 256, 3) // rows of 256: every block size divides it
	}
	f, err := read(b.bytes())
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for i, te := range f.Tensors {
		if te.Type != want[i] {
			t.Fatalf("tensor %d has type %s, want %s", i, te.Type, want[i])
		}
		wantBytes := int64(256/want[i].BlockWeights()*want[i].BlockBytes()) * 3
		if te.Bytes() != wantBytes {
			t.Errorf("%s: %d bytes, want %d", te.Type, te.Bytes(), wantBytes)
		}
		total += wantBytes
	}
	stats := classStats(f.Tensors, 1, false)
	var other ClassStats
	for _, c := range stats {
		if c.Class == Other {
			other = c
		}
	}
	if other.Bytes != total || len(other.ByType) != len(want) {
		t.Errorf("class other: %d bytes of %d types, want %d of %d", other.Bytes, len(other.ByType), total, len(want))
	}
	if top, _ := other.Dominant(); top != 28 && top != 27 { // f64 or i64: 64 bits, the most bytes
		t.Errorf("dominant type %s", top)
	}
}

// TestModelTypeBits: the weight types an engine's kernel table may name
// (model.GGMLTypes) are types this reader knows, with the same bits per
// weight.
func TestModelTypeBits(t *testing.T) {
	for _, name := range model.GGMLTypes() {
		ty, ok := TypeByName(name)
		if !ok {
			t.Errorf("%s: a kernel-table type the reader does not know", name)
			continue
		}
		if b, _ := model.GGMLTypeBits(name); b != ty.BitsPerWeight() {
			t.Errorf("%s: model says %g bits per weight, the reader %g", name, b, ty.BitsPerWeight())
		}
	}
}
