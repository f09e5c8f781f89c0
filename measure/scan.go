package measure

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// scan.go: the JSON scanner under fastdecode.go. It reads the JSON that
// blsim writes (and any other text) strictly by the grammar of RFC 8259,
// and gives one of three verdicts on a line: decoded (the record holds
// exactly what encoding/json would decode), invalid (encoding/json would
// fail on the line: a syntax error, an unknown field, a value of the
// wrong type) or unsure (anything else: a null, a key that differs from a
// field's only in case, a \u escape of a surrogate, a number out of
// range; encoding/json decides those). FuzzFastDecode holds the three to
// what encoding/json does.

// verdict is the scanner's word on a line.
type verdict int8

const (
	decoded verdict = iota
	unsure
	invalid
)

// scanner reads one line of JSON. Every method returns zero values once
// the verdict is not decoded, and the callers stop at the next check.
type scanner struct {
	b   []byte
	i   int
	v   verdict
	buf []byte            // the last string with escapes, unescaped
	in  map[string]string // one copy of each repeated name
}

func (s *scanner) fail(v verdict) {
	if s.v == decoded {
		s.v = v
	}
	s.i = len(s.b)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// start skips space and returns the next byte, 0 at the end.
func (s *scanner) start() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// other is a value that is not of the type the field takes: a null
// leaves the field as it was (unsure: encoding/json decides), anything
// else is a type or syntax error.
func (s *scanner) other(c byte) {
	if c == 'n' {
		s.fail(unsure)
		return
	}
	s.fail(invalid)
}

// begin opens an object and reads its first key; ok is false for {}.
func (s *scanner) begin() (key []byte, ok bool) {
	if c := s.start(); c != '{' {
		s.other(c)
		return nil, false
	}
	s.i++
	if s.start() == '}' {
		s.i++
		return nil, false
	}
	return s.key()
}

// more reads the next key of an object; ok is false at its end.
func (s *scanner) more() (key []byte, ok bool) {
	if s.v != decoded {
		return nil, false
	}
	switch s.start() {
	case ',':
		s.i++
		return s.key()
	case '}':
		s.i++
		return nil, false
	}
	s.fail(invalid)
	return nil, false
}

func (s *scanner) key() ([]byte, bool) {
	if s.start() != '"' {
		s.fail(invalid)
		return nil, false
	}
	k := s.raw()
	if s.start() != ':' {
		s.fail(invalid)
		return nil, false
	}
	s.i++
	return k, s.v == decoded
}

// unknown is a key no field of the object's struct spells exactly:
// encoding/json also matches one that differs only in case (ASCII here,
// names holding each name in lower case; Unicode folds are left to it),
// and refuses the rest.
func (s *scanner) unknown(key []byte, names map[string]bool) {
	s.buf = s.buf[:0]
	for _, c := range key {
		if c >= utf8.RuneSelf {
			s.fail(unsure)
			return
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		s.buf = append(s.buf, c)
	}
	if names[string(s.buf)] {
		s.fail(unsure)
		return
	}
	s.fail(invalid)
}

// once marks field bit of an object seen: a key given twice is left to
// encoding/json (which keeps the last, or merges maps).
func (s *scanner) once(seen *uint32, bit uint) {
	if *seen&(1<<bit) != 0 {
		s.fail(unsure)
	}
	*seen |= 1 << bit
}

// raw reads a string (at its opening quote) and returns its content,
// unescaped: a slice of the line, or of s.buf when it had escapes.
func (s *scanner) raw() []byte {
	s.i++ // the quote
	from := s.i
	ascii := true
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			if !ascii && !utf8.Valid(s.b[from:s.i-1]) {
				s.fail(unsure) // encoding/json puts U+FFFD for each bad byte
				return nil
			}
			return s.b[from : s.i-1]
		case c == '\\':
			return s.escaped(from)
		case c < 0x20:
			s.fail(invalid)
			return nil
		case c >= utf8.RuneSelf:
			ascii = false
		}
		s.i++
	}
	s.fail(invalid) // no closing quote
	return nil
}

// escaped goes on with a string from its first backslash, into s.buf.
func (s *scanner) escaped(from int) []byte {
	s.buf = append(s.buf[:0], s.b[from:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			if !utf8.Valid(s.buf) {
				s.fail(unsure)
				return nil
			}
			return s.buf
		case c < 0x20:
			s.fail(invalid)
			return nil
		case c != '\\':
			s.buf = append(s.buf, c)
			s.i++
			continue
		}
		if s.i+1 >= len(s.b) {
			break
		}
		e := s.b[s.i+1]
		s.i += 2
		switch e {
		case '"', '\\', '/':
			s.buf = append(s.buf, e)
		case 'b':
			s.buf = append(s.buf, '\b')
		case 'f':
			s.buf = append(s.buf, '\f')
		case 'n':
			s.buf = append(s.buf, '\n')
		case 'r':
			s.buf = append(s.buf, '\r')
		case 't':
			s.buf = append(s.buf, '\t')
		case 'u':
			if s.i+4 > len(s.b) {
				s.fail(invalid)
				return nil
			}
			var r rune
			for _, h := range s.b[s.i : s.i+4] {
				switch {
				case h >= '0' && h <= '9':
					r = r<<4 | rune(h-'0')
				case h|0x20 >= 'a' && h|0x20 <= 'f':
					r = r<<4 | rune(h|0x20-'a'+10)
				default:
					s.fail(invalid)
					return nil
				}
			}
			if utf16Surrogate(r) {
				s.fail(unsure)
				return nil
			}
			s.buf = utf8.AppendRune(s.buf, r)
			s.i += 4
		default:
			s.fail(invalid)
			return nil
		}
	}
	s.fail(invalid)
	return nil
}

