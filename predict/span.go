package predict

import (
	"fmt"
	"strings"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// SpanCheck is a fitted profile's word on a prediction: what the fit's
// runs covered, which of the predicted run's dimensions lie outside it,
// and native's t/s interval. The fit could not inform some rates (those
// the runs cannot tell apart from another class's: model.Provenance's
// PriorLed), which keep the prior's width: inside the span the runs
// fixed what they add up to, so the interval leaves them out; outside it
// carries them.
type SpanCheck struct {
	// Fitted is the span in words: "pp 512 at depth 0, ubatch 64-512".
	Fitted string `json:"fitted"`
	// Outside names each dimension of the run outside the span ("prompt
	// 2048 outside the fitted 512"); empty within it.
	Outside []string `json:"outside,omitempty"`
	// PriorLed are the rates the fit could not inform.
	PriorLed []string `json:"prior_led,omitempty"`
	// LoTPS and HiTPS bound the central 90% of native's t/s over the
	// profile's uncertainty (the PriorLed rates' only outside the span).
	LoTPS float64 `json:"lo_tps"`
	HiTPS float64 `json:"hi_tps"`
}

// spanCheck is the SpanCheck of native on s running w (ev, their
// evaluator, with draws samples an interval), nil when s is not a fit
// that recorded its span.
func spanCheck(ev *sim.Evaluator, s *model.SoC, w *model.Workload, draws int, native model.Plan) (*SpanCheck, error) {
	pv := s.Provenance
	if pv == nil || pv.Span == nil {
		return nil, nil
	}
	c := &SpanCheck{Fitted: pv.Span.String(), Outside: pv.Span.Outside(w.Run), PriorLed: pv.PriorLed}
	led := map[string]bool{}
	for _, p := range pv.PriorLed {
		led[p] = true
	}
	var err error
	if len(c.Outside) > 0 || len(led) == 0 {
		// Outside the span every uncertain rate acts: the evaluator's own
		// draws, shared with the plans' intervals.
		c.LoTPS, c.HiTPS, err = ev.TPSInterval(native)
	} else {
		c.LoTPS, c.HiTPS, err = sim.TPSInterval(s, w, native, draws, func(path string) bool { return led[path] })
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Note is Line as a note to print, "note: LINE\n", or "" within the
// span.
func (c *SpanCheck) Note() string {
	if line := c.Line(); line != "" {
		return "note: " + line + "\n"
	}
	return ""
}

// Line is the one line a prediction outside the span prints: what lies
// outside, and native's interval with the rates it carries at the
// prior's width; "" within the span.
func (c *SpanCheck) Line() string {
	if c == nil || len(c.Outside) == 0 {
		return ""
	}
	carries := "the profile's uncertainty"
	if len(c.PriorLed) > 0 {
		carries = fmt.Sprintf("the prior's width of the %d rates the fit could not inform (%s)", len(c.PriorLed), strings.Join(c.PriorLed, ", "))
	}
	return fmt.Sprintf("outside the fitted span (%s): %s; native's 90%% interval [%.4g, %.4g] t/s carries %s",
		c.Fitted, strings.Join(c.Outside, ", "), c.LoTPS, c.HiTPS, carries)
}
