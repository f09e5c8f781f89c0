package layering

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestModelDocListsEveryPackage: docs/model.md, which the README points
// to for the layout, names every package of the module (or a folder
// above it, such as `examples/`), so that a new package cannot go
// unlisted.
func TestModelDocListsEveryPackage(t *testing.T) {
	skipShort(t)
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	doc, err := os.ReadFile("../../docs/model.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(doc)), " ")
	out, err := exec.Command(gobin, "list", mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(pkg, mod)
		if listed(text, rel) {
			continue
		}
		t.Errorf("docs/model.md does not name package %s", rel)
	}
}

// listed says whether text names rel, or a folder above it, in backticks.
func listed(text, rel string) bool {
	for p := rel; p != "." && p != ""; {
		if strings.Contains(text, "`"+p+"`") || strings.Contains(text, "`"+p+"/`") {
			return true
		}
		i := strings.LastIndex(p, "/")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return false
}
