package hfconfig

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blsim/blsim/gguf"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/quantize"
)

// TestAgainstLlamaQuantize: each small model of testdata/llamacpp, built
// from its config.json and a scheme, agrees with the GGUF llama-quantize
// (llama.cpp c392e50) wrote from the same config (its header, kept by
// quantize/testdata/llamacpp-quantize/make.py): the same tensors with the
// same types, and, to the printed digit, the same workload YAML and the
// same summary (`workloads show --gguf`), but for the name of the file.
func TestAgainstLlamaQuantize(t *testing.T) {
	files, err := filepath.Glob("testdata/llamacpp/*.gguf")
	if err != nil || len(files) < 28 {
		t.Fatalf("headers: %v, %v", files, err)
	}
	for _, path := range files {
		base := strings.TrimSuffix(filepath.Base(path), ".gguf")
		i := strings.LastIndex(base, "-")
		name, schemeName := base[:i], base[i+1:]
		t.Run(base, func(t *testing.T) {
			s, err := quantize.Parse(schemeName)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Load(filepath.Join("testdata/llamacpp", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			built, err := Build(c, name, s, quantize.Options{})
			if err != nil {
				t.Fatal(err)
			}
			real, err := gguf.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			types := map[string]string{}
			for _, tn := range real.File.Tensors {
				types[tn.Name] = tn.Type.String() + " " + dims(tn.Dims)
			}
			if len(real.File.Tensors) != len(built.GGUF.File.Tensors) {
				t.Errorf("%d tensors, the file has %d", len(built.GGUF.File.Tensors), len(real.File.Tensors))
			}
			for _, tn := range built.GGUF.File.Tensors {
				if got, want := tn.Type.String()+" "+dims(tn.Dims), types[tn.Name]; got != want {
					t.Errorf("%s: %s, the file has %q", tn.Name, got, want)
				}
			}
			if built.Bytes() != real.DataBytes() {
				t.Errorf("%d bytes, the file %d", built.Bytes(), real.DataBytes())
			}
			rw, err := real.Workload()
			if err != nil {
				t.Fatal(err)
			}
			if got, want := yamlOf(t, built.Workload()), yamlOf(t, rw); got != want {
				t.Errorf("workload YAML differs:\n%s\nfile:\n%s", got, want)
			}
			var a, b bytes.Buffer
			if err := built.GGUF.Summary(&a, 512); err != nil {
				t.Fatal(err)
			}
			if err := real.Summary(&b, 512); err != nil {
				t.Fatal(err)
			}
			if got, want := dropFirstLine(a.String()), dropFirstLine(b.String()); got != want {
				t.Errorf("summary differs:\n%s\nfile:\n%s", got, want)
			}
		})
	}
}

func dims(d []int64) string {
	var parts []string
	for _, x := range d {
		parts = append(parts, strconv.FormatInt(x, 10))
	}
	return strings.Join(parts, "x")
}

// yamlOf is the workload's YAML without its name and description, which
// name the file or the config.
func yamlOf(t *testing.T, w *model.Workload) string {
	t.Helper()
	c := *w
	c.Name, c.Description = "", ""
	b, err := model.MarshalWorkload(&c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dropFirstLine drops the summary's first line, which names the file,
// and the note that the file is a header only (the test keeps headers).
func dropFirstLine(s string) string {
	_, rest, _ := strings.Cut(s, "\n")
	var keep []string
	for _, l := range strings.Split(rest, "\n") {
		if !strings.Contains(l, "a partial download or a header-only file") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
