package runner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/blsim/blsim/calibrate/llamabench"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// Gaps says, before anything runs, what the grid lacks for a fit to tell
// its free parameters apart, one line each with what to add:
//
//   - no native run: the benchmark's kernel rates and the split's costs
//     then only ever appear together;
//   - one arithmetic intensity (one ubatch size, after -p caps it): a
//     compute-bound and a DRAM-bound run look alike;
//   - split runs of only one mode: the other mode's predictions would
//     rest on the model alone.
//
// The prompt and ubatch of a point come from its -p and -ub knobs, else
// from the command's own -p and -ub (lists count as several tests), else
// llama-bench's default 512. A grid with nothing to say returns nil.
func (c Config) Gaps() []string {
	var gaps []string
	native, modes := 0, map[string]bool{}
	ubatches := map[int]bool{}
	distinct, _ := c.Distinct()
	for _, p := range distinct {
		// Without a record the thread count may be unknown: any count will
		// do to tell the plan's mode.
		if plan, err := c.Mapping.Plan(p, llamabench.Record{NThreads: 1}); err == nil {
			if plan.Mode == model.Native {
				native++
			} else {
				modes[string(plan.Mode)] = true
			}
		}
		for _, pp := range c.intValues(p, "-p", "--n-prompt") {
			for _, ub := range c.intValues(p, "-ub", "--ubatch-size") {
				if pp > 0 && ub > 0 {
					ubatches[min(pp, ub)] = true
				}
			}
		}
	}
	if native == 0 {
		gaps = append(gaps, "the grid has no native run, so the benchmark's kernel rates and the split's costs cannot be told apart: add "+c.nativeHint())
	}
	if len(ubatches) == 1 {
		var ub int
		for k := range ubatches {
			ub = k
		}
		other := ub / 4
		if other < 1 {
			other = ub * 4
		}
		lo, hi := min(ub, other), max(ub, other)
		gaps = append(gaps, fmt.Sprintf("the grid runs one arithmetic intensity (ubatch %d), so compute-bound and DRAM-bound runs cannot be told apart: add --arg -ub=%d,%d", ub, lo, hi))
	}
	if len(modes) == 1 && len(c.Mapping.Split) > 0 {
		var only string
		for m := range modes {
			only = m
		}
		var others []string
		for _, m := range model.SplitModes() {
			if string(m) != only {
				others = append(others, string(m))
			}
		}
		gaps = append(gaps, fmt.Sprintf("the grid splits only by %s, so %s-split predictions rest on the model alone: add --env %s=%s", only, strings.Join(others, ","), c.Mapping.Split[0], strings.Join(splitModeNames(), ",")))
	}
	return gaps
}

// PointRuns are the tests a point asks for, as its records will say
// them: a pp test for each prompt length its knobs or the command give
// (-p), a tg test for each -n and a pp+tg test for each -pg pair, each pp
// at each ubatch (-ub; llama-bench's 512 when none). Nil when the point
// names no test (a fork's may not be known before it runs). Only the
// counts given are taken: llama-bench's default -n 128 is not assumed.
func (c Config) PointRuns(p Point) []measure.Run {
	pps, okp := c.givenInts(p, "-p", "--n-prompt")
	tgs, okn := c.givenInts(p, "-n", "--n-gen")
	pgs, okpg := c.givenValues(p, "-pg")
	if !okp && !okn && !okpg {
		return nil
	}
	var out []measure.Run
	ubs := c.intValues(p, "-ub", "--ubatch-size")
	prompt := func(pp, gen int) {
		for _, ub := range ubs {
			if ub > 0 {
				out = append(out, measure.Run{PromptTokens: pp, Ubatch: min(ub, pp), GenTokens: gen})
			}
		}
	}
	for _, pp := range pps {
		if pp > 0 {
			prompt(pp, 0)
		}
	}
	for _, n := range tgs {
		if n > 0 {
			out = append(out, measure.Run{Ubatch: ubs[0], GenTokens: n})
		}
	}
	for _, v := range pgs {
		var pp, gen int
		if _, err := fmt.Sscanf(v, "%d,%d", &pp, &gen); err == nil && pp > 0 && gen > 0 {
			prompt(pp, gen)
		}
	}
	return out
}

// givenValues are the values of a flag that takes a pair (-pg 64,32):
// the point's knob, else every occurrence in the command; ok is false when
// neither gives it.
func (c Config) givenValues(p Point, name string) ([]string, bool) {
	if v, ok := p.Knobs[name]; ok {
		return []string{strings.TrimSpace(v)}, true
	}
	var out []string
	cmd := c.Grid.Command
	for i, a := range cmd {
		if a == name && i+1 < len(cmd) {
			out = append(out, cmd[i+1])
		} else if v, ok := strings.CutPrefix(a, name+"="); ok {
			out = append(out, v)
		}
	}
	return out, len(out) > 0
}

// givenInts is intValues without the default: ok is false when neither the
// point nor the command sets the flag.
func (c Config) givenInts(p Point, names ...string) ([]int, bool) {
	for _, n := range names {
		if _, ok := p.Knobs[n]; ok {
			return c.intValues(p, names...), true
		}
	}
	for _, a := range c.Grid.Command {
		for _, n := range names {
			if a == n || strings.HasPrefix(a, n+"=") {
				return c.intValues(p, names...), true
			}
		}
	}
	return nil, false
}

// nativeHint is the knob setting that adds native runs.
func (c Config) nativeHint() string {
	if len(c.Mapping.Enable) > 0 {
		on := "1"
		if len(c.Mapping.EnableValues) > 0 {
			on = c.Mapping.EnableValues[0]
		}
		return fmt.Sprintf("--env %s=0,%s", c.Mapping.Enable[0], on)
	}
	if len(c.Mapping.LittleFrac) > 0 {
		return fmt.Sprintf("0 to the values of %s", c.Mapping.LittleFrac[0])
	}
	return "native runs"
}

// intValues returns the values a point gives a llama-bench count flag: its
// knob, else the command's own flag (a list: -p 64,512), else 512.
func (c Config) intValues(p Point, names ...string) []int {
	for _, n := range names {
		if v, ok := p.Knobs[n]; ok {
			return parseInts(v)
		}
	}
	cmd := c.Grid.Command
	for i := len(cmd) - 2; i >= 0; i-- {
		if slices.Contains(names, cmd[i]) {
			return parseInts(cmd[i+1])
		}
	}
	for _, a := range cmd {
		for _, n := range names {
			if v, ok := strings.CutPrefix(a, n+"="); ok {
				return parseInts(v)
			}
		}
	}
	return []int{512}
}

// parseInts reads "64" or a list "64,512"; what is not a number is left
// out.
func parseInts(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// Repetitions is how many timed runs of each test a point's llama-bench
// makes: its -r (--repetitions) knob or the command's, else llama-bench's
// default 5.
func (c Config) Repetitions(p Point) int {
	if rs, ok := c.givenInts(p, "-r", "--repetitions"); ok && len(rs) > 0 && rs[0] > 0 {
		return rs[0]
	}
	return 5
}
