package quantize

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blsim/blsim/gguf"
)

// recorded is one model of testdata/llamacpp-quantize: its hparams, its
// tensors as converted, and the type llama-quantize gave each tensor
// under each scheme (a column "Q4_K_M" or "Q4_0+imatrix").
type recorded struct {
	file    string
	model   Model
	tensors []gguf.Tensor
	columns []string
	types   [][]string // [tensor][column]
}

func readRecorded(t *testing.T, path string) *recorded {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := &recorded{file: filepath.Base(path)}
	sc := bufio.NewScanner(f)
	header := false
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		switch {
		case strings.HasPrefix(text, "# arch="):
			for _, kv := range strings.Fields(text[2:]) {
				k, v, _ := strings.Cut(kv, "=")
				n, _ := strconv.Atoi(v)
				switch k {
				case "arch":
					r.model.Arch = v
				case "layers":
					r.model.Layers = n
				case "heads":
					r.model.Heads = n
				case "kv_heads":
					r.model.KVHeads = n
				case "experts":
					r.model.Experts = n
				}
			}
		case strings.HasPrefix(text, "#"):
		case !header:
			r.columns = strings.Split(text, "\t")[3:]
			header = true
		default:
			cols := strings.Split(text, "\t")
			if len(cols) != 3+len(r.columns) {
				t.Fatalf("%s:%d: %d columns, want %d", path, line, len(cols), 3+len(r.columns))
			}
			tn := gguf.Tensor{Name: cols[0]}
			for _, d := range strings.Split(cols[1], "x") {
				n, err := strconv.ParseInt(d, 10, 64)
				if err != nil {
					t.Fatalf("%s:%d: dims %q", path, line, cols[1])
				}
				tn.Dims = append(tn.Dims, n)
			}
			typ, ok := typeByName(cols[2])
			if !ok {
				t.Fatalf("%s:%d: type %q", path, line, cols[2])
			}
			tn.Type = typ
			r.tensors = append(r.tensors, tn)
			r.types = append(r.types, cols[3:])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if r.model.Layers == 0 || len(r.tensors) == 0 {
		t.Fatalf("%s: no model line or no tensors", path)
	}
	return r
}

// TestLlamaQuantize: for every recorded model and scheme, Expand gives
// every tensor the type llama-quantize of llama.cpp c392e50 gave it
// (testdata/llamacpp-quantize/make.py wrote the records).
func TestLlamaQuantize(t *testing.T) {
	files, err := filepath.Glob("testdata/llamacpp-quantize/*.tsv")
	if err != nil || len(files) < 7 {
		t.Fatalf("recorded models: %v, %v", files, err)
	}
	schemesSeen := map[string]bool{}
	for _, path := range files {
		r := readRecorded(t, path)
		for c, col := range r.columns {
			name, im := strings.CutSuffix(col, "+imatrix")
			t.Run(r.file+"/"+col, func(t *testing.T) {
				s, err := Parse(name)
				if err != nil {
					t.Fatal(err)
				}
				schemesSeen[col] = true
				res, err := Expand(s, r.model, r.tensors, Options{Imatrix: im})
				if err != nil {
					t.Fatal(err)
				}
				bad := 0
				for i, tn := range res.Tensors {
					if got, want := tn.Type.String(), r.types[i][c]; got != want {
						if bad < 5 {
							t.Errorf("%s: %s, llama-quantize gave %s", tn.Name, got, want)
						}
						bad++
					}
				}
				if bad > 0 {
					t.Errorf("%d of %d tensors differ", bad, len(res.Tensors))
				}
			})
		}
	}
	for _, s := range Schemes() {
		if !s.Legacy() && s != F32 && !schemesSeen[s.String()] && !schemesSeen[s.String()+"+imatrix"] {
			t.Errorf("scheme %s is not in the records", s)
		}
	}
}

// TestRefusals: what llama-quantize refuses is refused, in one line naming
// the scheme and, where it is one tensor's, the tensor.
func TestRefusals(t *testing.T) {
	m := Model{Arch: "llama", Layers: 2, Heads: 4, KVHeads: 4}
	ts := []gguf.Tensor{
		{Name: "token_embd.weight", Dims: []int64{256, 64}, Type: tF16},
		{Name: "blk.0.attn_q.weight", Dims: []int64{256, 256}, Type: tF16},
		{Name: "blk.0.attn_k.weight", Dims: []int64{256, 256}, Type: tF16},
		{Name: "blk.0.attn_v.weight", Dims: []int64{256, 256}, Type: tF16},
		{Name: "blk.1.attn_v.weight", Dims: []int64{256, 256}, Type: tF16},
	}
	odd := []gguf.Tensor{{Name: "blk.0.attn_q.weight", Dims: []int64{40, 256}, Type: tF16}, ts[3], ts[4]}
	for _, tc := range []struct {
		s    Scheme
		ts   []gguf.Tensor
		want string
	}{
		{IQ2_XS, ts, "IQ2_XS: llama-quantize refuses it without an importance matrix"},
		{IQ3_XXS, ts, "IQ3_XXS: tensor blk.0.attn_k.weight: would be iq2_s, which llama-quantize refuses without an importance matrix"},
		{Q4_0, odd, "Q4_0: tensor blk.0.attn_q.weight: rows of 40 weights are not a multiple of q4_0's block of 32, and llama.cpp has no fallback for q4_0"},
		{Scheme(99), ts, "scheme 99: not a llama.cpp quantization scheme"},
	} {
		_, err := Expand(tc.s, m, tc.ts, Options{})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line starting %q", tc.s, err, tc.want)
		}
	}
	if _, err := Parse("Q4_K_X"); err == nil || !strings.Contains(err.Error(), "nearest: Q4_K_S, Q4_K_M") {
		t.Errorf("Parse(Q4_K_X): %v", err)
	}
	if _, err := Parse("mxfp4_moe"); err == nil || !strings.Contains(err.Error(), "after llama.cpp c392e50") {
		t.Errorf("Parse(mxfp4_moe): %v", err)
	}
	for _, n := range []string{"q4_k_m", "Q4_K", " iq4_xs "} {
		if _, err := Parse(n); err != nil {
			t.Errorf("Parse(%q): %v", n, err)
		}
	}
}

