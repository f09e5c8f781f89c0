package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVerdictsDocNamesExist: every Go identifier docs/verdicts.md names
// in backticks as pkg.Name, pkg.Type.Member or pkg.Func(…) exists in that
// package's non-test code (a function, type, variable, constant, method
// or struct field), so that the page cannot name an API that is not
// there (it named model.Modes(), which only a test exports). The names
// it gives as retired are listed here with what replaced them, and must
// not exist.
func TestVerdictsDocNamesExist(t *testing.T) {
	retired := map[string]string{
		"predict.SweepWhatIf": "folded into WhatIfOf(nil, …)",
		"public.ScoreWith":    "folded into Score",
	}
	doc, err := os.ReadFile("../../docs/verdicts.md")
	if err != nil {
		t.Fatal(err)
	}
	dirs := packageDirs(t, "../..")
	span := regexp.MustCompile("`([^`\n]+)`")
	name := regexp.MustCompile(`^([a-z]+)\.([A-Z]\w*)(?:\.([A-Z]\w*))?(?:\(.*\))?$`)
	names := map[string]map[string]bool{} // package name: its identifiers
	checked := 0
	for _, m := range span.FindAllStringSubmatch(string(doc), -1) {
		n := name.FindStringSubmatch(m[1])
		if n == nil || dirs[n[1]] == nil {
			continue
		}
		pkg, id := n[1], n[2]
		if n[3] != "" {
			id += "." + n[3]
		}
		if names[pkg] == nil {
			names[pkg] = identifiers(t, dirs[pkg])
		}
		full := pkg + "." + id
		checked++
		if why, ok := retired[full]; ok {
			if names[pkg][id] {
				t.Errorf("docs/verdicts.md gives %s as retired (%s), but it exists", full, why)
			}
			continue
		}
		if !names[pkg][id] {
			t.Errorf("docs/verdicts.md names %s, which package %s (%s) does not have", m[1], pkg, strings.Join(dirs[pkg], ", "))
		}
	}
	if checked < 20 {
		t.Errorf("checked %d names in docs/verdicts.md; the pattern found too few", checked)
	}
}

// packageDirs are the module's package folders by package name (a name
// can be several folders'), skipping testdata.
func packageDirs(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			dir := filepath.Dir(p)
			base := filepath.Base(dir)
			for _, x := range out[base] {
				if x == dir {
					return nil
				}
			}
			out[base] = append(out[base], dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// identifiers are the top-level names of the non-test Go files in dirs,
// with each type's methods and struct fields as Type.Name.
func identifiers(t *testing.T, dirs []string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	fset := token.NewFileSet()
	for _, dir := range dirs {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil {
						out[d.Name.Name] = true
						continue
					}
					typ := d.Recv.List[0].Type
					if s, ok := typ.(*ast.StarExpr); ok {
						typ = s.X
					}
					if g, ok := typ.(*ast.IndexExpr); ok {
						typ = g.X
					}
					if id, ok := typ.(*ast.Ident); ok {
						out[id.Name+"."+d.Name.Name] = true
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							out[s.Name.Name] = true
							if st, ok := s.Type.(*ast.StructType); ok {
								for _, fl := range st.Fields.List {
									for _, n := range fl.Names {
										out[s.Name.Name+"."+n.Name] = true
									}
									if len(fl.Names) == 0 { // embedded
										typ := fl.Type
										if star, ok := typ.(*ast.StarExpr); ok {
											typ = star.X
										}
										if sel, ok := typ.(*ast.SelectorExpr); ok {
											out[s.Name.Name+"."+sel.Sel.Name] = true
										} else if id, ok := typ.(*ast.Ident); ok {
											out[s.Name.Name+"."+id.Name] = true
										}
									}
								}
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								out[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return out
}
