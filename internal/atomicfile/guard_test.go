package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckOutput refuses an output that is an input by any name (a word of
// a command line, a NAME=VALUE part, a hard link), a link, a device, and
// one whose folder takes no file.
func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "model.gguf")
	os.WriteFile(model, []byte("GGUF"), 0o644)
	link := filepath.Join(dir, "hard.gguf")
	if err := os.Link(model, link); err != nil {
		t.Fatal(err)
	}
	for _, inputs := range [][]string{
		{model}, {"llama-bench -m " + model + " -p 512"}, {"-m=" + model}, {"a.yaml," + model}, {link},
	} {
		if err := CheckOutput(model, inputs...); err == nil || !strings.Contains(err.Error(), "is also an input") {
			t.Errorf("%q: %v", inputs, err)
		}
	}
	if err := CheckOutput(filepath.Join(dir, "new.yaml"), model); err != nil {
		t.Errorf("a new file: %v", err)
	}
	os.Symlink(model, filepath.Join(dir, "sym"))
	if err := CheckOutput(filepath.Join(dir, "sym")); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a symlink: %v", err)
	}
	if _, err := os.Stat("/proc/self"); err == nil {
		if err := CheckOutput("/proc/self/x.yaml"); err == nil || !strings.Contains(err.Error(), "cannot write in /proc/self") {
			t.Errorf("a folder that takes no file: %v", err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("the probe left files: %v", ents)
	}
}

// CheckDirOutput refuses a folder that cannot be replaced: a link, the
// current folder or one above it, the root.
func TestCheckDirOutput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for path, want := range map[string]string{dir: "current folder", filepath.Dir(dir): "current folder", "/": "current folder"} {
		if err := CheckDirOutput(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", path, err)
		}
	}
	os.Mkdir(filepath.Join(dir, "real"), 0o755)
	os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link"))
	if err := CheckDirOutput(filepath.Join(dir, "link")); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a link: %v", err)
	}
	if err := CheckDirOutput(filepath.Join(dir, "real")); err != nil {
		t.Errorf("a folder: %v", err)
	}
}

// TempDir removes the temporary folders of killed runs (their pid gone),
// not those of a run under way.
func TestTempDirStale(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "rep")
	dead := filepath.Join(base, ".rep.tmp-999999999-123")
	live := filepath.Join(base, ".rep.tmp-1-456") // init runs
	other := filepath.Join(base, ".other.tmp-999999999-1")
	for _, d := range []string{dead, live, other} {
		os.Mkdir(d, 0o755)
	}
	tmp, err := TempDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for d, want := range map[string]bool{dead: false, live: true, other: true, tmp: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", d, err == nil, want)
		}
	}
}

// Writable removes the probe files of killed runs (their pid gone), not
// those of a run under way, and leaves none of its own.
func TestWritableStaleProbes(t *testing.T) {
	dir := t.TempDir()
	dead := filepath.Join(dir, ".blsim-probe-999999999-123")
	live := filepath.Join(dir, ".blsim-probe-1-456") // init runs
	keep := filepath.Join(dir, ".blsim-probe-notapid")
	for _, f := range []string{dead, live, keep} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Writable(dir); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("left %d files, want the live probe and the unparsable one", len(ents))
	}
	for f, want := range map[string]bool{dead: false, live: true, keep: true} {
		if _, err := os.Stat(f); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", f, err == nil, want)
		}
	}
}
