package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blsim/blsim/internal/cli"
	"github.com/spf13/cobra"
)

// TestDocExamplesParse: every blsim command line the README, the docs
// pages and each command's --help examples show names a command that
// exists, with flags it has and arguments it takes, so that no example
// goes stale when a flag is renamed. Commands are parsed, not run; a file
// an example names need not exist (a GGUF is a fixture: --gguf reads it
// while parsing).
func TestDocExamplesParse(t *testing.T) {
	type example struct{ where, line string }
	var all []example
	files, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	files = append(files, filepath.Join("..", "..", "README.md"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range docCommands(string(b)) {
			all = append(all, example{filepath.Base(f), l})
		}
	}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, l := range docCommands("```sh\n" + c.Example + "\n```\n") {
			all = append(all, example{c.CommandPath() + " --help", l})
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd(io.Discard, io.Discard))
	if len(all) < 50 {
		t.Fatalf("only %d examples found", len(all))
	}
	for _, ex := range all {
		if err := parseExample(ex.line); err != nil {
			t.Errorf("%s: %s: %v", ex.where, ex.line, err)
		}
	}
}

// docCommands returns the blsim command lines in a markdown text's code
// blocks: lines starting with blsim, ./blsim or $ blsim (after
// environment assignments), continuation lines joined.
func docCommands(md string) []string {
	var out []string
	in := false
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "```") {
			in = !in
			continue
		}
		if !in {
			continue
		}
		for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, "\\") + " " + strings.TrimSpace(lines[i])
		}
		l = strings.TrimPrefix(l, "$ ")
		for {
			f, rest, ok := strings.Cut(l, " ")
			if !ok || !strings.Contains(f, "=") || strings.HasPrefix(f, "-") {
				break
			}
			l = rest
		}
		l = strings.TrimPrefix(l, "./")
		if strings.HasPrefix(l, "blsim ") || l == "blsim" {
			out = append(out, l)
		}
	}
	return out
}

// parseExample parses one command line as blsim would, without running it.
func parseExample(line string) error {
	words, err := shellWords(line)
	if err != nil {
		return err
	}
	for i, w := range words {
		if strings.HasSuffix(w, ".gguf") { // --gguf reads the file's magic as it parses
			words[i] = filepath.Join("..", "..", "gguf", "testdata", "qwen3moe.gguf")
		}
	}
	root := newRootCmd(io.Discard, io.Discard)
	root.InitDefaultCompletionCmd()
	cmd, args, err := root.Find(cli.LlamaBenchArgs(words[1:]))
	if err != nil {
		return err
	}
	if err := cmd.ParseFlags(args); err != nil {
		return err
	}
	return cmd.ValidateArgs(cmd.Flags().Args())
}

// shellWords splits a command line as sh would (quotes, no expansion),
// stopping at a comment, a pipe, a redirection or a command separator.
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	have := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, have = r, true
		case r == ' ' || r == '\t':
			if have {
				words = append(words, cur.String())
				cur.Reset()
				have = false
			}
		case !have && strings.ContainsRune("#|>&;<", r):
			return words, nil
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if quote != 0 {
		return nil, errUnclosedQuote
	}
	if have {
		words = append(words, cur.String())
	}
	return words, nil
}

var errUnclosedQuote = errorString("an unclosed quote")

type errorString string

func (e errorString) Error() string { return string(e) }
