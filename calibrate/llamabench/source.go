package llamabench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
)

// peekSize is how much of the input format detection looks at, and the size
// of the read buffer.
const peekSize = 64 << 10

// source is the input of a Reader: a buffered reader that counts lines.
type source struct {
	name    string
	br      *bufio.Reader
	line    int  // line of the next byte to read, from 1
	content bool // whether anything but white space has been read
	bom     bool // whether the byte order mark has been checked
}

func newSource(r io.Reader, name string) *source {
	return &source{name: name, br: bufio.NewReaderSize(r, peekSize), line: 1}
}

// skipBOM drops a UTF-8 byte order mark at the start of the input.
func (s *source) skipBOM() {
	if s.bom {
		return
	}
	s.bom = true
	if b, _ := s.br.Peek(len(utf8BOM)); bytes.Equal(b, utf8BOM) {
		s.br.Discard(len(utf8BOM))
	}
}

// readByte returns the next byte, counting lines.
func (s *source) readByte() (byte, error) {
	s.skipBOM()
	c, err := s.br.ReadByte()
	if err != nil {
		return 0, err
	}
	if c == '\n' {
		s.line++
	} else if c > ' ' {
		s.content = true
	}
	return c, nil
}

// readLine returns the next line without its line ending, and its number.
// It returns io.EOF only when no bytes are left.
func (s *source) readLine() (string, int, error) {
	s.skipBOM()
	l, err := s.br.ReadString('\n')
	if err == io.EOF && l == "" {
		return "", 0, io.EOF
	}
	if err != nil && err != io.EOF {
		return "", 0, err
	}
	n := s.line
	if strings.HasSuffix(l, "\n") {
		s.line++
	}
	l = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
	if strings.TrimSpace(l) != "" {
		s.content = true
	}
	return l, n, nil
}

// skipLine drops the rest of the current line.
func (s *source) skipLine() error {
	for {
		c, err := s.readByte()
		if err != nil || c == '\n' {
			return err
		}
	}
}

// errorf returns a *SyntaxError at line of this input.
func (s *source) errorf(line int, format string, args ...any) *SyntaxError {
	return &SyntaxError{FileName: s.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}