// TestLegacyInterleaved: the 2024 Q4_0_4_8 file type keeps the token
// embedding and rows not in fours plain Q4_0, the output head Q6_K.
func TestLegacyInterleaved(t *testing.T) {
	m := Model{Arch: "llama", Layers: 1, Heads: 4, KVHeads: 4}
	ts := []gguf.Tensor{
		{Name: "token_embd.weight", Dims: []int64{256, 64}, Type: tF16},
		{Name: "output.weight", Dims: []int64{256, 64}, Type: tF16},
		{Name: "blk.0.attn_q.weight", Dims: []int64{256, 256}, Type: tF16},
		{Name: "blk.0.ffn_down.weight", Dims: []int64{256, 6}, Type: tF16},
	}
	r, err := Expand(Q4_0_4_8, m, ts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(r.Tensors[0].Type, r.Tensors[1].Type, r.Tensors[2].Type, r.Tensors[3].Type)
	if got != "q4_0 q6_k q4_0 q4_0" {
		t.Errorf("types %s", got)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "1 weights hold Q4_0 blocks interleaved") || !strings.Contains(r.Notes[0], "2 plain Q4_0") {
		t.Errorf("notes %q", r.Notes)
	}
}

// typeByName is the GGUF type named name (any case).
func typeByName(name string) (gguf.Type, bool) {
	for t := range gguf.Type(64) {
		if strings.EqualFold(t.String(), name) {
			return t, true
		}
	}
	return 0, false
}
