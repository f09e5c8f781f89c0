package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// MaxValues is the most values one axis may have, and MaxPoints the most
// points a grid may expand to; both guard against a mistyped range.
const (
	MaxValues = 10000
	MaxPoints = 100000
)

// Axis is one knob of a grid and the values it takes, in order.
type Axis struct {
	// Name is an environment variable (ORK_BL_POLL) for an env axis, or a
	// flag starting with '-' (-t, --poll) for an arg axis.
	Name   string
	Values []string
}

// Grid is a command and the knobs to vary: every combination of the axes'
// values is one run.
type Grid struct {
	// Command is the program and its fixed arguments, already split into
	// words (see SplitCommand).
	Command []string
	// Env axes set environment variables on top of the inherited
	// environment.
	Env []Axis
	// Args axes append "NAME VALUE" to the command's arguments, in order.
	Args []Axis
}

// Point is one run of a grid.
type Point struct {
	// ID identifies the run: a hash of the command and the knobs, the same
	// for the same grid point whatever the order of the axes.
	ID string
	// Env is the environment set on top of the inherited one.
	Env map[string]string
	// Args are the arguments appended to the command.
	Args []string
	// Knobs holds both: env names and arg names (which start with '-')
	// with their values.
	Knobs map[string]string
}

// Environ returns p.Env as sorted "NAME=VALUE" strings.
func (p Point) Environ() []string {
	out := make([]string, 0, len(p.Env))
	for k, v := range p.Env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// ParseValues reads an axis's values:
//
//   - "START:STOP:STEP" is a range of decimal numbers from START up to STOP
//     (included when it falls on a step), e.g. "0.05:0.30:0.05" is 0.05, 0.1,
//     0.15, 0.2, 0.25, 0.3. The arithmetic is decimal, so values print the
//     way they were meant (0.15, never 0.15000000000000002); trailing zeros
//     are dropped. STEP must be positive and START at most STOP.
//   - "A,B,C" is a list; spaces around the items are dropped.
//   - anything else is a single value.
//
// A value holding ':' or ',' must be given as a YAML list in a grid file.
// Empty values and duplicates are errors.
func ParseValues(s string) ([]string, error) {
	if strings.Contains(s, ":") {
		return parseRange(s)
	}
	var out []string
	seen := map[string]bool{}
	for _, v := range strings.Split(s, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return nil, fmt.Errorf("values %q: empty value", s)
		}
		if seen[v] {
			return nil, fmt.Errorf("values %q: %q given twice", s, v)
		}
		seen[v] = true
		out = append(out, v)
	}
	return out, nil
}

func parseRange(s string) ([]string, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return nil, fmt.Errorf("range %q: want START:STOP:STEP", s)
	}
	var nums [3]int64
	var scales [3]int
	for i, p := range parts {
		n, sc, err := parseDecimal(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("range %q: %v", s, err)
		}
		nums[i], scales[i] = n, sc
	}
	scale := max(scales[0], scales[1], scales[2])
	for i := range nums {
		for k := scales[i]; k < scale; k++ {
			if nums[i] > maxMantissa || nums[i] < -maxMantissa {
				return nil, fmt.Errorf("range %q: too many digits", s)
			}
			nums[i] *= 10
		}
	}
	start, stop, step := nums[0], nums[1], nums[2]
	switch {
	case step <= 0:
		return nil, fmt.Errorf("range %q: step must be positive", s)
	case start > stop:
		return nil, fmt.Errorf("range %q: start is above stop", s)
	case (stop-start)/step+1 > MaxValues:
		return nil, fmt.Errorf("range %q: more than %d values", s, MaxValues)
	}
	var out []string
	for v := start; v <= stop; v += step {
		out = append(out, formatDecimal(v, scale))
	}
	return out, nil
}

// maxMantissa keeps decimal arithmetic far from int64 overflow.
const maxMantissa = 1e15

// parseDecimal reads [+-]digits[.digits] as mantissa and number of
// fraction digits.
func parseDecimal(s string) (int64, int, error) {
	orig := s
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	intPart, frac, hasDot := strings.Cut(s, ".")
	digits := intPart + frac
	if digits == "" || (hasDot && frac == "" && intPart == "") {
		return 0, 0, fmt.Errorf("%q is not a decimal number", orig)
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, 0, fmt.Errorf("%q is not a decimal number", orig)
		}
	}
	digits = strings.TrimLeft(digits, "0")
	if len(digits) > 15 {
		return 0, 0, fmt.Errorf("%q has too many digits", orig)
	}
	var n int64
	if digits != "" {
		var err error
		if n, err = strconv.ParseInt(digits, 10, 64); err != nil {
			return 0, 0, fmt.Errorf("%q is not a decimal number", orig)
		}
	}
	if neg {
		n = -n
	}
	return n, len(frac), nil
}

// formatDecimal prints n/10^scale without trailing zeros.
func formatDecimal(n int64, scale int) string {
	if n == 0 {
		return "0"
	}
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	s := strconv.FormatInt(n, 10)
	if scale == 0 {
		return sign + s
	}
	if len(s) <= scale {
		s = strings.Repeat("0", scale-len(s)+1) + s
	}
	ip, fp := s[:len(s)-scale], strings.TrimRight(s[len(s)-scale:], "0")
	if fp == "" {
		return sign + ip
	}
	return sign + ip + "." + fp
}

