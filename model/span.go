package model

import (
	"fmt"
	"slices"
	"strings"
)

// Span is what a grid's runs cover of the tests a profile predicts: the
// prompt lengths, KV depths, ubatches and generated lengths they ran. A
// fit can tell a cost apart from the others only where the runs vary
// what it scales with independently of them (Gaps).
type Span struct {
	// Prompts, Depths and Ubatches are the distinct prompt lengths, KV
	// depths and ubatches of the runs with a prompt (pp and pp+tg tests),
	// ascending; Contexts how many distinct (prompt, depth) pairs they
	// run.
	Prompts  []int `yaml:"prompts,omitempty,flow"`
	Depths   []int `yaml:"depths,omitempty,flow"`
	Ubatches []int `yaml:"ubatches,omitempty,flow"`
	Contexts int   `yaml:"contexts,omitempty"`
	// Gens are the distinct generated lengths (tg and pp+tg tests).
	Gens []int `yaml:"gens,omitempty,flow"`
}

// SpanOf is the span of runs.
func SpanOf(runs []Run) Span {
	var s Span
	ctx := map[[2]int]bool{}
	for _, r := range runs {
		if r.PromptTokens > 0 {
			s.Prompts = addSorted(s.Prompts, r.PromptTokens)
			s.Depths = addSorted(s.Depths, r.Depth)
			s.Ubatches = addSorted(s.Ubatches, min(max(r.Ubatch, 1), r.PromptTokens))
			ctx[[2]int{r.PromptTokens, r.Depth}] = true
		}
		if r.GenTokens > 0 {
			s.Gens = addSorted(s.Gens, r.GenTokens)
		}
	}
	s.Contexts = len(ctx)
	return s
}

func addSorted(s []int, v int) []int {
	if i, found := slices.BinarySearch(s, v); !found {
		return slices.Insert(s, i, v)
	}
	return s
}

// Outside says which of run's dimensions lie outside the span: its prompt
// length, depth or ubatch beyond the runs' range, or generated tokens
// where the runs generated none or fewer; one phrase each ("prompt 2048
// beyond the fitted 512"), nil when it lies within.
func (s Span) Outside(run Run) []string {
	var out []string
	beyond := func(what string, v int, vs []int) {
		if len(vs) == 0 {
			out = append(out, fmt.Sprintf("%s %d where the fit ran none", what, v))
			return
		}
		if v < vs[0] || v > vs[len(vs)-1] {
			r := fmt.Sprint(vs[0])
			if len(vs) > 1 {
				r = fmt.Sprintf("%d-%d", vs[0], vs[len(vs)-1])
			}
			out = append(out, fmt.Sprintf("%s %d outside the fitted %s", what, v, r))
		}
	}
	if run.PromptTokens > 0 {
		beyond("prompt", run.PromptTokens, s.Prompts)
		if len(s.Depths) > 0 {
			beyond("depth", run.Depth, s.Depths)
		}
		if len(s.Ubatches) > 0 {
			beyond("ubatch", min(max(run.Ubatch, 1), run.PromptTokens), s.Ubatches)
		}
	}
	if run.GenTokens > 0 {
		beyond("tg", run.GenTokens, s.Gens)
	}
	return out
}

// String is the span in one line: "pp 128-2048 at depth 0, ubatch
// 64-512; tg 32".
func (s Span) String() string {
	rng := func(vs []int) string {
		switch len(vs) {
		case 0:
			return "none"
		case 1:
			return fmt.Sprint(vs[0])
		}
		return fmt.Sprintf("%d-%d", vs[0], vs[len(vs)-1])
	}
	var parts []string
	if len(s.Prompts) > 0 {
		parts = append(parts, fmt.Sprintf("pp %s at depth %s, ubatch %s", rng(s.Prompts), rng(s.Depths), rng(s.Ubatches)))
	}
	if len(s.Gens) > 0 {
		parts = append(parts, "tg "+rng(s.Gens))
	}
	return strings.Join(parts, "; ")
}
