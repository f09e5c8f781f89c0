package runner

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// capBuffer keeps the first limit bytes written and counts the rest.
type capBuffer struct {
	buf   []byte
	limit int
	total int64
}

func (b *capBuffer) Write(p []byte) (int, error) {
	b.total += int64(len(p))
	if room := b.limit - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// headTail keeps the first and the last limit/2 bytes written.
type headTail struct {
	head, tail []byte
	half       int
	total      int64
}

func newHeadTail(limit int) *headTail { return &headTail{half: max(limit/2, 1)} }

func (h *headTail) Write(p []byte) (int, error) {
	h.total += int64(len(p))
	n := len(p)
	if room := h.half - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	if len(p) > 0 {
		h.tail = append(h.tail, p...)
		if len(h.tail) > 2*h.half {
			h.tail = append(h.tail[:0], h.tail[len(h.tail)-h.half:]...)
		}
	}
	return n, nil
}

// String returns what was kept, marking the bytes left out.
func (h *headTail) String() string {
	tail := h.tail
	if len(tail) > h.half {
		tail = tail[len(tail)-h.half:]
	}
	omitted := h.total - int64(len(h.head)) - int64(len(tail))
	if omitted <= 0 {
		return strings.ToValidUTF8(string(h.head)+string(tail), "\uFFFD")
	}
	return joinClipped(h.head, tail, omitted)
}

// lastLine returns the last non-blank line kept, shortened.
func (h *headTail) lastLine() string {
	s := strings.TrimSpace(h.String())
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[i+1:])
	}
	if len(s) > 200 {
		s = s[:200]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "..."
	}
	return s
}

// clip keeps the head and tail of out (of which total bytes were written)
// within limit bytes.
func clip(out []byte, total int64, limit int) string {
	if total <= int64(limit) && int64(len(out)) == total {
		return strings.ToValidUTF8(string(out), "\uFFFD")
	}
	half := limit / 2
	head := out[:min(half, len(out))]
	var tail []byte
	if int64(len(out)) == total && len(out) > half {
		tail = out[max(len(out)-half, half):]
	}
	return joinClipped(head, tail, total-int64(len(head))-int64(len(tail)))
}

func joinClipped(head, tail []byte, omitted int64) string {
	return strings.ToValidUTF8(string(head), "\uFFFD") +
		fmt.Sprintf("\n[... %d bytes left out ...]\n", omitted) +
		strings.ToValidUTF8(string(tail), "\uFFFD")
}
