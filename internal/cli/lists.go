package cli

import (
	"fmt"
	"strconv"
	"strings"
)

// maxListValues bounds how many values one list flag may expand to, so
// that a range such as 1-1000000 is an error, not hours of predictions.
const maxListValues = 1024

// IntList reads a flag's value as llama-bench reads -p, -n, -t, -ub and
// --poll: a whole number, a comma list ("128,512"), or a range as later
// llama-bench releases take it (llama.cpp tools/llama-bench/README.md):
// "first-last" (every value), "first-last+step" or "first-last*mult",
// mixed freely in a comma list ("1,2-8+2"). Each value must lie in
// [lo, hi]. An error is one line naming the flag and the form wanted.
func IntList(flag, s string, lo, hi int) ([]int, error) {
	bad := func(part, why string) error {
		return fmt.Errorf("--%s: %q: %s; want a whole number, a comma list (128,512) or a range (1-8, 1-8+2, 16-512*2)", flag, part, why)
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		vals, why := intRange(part)
		if why != "" {
			return nil, bad(part, why)
		}
		for _, v := range vals {
			if v < lo || v > hi {
				return nil, fmt.Errorf("--%s: %d is outside %d..%d", flag, v, lo, hi)
			}
		}
		out = append(out, vals...)
		if len(out) > maxListValues {
			return nil, bad(s, fmt.Sprintf("over %d values", maxListValues))
		}
	}
	return out, nil
}

// intRange expands one element of a list: a number or a range; why is
// what is wrong with it ("" when nothing).
func intRange(part string) (vals []int, why string) {
	if part == "" {
		return nil, "an empty value"
	}
	if v, err := strconv.Atoi(part); err == nil {
		return []int{v}, ""
	}
	// A range: first-last, then +step or *mult.
	dash := strings.Index(part[1:], "-") + 1 // a leading minus is the first value's sign
	if dash < 1 {
		return nil, "not a whole number"
	}
	first, err := strconv.Atoi(part[:dash])
	if err != nil {
		return nil, "not a whole number before the '-' of a range"
	}
	rest, op, step := part[dash+1:], byte('+'), 1
	if i := strings.IndexAny(rest, "+*"); i >= 0 {
		op = rest[i]
		if step, err = strconv.Atoi(rest[i+1:]); err != nil {
			return nil, fmt.Sprintf("not a whole number after the '%c' of a range", op)
		}
		rest = rest[:i]
	}
	last, err := strconv.Atoi(rest)
	if err != nil {
		return nil, "not a whole number after the '-' of a range"
	}
	switch {
	case last < first:
		return nil, "a range's last value is below its first"
	case op == '+' && step < 1:
		return nil, "a range's step must be at least 1"
	case op == '*' && (step < 2 || first < 1):
		return nil, "a range's multiplier must be at least 2, from a first value of at least 1"
	}
	for v := first; v <= last && len(vals) <= maxListValues; {
		vals = append(vals, v)
		if op == '+' {
			v += step
		} else {
			v *= step
		}
	}
	return vals, ""
}

// StringList reads a flag's comma list of names ("rk3588,pi5"): each one
// a run, as llama-bench's -m takes several models. An empty name is an
// error naming the flag.
func StringList(flag, s string) ([]string, error) {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		if parts[i] == "" {
			return nil, fmt.Errorf("--%s: %q has an empty name; want one name or a comma list (rk3588,pi5)", flag, s)
		}
	}
	return parts, nil
}
