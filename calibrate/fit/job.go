package fit

import (
	"fmt"
	"strings"
	"time"

	"github.com/blsim/blsim/internal/atomicfile"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// A Job is one fit of a prior profile to measurements, as blsim fit and
// blsim calibrate make it: on every throughput, or on those that match
// none of the Holdout patterns, with the fitted profile's provenance
// stamped (where it came from, the host and the runs it was fitted on).
type Job struct {
	Prior        *model.SoC
	Measurements []measure.Measurement
	Options      Options
	// Holdout lists the patterns (HeldOut) of the throughputs held out of
	// the fit and scored; none: fit all.
	Holdout []string
	// Source is the provenance's source; a holdout adds ", holding out"
	// and the patterns to it.
	Source string
	// Governors, when set, replace the cpufreq governors the measurements
	// recorded in the provenance.
	Governors map[string]string
	// Notes are added to the provenance's notes, after those on the
	// parameters the runs do not identify.
	Notes []string
}

// Run fits, holding out what matches j.Holdout and scoring it, and stamps
// the fitted profile's provenance. The validation is nil without holdout
// patterns. A poor fit (Result.Check) is returned as any other: what to do
// with one is the caller's.
func (j Job) Run() (*Result, *Validation, error) {
	var r *Result
	var v *Validation
	var err error
	fitted, source := j.Measurements, j.Source
	if len(j.Holdout) == 0 {
		r, err = Fit(j.Prior, j.Measurements, j.Options)
	} else {
		v, r, err = Holdout(j.Prior, j.Measurements, j.Holdout, j.Options)
		fitted = nil
		for _, m := range j.Measurements {
			if !HeldOut(&m, j.Holdout) {
				fitted = append(fitted, m)
			}
		}
		source += ", holding out " + strings.Join(j.Holdout, ",")
	}
	if err != nil {
		return nil, nil, err
	}
	r.stampProvenance(fitted, source)
	if len(j.Governors) > 0 {
		r.SoC.Provenance.Governors = j.Governors
	}
	r.SoC.Provenance.Notes = append(r.SoC.Provenance.Notes, j.Notes...)
	return r, v, nil
}

// stampProvenance records where the fitted profile came from: the source,
// the date, the throughputs of ms and the host that measured them, the
// runs Fit fitted and a note (ParamFit.Note) for each parameter the runs
// do not identify.
func (r *Result) stampProvenance(ms []measure.Measurement, source string) {
	p := &model.Provenance{Source: source, Date: time.Now().UTC().Format(time.RFC3339), Residual: r.RMSPct}
	for _, m := range ms {
		if Throughput(&m) && m.OK() {
			p.Runs++
		}
		if m.Host != nil && p.Host == "" {
			p.Host, p.Kernel, p.CPU, p.Governors = m.Host.Name, m.Host.Kernel, m.Host.CPU, m.Host.Governors
		}
	}
	if fp := r.SoC.Provenance; fp != nil {
		p.FittedRuns = fp.FittedRuns // what Fit fitted: the runs it could predict
		p.Span, p.PriorLed = fp.Span, fp.PriorLed
	}
	for _, pf := range r.Params {
		if n := pf.Note(); n != "" {
			p.Notes = append(p.Notes, n)
		}
		if pf.Identification != PriorOnly && pf.Identification != RidesOnPrior {
			p.Measured = append(p.Measured, pf.Path)
		}
	}
	r.SoC.Provenance = p
}

// WriteProfile validates a fitted profile and writes it to path as YAML,
// under a header line, atomically: a failed write leaves no partial file.
func WriteProfile(path string, s *model.SoC) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("fitted profile: %w", err)
	}
	b, err := model.MarshalSoC(s)
	if err != nil {
		return err
	}
	header := "# Fitted by blsim; values with their standard deviations under uncertainty.\n"
	return atomicfile.WriteFile(path, append([]byte(header), b...), 0o644)
}
