package runner

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"llama-bench -m model.gguf -p 512 -n 0 -o jsonl", []string{"llama-bench", "-m", "model.gguf", "-p", "512", "-n", "0", "-o", "jsonl"}},
		{"  a \t b\n c  ", []string{"a", "b", "c"}},
		{`'a b' "c d"`, []string{"a b", "c d"}},
		{`a\ b`, []string{"a b"}},
		{`"a\"b" "a\\b" "a\$b" "a\nb"`, []string{`a"b`, `a\b`, `a$b`, `a\nb`}},
		{`'a\b' 'it''s'`, []string{`a\b`, `its`}},
		{`'' ""`, []string{"", ""}},
		{`a"b c"'d e'f`, []string{"ab cd ef"}},
		{"a\\\nb \"c\\\nd\"", []string{"ab", "cd"}},
		{`-m "/models/My Model.gguf"`, []string{"-m", "/models/My Model.gguf"}},
		// No shell: operators, substitutions and globs are words.
		{`echo $HOME *.gguf | grep x; rm -rf / && y > out 2>&1 &`,
			[]string{"echo", "$HOME", "*.gguf", "|", "grep", "x;", "rm", "-rf", "/", "&&", "y", ">", "out", "2>&1", "&"}},
		{`$(rm -rf x) ` + "`id`", []string{"$(rm", "-rf", "x)", "`id`"}},
		{`# not a comment`, []string{"#", "not", "a", "comment"}},
		{`"$(rm -rf x)"`, []string{"$(rm -rf x)"}},
	} {
		got, err := SplitCommand(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, msg string }{
		{`'abc`, "unterminated '"},
		{`a "abc`, `unterminated "`},
		{`"abc\"`, `unterminated "`},
		{`abc\`, "trailing backslash"},
		{``, "no words"},
		{" \t\n", "no words"},
	} {
		if got, err := SplitCommand(tc.in); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("SplitCommand(%q) = %q, %v; want an error with %q", tc.in, got, err, tc.msg)
		}
	}
}

func TestQuoteCommand(t *testing.T) {
	words := []string{"llama-bench", "-m", "my model.gguf", "it's", "", `a\b`, "$(x)"}
	got := QuoteCommand(words)
	back, err := SplitCommand(got)
	if err != nil || strings.Join(back, "|") != strings.Join(words, "|") {
		t.Errorf("%s read back as %q, %v", got, back, err)
	}
}
