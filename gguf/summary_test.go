package gguf

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden summaries in testdata/summary")

// TestSummaryGolden: `blsim workloads show --gguf` text for fixtures of
// each kind (MoE, hybrid, dense, sliding window, unmapped), against
// testdata/summary/NAME.txt; -update rewrites them, a mismatch leaves
// NAME.txt.got beside.
func TestSummaryGolden(t *testing.T) {
	for _, name := range []string{"qwen3moe", "qwen35moe", "llama-dense", "gemma2", "gpt-oss", "qwen2moe", "deepseek2"} {
		t.Run(name, func(t *testing.T) {
			m := readFixture(t, name+".gguf")
			var b bytes.Buffer
			if err := m.Summary(&b, 16); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "summary", name+".txt")
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./gguf -run TestSummaryGolden -update)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				_ = os.WriteFile(golden+".got", b.Bytes(), 0o644)
				t.Errorf("summary differs from %s (see %s.got)", golden, golden)
			}
		})
	}
}

// TestDescribe: the numbers behind the summary, for the qwen3moe fixture:
// 4 experts top-2 of FFN 32 at hidden 32 in 2 layers.
func TestDescribe(t *testing.T) {
	m := readFixture(t, "qwen3moe.gguf")
	d, err := m.Describe(3)
	if err != nil {
		t.Fatal(err)
	}
	e := d.Experts
	// gate and up: 2 x 32x32 q4_0 (4.5 bits); down 32x32, q8_0 in layer 0
	// and q4_1 (5 bits) in layer 1, averaged over the two layers.
	if e.GateUp != 2*32*32*4.5/8 || e.Down != 32*32*(8.5+5)/2/8 || e.Layers != 2 || e.All != int64(2*4*(e.GateUp+e.Down)) {
		t.Errorf("experts %+v", e)
	}
	// 3 tokens touch 4(1-(1-2/4)^3) = 3.5 experts of 4
	if e.Touched != 3.5 || e.TouchedBytes != 3.5*2*(e.GateUp+e.Down) {
		t.Errorf("touched %g (%g bytes)", e.Touched, e.TouchedBytes)
	}
	if d.Decode.Routed != float64(e.All)/2 {
		t.Errorf("routed bytes per token %g, want half of %d", d.Decode.Routed, e.All)
	}
	if len(d.Layers) != 1 || d.Layers[0].First != 0 || d.Layers[0].Last != 1 || d.OutputOp == nil || d.OutputOp.Out != 128 {
		t.Errorf("layers %+v, output %+v", d.Layers, d.OutputOp)
	}
	if _, err := m.Describe(0); err == nil {
		t.Error("ubatch 0 accepted")
	}
	var b strings.Builder
	if err := m.Summary(&b, 3); err != nil || !strings.Contains(b.String(), "touches 3.5 of 4 experts per layer") {
		t.Errorf("summary: %v\n%s", err, b.String())
	}
}

// TestDescriptionJSON: the description marshals for --json, types by name.
func TestDescriptionJSON(t *testing.T) {
	d, err := readFixture(t, "qwen3moe.gguf").Describe(16)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"ByType":{"q4_0":`, `"Kind":"expert_matmul"`, `"Kind":"F"`, `"TiedOutput":false`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s: %.400s", want, b)
		}
	}
}
