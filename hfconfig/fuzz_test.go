package hfconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: any bytes read as a config.json either give a config whose
// shape is found or refused in one line naming the file, or a one-line
// error naming it; never a panic. The seeds are the model presets'
// configs, and the shapes issue 31 found in other readers: aliases that
// expand without end, huge counts.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "presets", "models", "*.yaml"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"architectures":["LlamaForCausalLM"],"num_hidden_layers":9223372036854775807,"hidden_size":4096,"num_attention_heads":32,"intermediate_size":11008,"vocab_size":32000}`))
	f.Add([]byte("a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"))
	f.Add([]byte(`{"text_config": {"model_type": "gemma3_text", "num_hidden_layers": -1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, "fuzz.json")
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, "fuzz.json") || strings.ContainsAny(msg, "\r\n") {
				t.Errorf("error %q: want one line naming the file", msg)
			}
			return
		}
		if _, err := c.Shape(); err != nil {
			if msg := err.Error(); strings.ContainsAny(msg, "\r\n") {
				t.Errorf("shape error %q: want one line", msg)
			}
		}
	})
}
