package presets

import (
	"math"
	"testing"

	"github.com/blsim/blsim/hfconfig"
	"github.com/blsim/blsim/quantize"
)

// TestModelPresetsPublishedSizes: every model preset builds for Q4_0,
// Q4_K_M and Q8_0, and its model, under each scheme some public source
// gives its GGUF's size for, comes within 2% of that size (llama-bench's
// tensor data, or a whole file's, whose header and tokenizer add a few
// MB) and, where llama-bench printed it, of its parameter count.
func TestModelPresetsPublishedSizes(t *testing.T) {
	names := ModelNames()
	if len(names) < 17 {
		t.Fatalf("%d model presets: %v", len(names), names)
	}
	for _, n := range names {
		p, err := Model(n)
		if err != nil {
			t.Fatal(err)
		}
		if p.Name != n {
			t.Errorf("%s: named %q", n, p.Name)
		}
		for _, s := range []quantize.Scheme{quantize.Q4_0, quantize.Q4_K_M, quantize.Q8_0} {
			if _, err := hfconfig.Build(p.Config, n, s, quantize.Options{}); err != nil {
				t.Errorf("%s %s: %v", n, s, err)
			}
		}
		for _, pub := range p.Published {
			s, err := quantize.Parse(pub.Scheme)
			if err != nil {
				t.Fatalf("%s: %v", n, err)
			}
			m, err := hfconfig.Build(p.Config, n, s, quantize.Options{})
			if err != nil {
				t.Fatalf("%s %s: %v", n, s, err)
			}
			want, file := pub.Bytes()
			got := float64(m.Bytes())
			t.Logf("%s %s: %.4g bytes (%.2f GiB, %.2f B params); published %.4g (%s)", n, s, got, got/(1<<30), float64(m.Params())/1e9, want, pub.Source)
			if math.Abs(got/want-1) > 0.02 {
				t.Errorf("%s %s: %.4g bytes, published %.4g (file %v, %s): not within 2%%", n, s, got, want, file, pub.Source)
			}
			if pub.ParamsB > 0 && math.Abs(float64(m.Params())/1e9-pub.ParamsB) > 0.006 {
				t.Errorf("%s: %.3f B parameters, llama-bench printed %.2f", n, float64(m.Params())/1e9, pub.ParamsB)
			}
		}
	}
}
