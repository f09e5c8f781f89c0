package main

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

// want is what the program prints: the seed's verdict, as docs/library.md shows it.
const want = "PARITY: best token split, little 0.110, +0.68% [+0.2, +0.9]%\n"

// docPage is the docs page that shows this program, and docSection its
// heading there.
const (
	docPage    = "../../docs/library.md"
	docSection = "# Use as a Go library"
)

// TestDocPage checks that docs/library.md shows this program as it is,
// byte for byte, and the line it prints.
func TestDocPage(t *testing.T) {
	page, err := os.ReadFile(docPage)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut("\n"+string(page), "\n"+docSection+"\n")
	if !ok {
		t.Fatalf("docs/library.md has no %q section", docSection)
	}
	if i := strings.Index(sec, "\n# "); i >= 0 {
		sec = sec[:i]
	}
	_, code, ok := strings.Cut(sec, "\n```go\n")
	if !ok {
		t.Fatalf("docs/library.md's %q section has no ```go block", docSection)
	}
	code, _, ok = strings.Cut(code, "\n```\n")
	if !ok {
		t.Fatalf("docs/library.md's %q section: the ```go block does not end", docSection)
	}
	if code+"\n" != string(src) {
		t.Errorf("docs/library.md's %q section does not show main.go as it is; copy main.go into it:\n%s", docSection, src)
	}
	if !strings.Contains(sec, "\n"+want) {
		t.Errorf("docs/library.md's %q section does not show the line the program prints, %q", docSection, want)
	}
}

// TestOutput runs the program and checks what it prints.
func TestOutput(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	defer func() { os.Stdout = stdout }()
	done := make(chan []byte)
	go func() {
		var buf bytes.Buffer
		_, _ = io.Copy(&buf, r)
		done <- buf.Bytes()
	}()
	main()
	os.Stdout = stdout
	w.Close()
	got := string(<-done)
	r.Close()
	if got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}
