package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
)

// otherVocabulary are the non-test string literals that spell an enum's
// value but name something of another vocabulary, by file and value.
var otherVocabulary = map[string]string{
	"model/types.go f32":                 "GGML type names (the bits table)",
	"model/types.go f16":                 "GGML type names (the bits table)",
	"gguf/types.go f32":                  "GGML type names",
	"gguf/types.go f16":                  "GGML type names",
	"gguf/value.go f32":                  "GGUF metadata value types",
	"public/era.go f32":                  "GGML type names (sgemm's types)",
	"calibrate/probe/kernel.go f32":      "a probe kernel's name",
	"calibrate/llamabench/fields.go f16": "llama-bench's type_k/type_v default",
	"calibrate/runner/mapping.go token":  "the dispatcher's ORK_BL_SPLIT knob words",
	"calibrate/runner/mapping.go expert": "the dispatcher's ORK_BL_SPLIT knob words",
	"calibrate/topology/cluster.go cpu":  "a cluster's name",
	"calibrate/busy/proc.go cpu":         "/proc/stat and pressure file names",
	"measure/fastdecode.go cpu":          "a JSON key of a measurement record",
	"public/render.go pool":              "a CSV column",
	"report/markdown.go cpu":             "the provenance's CPU model line",
}

// TestNoEnumLiterals: the values of the typed enums (engine kinds, sharing
// policies, kernel classes, plan modes) are spelled in non-test Go code
// only where they are defined (model/enum and model/plan.go); everywhere
// else code names the constants, so a value cannot be mistyped or renamed
// in one place. A literal that spells a value of another vocabulary is
// listed, with which, in otherVocabulary.
func TestNoEnumLiterals(t *testing.T) {
	values := map[string]bool{model.Native.String(): true, model.PoolPlan.String(): true}
	for _, m := range model.SplitModes() {
		values[m.String()] = true
	}
	for _, k := range model.EngineKinds {
		values[k.String()] = true
	}
	for _, s := range model.Sharings {
		values[s.String()] = true
	}
	for _, c := range model.KernelClasses {
		values[c.String()] = true
	}
	defs := map[string]bool{"model/enum/enum.go": true, "model/plan.go": true}
	var hits []string
	used := map[string]bool{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("../..", path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || defs[rel] {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if fd, ok := n.(*ast.Field); ok && fd.Tag != nil {
				fd.Tag = nil // a struct tag names a JSON or YAML key
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if v, err := strconv.Unquote(lit.Value); err == nil && values[v] {
				key := rel + " " + v
				if _, ok := otherVocabulary[key]; ok {
					used[key] = true
				} else {
					hits = append(hits, key)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(hits)
	for _, h := range hits {
		t.Errorf("%s: an enum's value as a literal; name its constant (or list it in otherVocabulary with why)", h)
	}
	for k := range otherVocabulary {
		if !used[k] {
			t.Errorf("otherVocabulary lists %q, which no longer spells an enum value: remove it", k)
		}
	}
}
