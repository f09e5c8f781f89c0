package quantize

import (
	"fmt"
	"sort"
	"strings"

	"github.com/blsim/blsim/gguf"
)

// Scheme is a llama.cpp file type (llama_ftype), numbered as a GGUF's
// general.file_type stores it.
type Scheme int

// The schemes of llama.cpp c392e50, and the 2024 interleaved Q4_0 ones.
const (
	F32     Scheme = 0
	F16     Scheme = 1
	Q4_0    Scheme = 2
	Q4_1    Scheme = 3
	Q8_0    Scheme = 7
	Q5_0    Scheme = 8
	Q5_1    Scheme = 9
	Q2_K    Scheme = 10
	Q3_K_S  Scheme = 11
	Q3_K_M  Scheme = 12
	Q3_K_L  Scheme = 13
	Q4_K_S  Scheme = 14
	Q4_K_M  Scheme = 15
	Q5_K_S  Scheme = 16
	Q5_K_M  Scheme = 17
	Q6_K    Scheme = 18
	IQ2_XXS Scheme = 19
	IQ2_XS  Scheme = 20
	Q2_K_S  Scheme = 21
	IQ3_XS  Scheme = 22
	IQ3_XXS Scheme = 23
	IQ1_S   Scheme = 24
	IQ4_NL  Scheme = 25
	IQ3_S   Scheme = 26
	IQ3_M   Scheme = 27
	IQ2_S   Scheme = 28
	IQ2_M   Scheme = 29
	IQ4_XS  Scheme = 30
	IQ1_M   Scheme = 31
	BF16    Scheme = 32
	// Q4_0_4_4, Q4_0_4_8 and Q4_0_8_8 are the interleaved Q4_0 file types
	// of 2024-07-10 to 2024-12-07 (see the package doc).
	Q4_0_4_4 Scheme = 33
	Q4_0_4_8 Scheme = 34
	Q4_0_8_8 Scheme = 35
	TQ1_0    Scheme = 36
	TQ2_0    Scheme = 37
)

// The GGML types the rules name (ggml.h's enum ggml_type).
const (
	tF32    gguf.Type = 0
	tF16    gguf.Type = 1
	tQ4_0   gguf.Type = 2
	tQ4_1   gguf.Type = 3
	tQ5_0   gguf.Type = 6
	tQ5_1   gguf.Type = 7
	tQ8_0   gguf.Type = 8
	tQ2_K   gguf.Type = 10
	tQ3_K   gguf.Type = 11
	tQ4_K   gguf.Type = 12
	tQ5_K   gguf.Type = 13
	tQ6_K   gguf.Type = 14
	tIQ2XXS gguf.Type = 16
	tIQ2XS  gguf.Type = 17
	tIQ3XXS gguf.Type = 18
	tIQ1S   gguf.Type = 19
	tIQ4NL  gguf.Type = 20
	tIQ3S   gguf.Type = 21
	tIQ2S   gguf.Type = 22
	tIQ4XS  gguf.Type = 23
	tIQ1M   gguf.Type = 29
	tBF16   gguf.Type = 30
	tTQ1_0  gguf.Type = 34
	tTQ2_0  gguf.Type = 35
)

// schemeInfo is a scheme's name as llama-quantize spells it and the type
// every quantized tensor starts from (llama.cpp's default_type).
type schemeInfo struct {
	name string
	def  gguf.Type
}

var schemes = map[Scheme]schemeInfo{
	F32: {"F32", tF32}, F16: {"F16", tF16}, BF16: {"BF16", tBF16},
	Q4_0: {"Q4_0", tQ4_0}, Q4_1: {"Q4_1", tQ4_1}, Q5_0: {"Q5_0", tQ5_0}, Q5_1: {"Q5_1", tQ5_1}, Q8_0: {"Q8_0", tQ8_0},
	Q2_K: {"Q2_K", tQ2_K}, Q2_K_S: {"Q2_K_S", tQ2_K},
	Q3_K_S: {"Q3_K_S", tQ3_K}, Q3_K_M: {"Q3_K_M", tQ3_K}, Q3_K_L: {"Q3_K_L", tQ3_K},
	Q4_K_S: {"Q4_K_S", tQ4_K}, Q4_K_M: {"Q4_K_M", tQ4_K},
	Q5_K_S: {"Q5_K_S", tQ5_K}, Q5_K_M: {"Q5_K_M", tQ5_K}, Q6_K: {"Q6_K", tQ6_K},
	IQ2_XXS: {"IQ2_XXS", tIQ2XXS}, IQ2_XS: {"IQ2_XS", tIQ2XS}, IQ2_S: {"IQ2_S", tIQ2XS}, IQ2_M: {"IQ2_M", tIQ2S},
	IQ3_XXS: {"IQ3_XXS", tIQ3XXS}, IQ3_XS: {"IQ3_XS", tIQ3S}, IQ3_S: {"IQ3_S", tIQ3S}, IQ3_M: {"IQ3_M", tIQ3S},
	IQ1_S: {"IQ1_S", tIQ1S}, IQ1_M: {"IQ1_M", tIQ1M},
	IQ4_NL: {"IQ4_NL", tIQ4NL}, IQ4_XS: {"IQ4_XS", tIQ4XS},
	TQ1_0: {"TQ1_0", tTQ1_0}, TQ2_0: {"TQ2_0", tTQ2_0},
	Q4_0_4_4: {"Q4_0_4_4", tQ4_0}, Q4_0_4_8: {"Q4_0_4_8", tQ4_0}, Q4_0_8_8: {"Q4_0_8_8", tQ4_0},
}