func utf16Surrogate(r rune) bool { return r >= 0xd800 && r < 0xe000 }

// str reads a string value, a copy of its own.
func (s *scanner) str() string {
	if c := s.start(); c != '"' {
		s.other(c)
		return ""
	}
	return string(s.raw())
}

// name reads a string value that records repeat (a schema, a kind, a
// name, a unit), one copy of each kept in s.in.
func (s *scanner) name() string {
	if c := s.start(); c != '"' {
		s.other(c)
		return ""
	}
	b := s.raw()
	if v, ok := s.in[string(b)]; ok {
		return v
	}
	v := string(b)
	if len(s.in) < maxInterned {
		if s.in == nil {
			s.in = map[string]string{}
		}
		s.in[v] = v
	}
	return v
}

// number reads a number's text, by JSON's grammar.
func (s *scanner) number() []byte {
	c := s.start()
	if c != '-' && (c < '0' || c > '9') {
		s.other(c)
		return nil
	}
	from := s.i
	if c == '-' {
		s.i++
	}
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		s.fail(invalid)
		return nil
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			s.fail(invalid)
			return nil
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			s.fail(invalid)
			return nil
		}
	}
	return s.b[from:s.i]
}

func (s *scanner) float() float64 {
	t := s.number()
	if s.v != decoded {
		return 0
	}
	f, err := strconv.ParseFloat(string(t), 64)
	if err != nil {
		s.fail(unsure) // out of range: encoding/json's error
	}
	return f
}

func (s *scanner) int() int {
	t := s.number()
	if s.v != decoded {
		return 0
	}
	n, err := strconv.ParseInt(string(t), 10, strconv.IntSize)
	if err != nil {
		s.fail(invalid) // a fraction, an exponent or out of range
	}
	return int(n)
}

func (s *scanner) bool() bool {
	c := s.start()
	for _, lit := range []string{"true", "false"} {
		if c == lit[0] {
			if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
				s.fail(invalid)
				return false
			}
			s.i += len(lit)
			return c == 't'
		}
	}
	s.other(c)
	return false
}

// list opens an array; ok is false for [] (the caller's slice stays
// empty: non-nil, as encoding/json makes it) and for a value that is not
// an array. Read each element, then call next:
//
//	for ok := s.list(); ok; ok = s.next() { ... }
func (s *scanner) list() bool {
	if c := s.start(); c != '[' {
		s.other(c)
		return false
	}
	s.i++
	if s.start() == ']' {
		s.i++
		return false
	}
	return true
}

// next goes past the comma after an array's element; false at its end.
func (s *scanner) next() bool {
	if s.v != decoded {
		return false
	}
	switch s.start() {
	case ',':
		s.i++
		return true
	case ']':
		s.i++
		return false
	}
	s.fail(invalid)
	return false
}

func (s *scanner) floats() []float64 {
	out := []float64{}
	for ok := s.list(); ok; ok = s.next() {
		out = append(out, s.float())
	}
	return out
}

func (s *scanner) ints() []int {
	out := []int{}
	for ok := s.list(); ok; ok = s.next() {
		out = append(out, s.int())
	}
	return out
}

func (s *scanner) names() []string {
	out := []string{}
	for ok := s.list(); ok; ok = s.next() {
		out = append(out, s.name())
	}
	return out
}

// strMap reads an object of strings (knobs, governors).
func (s *scanner) strMap() map[string]string {
	out := map[string]string{}
	for k, ok := s.begin(); ok; k, ok = s.more() {
		key := s.internBytes(k)
		out[key] = s.name()
	}
	return out
}

func (s *scanner) internBytes(b []byte) string {
	if v, ok := s.in[string(b)]; ok {
		return v
	}
	return string(b)
}

// end checks that nothing but space follows the value.
func (s *scanner) end() {
	if s.start() != 0 {
		s.fail(invalid)
	}
}

// jsonNames are the JSON names of struct type t's fields as
// encoding/json reads them (a field without a tag by its Go name), in
// lower case.
func jsonNames(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[strings.ToLower(name)] = true
	}
	return out
}
