package predict

import (
	"fmt"

	"github.com/blsim/blsim/model"
)

// Test is a llama-bench test: prompt processing (pp, -p), token generation
// (tg, -n with no prompt) or a prompt and then generated tokens (pg, -pg).
type Test int

const (
	// TestPP processes the prompt alone: pp512.
	TestPP Test = iota
	// TestTG generates tokens from an empty prompt, one graph each: tg128.
	TestTG
	// TestPG processes the prompt, then generates: pp512+tg128.
	TestPG
)

// DefaultGenTokens is llama-bench's -n: the tokens a tg or pg test
// generates when none are asked for.
const DefaultGenTokens = 128

// ParseTest reads a test as the command line names it: pp, tg or pg.
func ParseTest(s string) (Test, error) {
	for t := TestPP; t <= TestPG; t++ {
		if s == t.String() {
			return t, nil
		}
	}
	return TestPP, fmt.Errorf("%q: want pp, tg or pg", s)
}

func (t Test) String() string {
	switch t {
	case TestPP:
		return "pp"
	case TestTG:
		return "tg"
	case TestPG:
		return "pg"
	}
	return fmt.Sprintf("Test(%d)", int(t))
}

// Apply sets r's prompt and generated tokens for the test: prompt tokens
// (0: r's own) and gen (0: DefaultGenTokens). A pp test generates none, a
// tg test has no prompt; a value the test cannot use is an error, never
// ignored.
func (t Test) Apply(r *model.Run, prompt, gen int) error {
	if prompt < 0 || gen < 0 {
		return fmt.Errorf("%s: prompt %d, gen %d: want 0 or more", t, prompt, gen)
	}
	switch t {
	case TestPP:
		if gen > 0 {
			return fmt.Errorf("pp: a pp test generates no tokens, but %d were asked for (--test pg runs both)", gen)
		}
		r.GenTokens = 0
	case TestTG:
		if prompt > 0 {
			return fmt.Errorf("tg: a tg test has no prompt, but %d prompt tokens were asked for (--test pg runs both)", prompt)
		}
		r.PromptTokens = 0
	case TestPG:
	default:
		return fmt.Errorf("%s: not a test", t)
	}
	if t != TestTG && prompt > 0 {
		r.PromptTokens = prompt
	}
	if t != TestPP {
		r.GenTokens = gen
		if gen == 0 {
			r.GenTokens = DefaultGenTokens
		}
	}
	if t != TestTG && r.PromptTokens < 1 {
		return fmt.Errorf("%s: the workload has no prompt; give one", t)
	}
	return nil
}

// ApplyTest is ParseTest(name).Apply(r, prompt, gen).
func ApplyTest(r *model.Run, name string, prompt, gen int) error {
	t, err := ParseTest(name)
	if err != nil {
		return err
	}
	return t.Apply(r, prompt, gen)
}