// laterSchemes are file types of llama.cpp builds after c392e50.
var laterSchemes = map[string]string{
	"MXFP4_MOE": "a 2025-08 file type for routed experts (MXFP4 experts, the rest Q8_0: gpt-oss)",
	"NVFP4":     "a 2026 file type",
}

// aliases are llama-quantize's other names for a scheme.
var aliases = map[string]Scheme{"Q3_K": Q3_K_M, "Q4_K": Q4_K_M, "Q5_K": Q5_K_M}

// String is the scheme's name as llama-quantize spells it (Q4_K_M).
func (s Scheme) String() string {
	if i, ok := schemes[s]; ok {
		return i.name
	}
	return fmt.Sprintf("scheme %d", int(s))
}

// MarshalText writes the scheme's name.
func (s Scheme) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Legacy reports whether s is one of the interleaved Q4_0 file types that
// llama.cpp had from 2024-07-10 to 2024-12-07.
func (s Scheme) Legacy() bool { return s == Q4_0_4_4 || s == Q4_0_4_8 || s == Q4_0_8_8 }

// NeedsImatrix reports whether llama-quantize refuses s without an
// importance matrix (some of its tensors would be IQ1, IQ2 or, in Q2_K_S,
// Q2_K).
func (s Scheme) NeedsImatrix() bool {
	switch s {
	case IQ2_XXS, IQ2_XS, IQ2_S, IQ2_M, IQ1_S, IQ1_M, Q2_K_S:
		return true
	}
	return false
}

// Default is the type every quantized tensor of s starts from.
func (s Scheme) Default() gguf.Type { return schemes[s].def }

// quantized reports whether the scheme's default type is a quantized one
// (llama.cpp's ggml_is_quantized): the per-tensor rules apply only then.
func (s Scheme) quantized() bool {
	d := s.Default()
	return d != tF32 && d != tF16 && d != tBF16
}

// Schemes lists every scheme, by llama.cpp's number.
func Schemes() []Scheme {
	out := make([]Scheme, 0, len(schemes))
	for s := range schemes {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Names lists the schemes' names, in Schemes order.
func Names() []string {
	var out []string
	for _, s := range Schemes() {
		out = append(out, s.String())
	}
	return out
}

// Parse returns the scheme named name, in any case, with llama-quantize's
// aliases (Q4_K is Q4_K_M). An unknown name is an error naming the
// nearest known ones.
func Parse(name string) (Scheme, error) {
	n := strings.ToUpper(strings.TrimSpace(name))
	if s, ok := aliases[n]; ok {
		return s, nil
	}
	for s, i := range schemes {
		if i.name == n {
			return s, nil
		}
	}
	if later, ok := laterSchemes[n]; ok {
		return 0, fmt.Errorf("quantization scheme %s is %s, after llama.cpp c392e50, whose rules blsim follows: read such a GGUF with --gguf", n, later)
	}
	return 0, fmt.Errorf("unknown quantization scheme %q (nearest: %s; all: %s)", name, strings.Join(nearest(n, Names(), 3), ", "), strings.Join(Names(), " "))
}

// nearest returns up to k of names closest to n by edit distance.
func nearest(n string, names []string, k int) []string {
	type scored struct {
		name string
		d    int
	}
	var s []scored
	for _, m := range names {
		s = append(s, scored{m, editDistance(n, m)})
	}
	sort.SliceStable(s, func(i, j int) bool { return s[i].d < s[j].d })
	var out []string
	for i := 0; i < k && i < len(s); i++ {
		out = append(out, s[i].name)
	}
	return out
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
