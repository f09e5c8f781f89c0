package main

import (
	"bufio"
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// docsFiguresScript records the one command of every figure in docs/.
const docsFiguresScript = "scripts/docs-figures.sh"

// figureCommand is one "blsim ..." line of the script: its line number,
// the line as written, and the figure it writes (docs/NAME.png).
type figureCommand struct {
	line int
	text string
	args []string
	out  string
}

// figureCommands reads the script's "blsim ..." lines (paths from the
// repository's root). A line a shell would expand, or one that writes
// outside docs/, is an error naming its line.
func figureCommands(path string) ([]figureCommand, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cmds []figureCommand
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(text, "blsim ") {
			continue
		}
		if strings.ContainsAny(text, "'\"$*?`\\;&|<>~") {
			return nil, fmt.Errorf("%s:%d: %q: a figure's command takes no quotes, variables, globs or redirections", path, n, text)
		}
		fields := strings.Fields(text)
		c := figureCommand{line: n, text: text, args: fields[1:]}
		for i, a := range c.args {
			if (a == "-o" || a == "--output") && i+1 < len(c.args) {
				c.out = c.args[i+1]
			}
		}
		if !strings.HasPrefix(c.out, "docs/") || filepath.Dir(c.out) != "docs" || filepath.Ext(c.out) != ".png" {
			return nil, fmt.Errorf("%s:%d: %q: want -o docs/NAME.png", path, n, text)
		}
		cmds = append(cmds, c)
	}
	return cmds, sc.Err()
}

// TestDocsFigures draws every figure in docs/ with its recorded command
// (scripts/docs-figures.sh) into a temporary folder and compares it with
// the file in docs/, byte for byte: the figures were drawn on amd64, and
// on another architecture, whose fused multiply-adds round otherwise, by
// decoded pixels as plots' goldens are. Every docs/*.png has exactly one
// command. Regenerate them with
//
//	go test ./cmd/blsim -run DocsFigures -update
//
// (what bash scripts/docs-figures.sh does) and look at them before
// committing.
func TestDocsFigures(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	cmds, err := figureCommands(docsFiguresScript)
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := filepath.Glob("docs/*.png")
	if err != nil {
		t.Fatal(err)
	}
	var recorded []string
	for _, c := range cmds {
		if slices.Contains(recorded, c.out) {
			t.Errorf("%s:%d: %s has another command above", docsFiguresScript, c.line, c.out)
		}
		recorded = append(recorded, c.out)
	}
	for _, f := range onDisk {
		if !slices.Contains(recorded, f) {
			t.Errorf("%s has no command in %s", f, docsFiguresScript)
		}
	}
	dir := t.TempDir()
	for _, c := range cmds {
		t.Run(filepath.Base(c.out), func(t *testing.T) {
			got := filepath.Join(dir, filepath.Base(c.out))
			args := slices.Clone(c.args)
			for i := range args {
				if args[i] == c.out {
					args[i] = got
				}
			}
			if *update {
				got = c.out
				args = c.args
			}
			var stdout, stderr bytes.Buffer
			if code := run(args, &stdout, &stderr); code != 0 {
				t.Fatalf("%s:%d: %s: exit %d: %s", docsFiguresScript, c.line, c.text, code, stderr.String())
			}
			if *update {
				return
			}
			a, err := os.ReadFile(got)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(c.out)
			if err != nil {
				t.Fatalf("%v (go test ./cmd/blsim -run DocsFigures -update draws it)", err)
			}
			if bytes.Equal(a, b) {
				return
			}
			if runtime.GOARCH == "amd64" {
				t.Fatalf("%s differs from what %s:%d draws (%s); go test ./cmd/blsim -run DocsFigures -update redraws it", c.out, docsFiguresScript, c.line, c.text)
			}
			n, total, err := pixelsDiffer(a, b)
			if err != nil {
				t.Fatal(err)
			}
			if n > total/200 {
				t.Fatalf("%s: %d of %d pixels differ from what %s:%d draws (%s)", c.out, n, total, docsFiguresScript, c.line, c.text)
			}
		})
	}
}

// pixelsDiffer counts the pixels of two PNGs of one size of which a
// channel differs by more than 16 of 255.
func pixelsDiffer(a, b []byte) (n, total int, err error) {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return 0, 0, err
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return 0, 0, err
	}
	r := ia.Bounds()
	if r != ib.Bounds() {
		return 0, 0, fmt.Errorf("sizes %v and %v", r, ib.Bounds())
	}
	far := func(x, y uint32) bool { return x > y+16<<8 || y > x+16<<8 }
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, a1 := ia.At(x, y).RGBA()
			r2, g2, b2, a2 := ib.At(x, y).RGBA()
			if far(r1, r2) || far(g1, g2) || far(b1, b2) || far(a1, a2) {
				n++
			}
		}
	}
	return n, r.Dx() * r.Dy(), nil
}

// imageRef is a figure a Markdown page shows: ![alt](path).
var imageRef = regexp.MustCompile(`!\[[^\]]*\]\(([^)\s]+\.png)\)`)

// TestDocsFiguresNamed: every figure in docs/ is shown on some page
// (README.md or docs/*.md), and every page that shows one names the
// figure's recorded command (whitespace, line breaks and backticks aside).
func TestDocsFiguresNamed(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	cmds, err := figureCommands(docsFiguresScript)
	if err != nil {
		t.Fatal(err)
	}
	byOut := map[string]figureCommand{}
	for _, c := range cmds {
		byOut[c.out] = c
	}
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, page := range append([]string{"README.md"}, pages...) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		flat := strings.Join(strings.Fields(strings.ReplaceAll(string(b), "`", " ")), " ")
		for _, m := range imageRef.FindAllStringSubmatch(string(b), -1) {
			fig := filepath.ToSlash(filepath.Join(filepath.Dir(page), m[1]))
			shown[fig] = true
			c, ok := byOut[fig]
			if !ok {
				t.Errorf("%s shows %s, which has no command in %s", page, fig, docsFiguresScript)
				continue
			}
			if !strings.Contains(flat, c.text) {
				t.Errorf("%s shows %s but does not name its command %q (%s:%d)", page, fig, c.text, docsFiguresScript, c.line)
			}
		}
	}
	for _, c := range cmds {
		if !shown[c.out] {
			t.Errorf("%s (%s:%d) is shown on no page", c.out, docsFiguresScript, c.line)
		}
	}
}
