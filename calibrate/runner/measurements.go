package runner

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/blsim/blsim/calibrate/llamabench"
	"github.com/blsim/blsim/measure"
)

// MaxRecordsPerRun is the most tests one run may print: llama-bench
// prints one record per combination of its values (-p 128,512 -n 0,32
// -t 1,2,4 is 12), and each becomes a line of the measurements file.
const MaxRecordsPerRun = 256

// measurements turns one execution into measurements: one per test record
// (pp, tg or pp+tg), or one recording the failure. retry says
// whether another attempt might do better: not when the run succeeded, the
// command cannot be started, or its knobs make no plan.
func (r *runner) measurements(p Point, res *result) (ms []measure.Measurement, retry bool) {
	eff := p
	if len(r.inherited) > 0 {
		eff.Knobs = make(map[string]string, len(p.Knobs)+len(r.inherited))
		for k, v := range r.inherited {
			if _, set := p.Env[k]; !set {
				eff.Knobs[k] = v
			}
		}
		for k, v := range p.Knobs {
			eff.Knobs[k] = v
		}
	}
	base := measure.Measurement{
		Kind:         measure.LlamaBench,
		ID:           p.ID,
		Workload:     r.cfg.Workload,
		WorkloadYAML: r.cfg.WorkloadYAML,
		Knobs:        eff.Knobs,
		Unit:         "t/s",
		Host:         r.cfg.Host,
		Time:         res.start.UTC().Format(time.RFC3339),
		Stdout:       clip(res.stdout, res.stdoutN, r.cfg.OutputLimit),
		Stderr:       res.stderr.String(),
		ExitCode:     res.exitCode,
	}
	fail := func(status, msg string) ([]measure.Measurement, bool) {
		m := base
		m.Status, m.Error = status, msg
		if plan, err := r.cfg.Mapping.Plan(eff, llamabench.Record{}); err == nil {
			m.Plan = &plan
		}
		return []measure.Measurement{m}, res.startErr == nil
	}
	switch {
	case res.startErr != nil:
		return fail(statusFailed, "cannot start the command: "+res.startErr.Error())
	case res.timedOut:
		return fail(statusTimeout, fmt.Sprintf("timed out after %v; killed", r.cfg.Timeout))
	case res.waitErr != nil:
		msg := res.waitErr.Error()
		if line := res.stderr.lastLine(); line != "" {
			msg += ": " + line
		}
		return fail(statusFailed, msg)
	}

	recs, errs := llamabench.Parse(bytes.NewReader(res.stdout), "stdout", r.cfg.Format)
	var pp []llamabench.Record
	for _, rec := range recs {
		if rec.NPrompt > 0 || rec.NGen > 0 {
			pp = append(pp, rec)
		}
	}
	switch {
	case len(bytes.TrimSpace(res.stdout)) == 0:
		return fail(statusFailed, "no output on stdout")
	case len(recs) == 0:
		msg := "no llama-bench record in the output"
		if len(errs) > 0 {
			msg += ": " + errs[0].Error()
		}
		return fail(statusFailed, msg)
	case len(pp) == 0:
		return fail(statusFailed, fmt.Sprintf("no test in the output: %d records, none with n_prompt or n_gen above 0", len(recs)))
	case len(pp) > MaxRecordsPerRun:
		return fail(statusFailed, fmt.Sprintf("%d tests in the output, more than %d: run the grid's values as points instead", len(pp), MaxRecordsPerRun))
	}
	out := make([]measure.Measurement, 0, len(pp))
	for i, rec := range pp {
		m := base
		if len(pp) > 1 {
			m.ID = fmt.Sprintf("%s#%d", p.ID, i)
		}
		if i > 0 {
			// The run's output once, with its first record.
			m.Stdout, m.Stderr = "", ""
		}
		m.Samples = rec.SamplesTS
		if len(m.Samples) == 0 {
			m.Samples = []float64{rec.AvgTS}
		}
		m.Summarize()
		if len(m.Samples) < 2 && rec.AvgTS > 0 {
			m.CV = rec.StddevTS / rec.AvgTS
		}
		m.Status = statusOK
		m.Run = &measure.Run{PromptTokens: rec.NPrompt, Ubatch: rec.NUbatch, Depth: rec.NDepth, GenTokens: rec.NGen,
			FlashAttn: flashAttn(rec.Fields["flash_attn"])}
		if m.Run.Ubatch <= 0 && rec.NPrompt > 0 {
			m.Run.Ubatch = min(max(rec.NBatch, 1), rec.NPrompt)
			if rec.NBatch <= 0 {
				m.Run.Ubatch = min(512, rec.NPrompt) // llama-bench's default -ub
			}
		}
		plan, err := r.cfg.Mapping.Plan(eff, rec)
		switch {
		case err != nil:
			m.Status, m.Error = statusFailed, err.Error()
		default:
			m.Plan = &plan
			if why := r.cfg.Mapping.Mismatch(eff, rec, plan); why != "" {
				m.Status, m.Error = statusFlagged, why
			} else if r.cfg.PlanCheck != nil {
				if why := r.cfg.PlanCheck(plan); why != "" {
					m.Status, m.Error = statusFlagged, why
				}
			}
		}
		err = m.CheckRange() // the ranges every reader holds the line to
		if err == nil && m.Plan != nil {
			if err = m.Plan.CheckShape(); err != nil {
				m.Plan = nil
			}
		}
		if err != nil {
			// A value no machine gives: the run failed, the grid goes on.
			m.Status, m.Error = statusFailed, "the benchmark printed an impossible value: "+err.Error()
			m.Samples, m.Median, m.CV, m.Run = nil, 0, 0, nil // the error says what it printed
		}
		out = append(out, m)
	}
	return out, false
}

// flashAttn reads llama-bench's flash_attn field: true or 1 (an explicit
// -fa 1) is flash attention; false, 0, and a newer build's -1 (auto) are
// taken as without it.
func flashAttn(v string) bool {
	v = strings.TrimSpace(v)
	return v == "true" || v == "1"
}
