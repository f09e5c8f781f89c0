package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReplaceDir(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "out")
	mk := func(name, file, body string) string {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, file), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := CheckReplaceable(dir, []string{"a.md"}); err != nil {
		t.Fatalf("a folder that does not exist: %v", err)
	}
	if err := ReplaceDir(mk("tmp1", "a.md", "one"), dir); err != nil {
		t.Fatal(err)
	}
	if err := CheckReplaceable(dir, []string{"a.md"}); err != nil {
		t.Fatalf("a previous output: %v", err)
	}
	if err := ReplaceDir(mk("tmp2", "a.md", "two"), dir); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.md")); string(b) != "two" {
		t.Errorf("after replacing: %q", b)
	}
	if ents, _ := os.ReadDir(base); len(ents) != 1 {
		t.Errorf("%d entries left in the base folder, want the output alone", len(ents))
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckReplaceable(dir, []string{"a.md"}); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("a folder with a file of the user's: %v", err)
	}
	f := filepath.Join(base, "file")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckReplaceable(f, nil); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("a file: %v", err)
	}
}

// TempDir makes an empty folder, readable by all, beside the one it will
// replace.
func TestTempDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	tmp, err := TempDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(tmp)
	if err != nil || !st.IsDir() || st.Mode().Perm() != 0o755 || filepath.Dir(tmp) != filepath.Dir(dir) ||
		!strings.HasPrefix(filepath.Base(tmp), ".report.tmp-") {
		t.Errorf("%s: %v, %v", tmp, st.Mode(), err)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("%s holds %v", tmp, ents)
	}
	if _, err := TempDir(filepath.Join(dir, "no", "such")); err == nil {
		t.Error("a folder in a parent that does not exist")
	}
}
