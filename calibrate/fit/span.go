package fit

import (
	"fmt"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// spanOfObs is the span of the runs the throughputs ran (each record's
// test on its workload).
func spanOfObs(obs []measure.Measurement, p *Predictor) model.Span {
	var runs []model.Run
	for i := range obs {
		w, err := p.Workload(&obs[i])
		if err != nil {
			continue
		}
		runs = append(runs, WithRun(w, obs[i].Run).Run)
	}
	return model.SpanOf(runs)
}

// The things a span may leave to the prior (Gap.Kind).
const (
	// GapAttention: one prompt length and depth, so a prompt's attention,
	// whose cost grows with the context, scales with the tokens as the
	// matmuls do and cannot be told apart from them.
	GapAttention = "attention"
	// GapDecode: no generated token, so the costs only a graph of one
	// token has (its attention's dot products, the one-token overlap)
	// never act.
	GapDecode = "decode"
)

// Gap is one thing the span leaves to the prior, and the line that says
// so, with the llama-bench arguments that would tell it.
type Gap struct {
	Kind string
	Line string
}

// Gaps lists what span s cannot identify, one Gap each: a prompt's
// attention with one prompt length and depth ("one prompt length (512):
// attention's cost rides on the prior; add -p 128,2048"), decode with no
// generated tokens ("no tg: decode rests on the prior; add -n 32"). Nil
// when the span identifies both, or has no runs.
func Gaps(s model.Span) []Gap {
	var out []Gap
	if s.Contexts == 1 {
		p := s.Prompts[0]
		what := fmt.Sprintf("one prompt length (%d)", p)
		if s.Depths[0] > 0 {
			what = fmt.Sprintf("one prompt length and depth (%d at depth %d)", p, s.Depths[0])
		}
		out = append(out, Gap{Kind: GapAttention, Line: fmt.Sprintf("%s: attention's cost rides on the prior; add -p %d,%d", what, max(p/4, 1), 4*p)})
	}
	if len(s.Gens) == 0 && s.Contexts > 0 {
		out = append(out, Gap{Kind: GapDecode, Line: "no tg: decode rests on the prior; add -n 32"})
	}
	return out
}
