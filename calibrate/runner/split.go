package runner

import (
	"errors"
	"fmt"
	"strings"
)

// SplitCommand splits a command line into words, the way a POSIX shell
// would split a simple command, but without the shell: it does quoting and
// nothing else.
//
//   - Words are separated by unquoted spaces, tabs and newlines.
//   - '...' keeps everything up to the next ' literally.
//   - "..." keeps everything literally except \" \\ \$ \` (the character
//     itself) and backslash-newline (removed); other backslashes stay.
//   - An unquoted backslash keeps the next character literally;
//     backslash-newline is removed.
//   - A pair of quotes with nothing between them makes an empty word.
//
// There is no globbing (* stays *), no parameter or command substitution
// ($HOME and $(cmd) stay as written), no comments (# is a character) and no
// operators: |, ;, &&, >, < and & are ordinary words or parts of words, which
// the program receives as arguments. An unterminated quote or a trailing
// backslash is an error, and so is a line with no words.
func SplitCommand(s string) ([]string, error) {
	var (
		words  []string
		cur    strings.Builder
		inWord bool // cur holds a word, possibly empty ("")
	)
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			flush()
		case '\\':
			if i+1 == len(s) {
				return nil, errors.New("command: trailing backslash")
			}
			i++
			if s[i] == '\n' {
				continue // line continuation
			}
			cur.WriteByte(s[i])
			inWord = true
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("command: unterminated ' quote at byte %d", i)
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case '"':
			start := i
			closed := false
			for i++; i < len(s); i++ {
				d := s[i]
				if d == '"' {
					closed = true
					break
				}
				if d == '\\' && i+1 < len(s) {
					switch s[i+1] {
					case '"', '\\', '$', '`':
						i++
						cur.WriteByte(s[i])
						continue
					case '\n':
						i++
						continue
					}
				}
				cur.WriteByte(d)
			}
			if !closed {
				return nil, fmt.Errorf("command: unterminated \" quote at byte %d", start)
			}
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	if len(words) == 0 {
		return nil, errors.New("command: no words")
	}
	return words, nil
}

// QuoteCommand prints words as one command line that SplitCommand reads
// back into the same words: a word with a space, a quote or a backslash in
// it, or an empty one, is single-quoted.
func QuoteCommand(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w != "" && !strings.ContainsAny(w, " \t\n'\"\\") {
			out[i] = w
			continue
		}
		out[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