// ParseEnvAxis reads a --env flag: "NAME=VALUES", VALUES as ParseValues
// reads them.
func ParseEnvAxis(spec string) (Axis, error) {
	a, err := parseAxis(spec)
	if err != nil {
		return Axis{}, fmt.Errorf("--env %q: %w", spec, err)
	}
	if err := checkEnvName(a.Name); err != nil {
		return Axis{}, fmt.Errorf("--env %q: %w", spec, err)
	}
	return a, nil
}

// ParseArgAxis reads an --arg flag: "NAME=VALUES" where NAME is the flag
// to pass, e.g. "-t=4" appends "-t 4" and "--poll=0,50" makes two runs, one
// with "--poll 0" and one with "--poll 50".
func ParseArgAxis(spec string) (Axis, error) {
	a, err := parseAxis(spec)
	if err != nil {
		return Axis{}, fmt.Errorf("--arg %q: %w", spec, err)
	}
	if err := checkArgName(a.Name); err != nil {
		return Axis{}, fmt.Errorf("--arg %q: %w", spec, err)
	}
	return a, nil
}

func parseAxis(spec string) (Axis, error) {
	name, vals, ok := strings.Cut(spec, "=")
	if !ok {
		return Axis{}, errors.New("want NAME=VALUES")
	}
	values, err := ParseValues(vals)
	if err != nil {
		return Axis{}, err
	}
	return Axis{Name: name, Values: values}, nil
}

func checkEnvName(name string) error {
	if name == "" {
		return errors.New("empty variable name")
	}
	for i, c := range name {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return fmt.Errorf("%q is not an environment variable name (letters, digits, _)", name)
		}
	}
	return nil
}

func checkArgName(name string) error {
	if len(name) < 2 || name[0] != '-' {
		return fmt.Errorf("%q is not a flag name (want -x or --name)", name)
	}
	if strings.ContainsAny(name, "= \t\n") {
		return fmt.Errorf("flag name %q holds '=' or white space", name)
	}
	return nil
}

// Validate checks the grid: a command, well-formed and distinct axis
// names, at least one value per axis, no value twice, and not more than
// MaxPoints points.
func (g Grid) Validate() error {
	if len(g.Command) == 0 || g.Command[0] == "" {
		return errors.New("grid: no command")
	}
	seen := map[string]bool{}
	points := 1
	check := func(kind string, axes []Axis, name func(string) error) error {
		for _, a := range axes {
			if err := name(a.Name); err != nil {
				return fmt.Errorf("grid: %s: %w", kind, err)
			}
			if seen[a.Name] {
				return fmt.Errorf("grid: %s %s given twice", kind, a.Name)
			}
			seen[a.Name] = true
			if len(a.Values) == 0 {
				return fmt.Errorf("grid: %s %s has no values", kind, a.Name)
			}
			if len(a.Values) > MaxValues {
				return fmt.Errorf("grid: %s %s has more than %d values", kind, a.Name, MaxValues)
			}
			vals := map[string]bool{}
			for _, v := range a.Values {
				if vals[v] {
					return fmt.Errorf("grid: %s %s: value %q given twice", kind, a.Name, v)
				}
				if strings.IndexByte(v, 0) >= 0 {
					return fmt.Errorf("grid: %s %s: value holds a NUL byte", kind, a.Name)
				}
				vals[v] = true
			}
			points *= len(a.Values)
			if points > MaxPoints {
				return fmt.Errorf("grid: more than %d points", MaxPoints)
			}
		}
		return nil
	}
	if err := check("env", g.Env, checkEnvName); err != nil {
		return err
	}
	return check("arg", g.Args, checkArgName)
}

// Size is the number of points.
func (g Grid) Size() int {
	n := 1
	for _, a := range g.Env {
		n *= len(a.Values)
	}
	for _, a := range g.Args {
		n *= len(a.Values)
	}
	return n
}

// Varying returns the names of the axes with more than one value, env axes
// first, in the grid's order: what tells the points apart.
func (g Grid) Varying() []string {
	var out []string
	for _, a := range append(append([]Axis(nil), g.Env...), g.Args...) {
		if len(a.Values) > 1 {
			out = append(out, a.Name)
		}
	}
	return out
}

// Points expands the grid into its runs: every combination of the axes'
// values, env axes before arg axes, each axis in the order given, the last
// axis varying fastest. The order, and each point's ID, depend only on the
// grid.
func (g Grid) Points() []Point {
	axes := append(append([]Axis(nil), g.Env...), g.Args...)
	nEnv := len(g.Env)
	for _, a := range axes {
		if len(a.Values) == 0 {
			return nil
		}
	}
	idx := make([]int, len(axes))
	var out []Point
	for {
		p := Point{Env: map[string]string{}, Knobs: map[string]string{}}
		for i, a := range axes {
			v := a.Values[idx[i]]
			p.Knobs[a.Name] = v
			if i < nEnv {
				p.Env[a.Name] = v
			} else {
				p.Args = append(p.Args, a.Name, v)
			}
		}
		p.ID = pointID(g.Command, p.Knobs)
		out = append(out, p)
		i := len(axes) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(axes[i].Values) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return out
		}
	}
}

// pointID hashes the command words and the sorted knobs.
func pointID(command []string, knobs map[string]string) string {
	h := sha256.New()
	h.Write([]byte("blsim/bench/v1\x00"))
	for _, w := range command {
		fmt.Fprintf(h, "%d:%s\x00", len(w), w)
	}
	names := make([]string, 0, len(knobs))
	for k := range knobs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(h, "\x01%d:%s=%d:%s", len(k), k, len(knobs[k]), knobs[k])
	}
	return "bench-" + hex.EncodeToString(h.Sum(nil))[:16]
}
