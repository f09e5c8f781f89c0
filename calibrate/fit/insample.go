package fit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// RunDigest identifies one measurement record: the first 12 hex digits of
// the SHA-256 of its JSON form, without the fields a measurements file may
// hold differently from the run in memory (the schema tag, which writing
// adds, and the captured stdout and stderr). A run measured again has
// other samples and another time, so another digest, though its ID (which
// names the configuration) is the same.
func RunDigest(m *measure.Measurement) string {
	c := *m
	c.Schema, c.Stdout, c.Stderr = "", "", ""
	b, err := json.Marshal(&c)
	if err != nil {
		// A value JSON cannot hold (NaN): such a record is never
		// written, so it never matches one read back either.
		b = fmt.Appendf(nil, "%#v", c)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// fittedRuns lists, as model.Provenance.FittedRuns records them ("DIGEST
// ID"), the usable throughput records of ms whose configuration is one of
// fitted's (the merged throughputs a fit used).
func fittedRuns(ms, fitted []measure.Measurement) []string {
	keys := map[string]bool{}
	for i := range fitted {
		keys[configKey(&fitted[i])] = true
	}
	var out []string
	for i := range ms {
		m := &ms[i]
		if m.OK() && Throughput(m) && keys[configKey(m)] {
			out = append(out, RunDigest(m)+" "+m.ID)
		}
	}
	return out
}

// FitSet is the measurement records a profile was fitted on, as its
// provenance lists them (model.Provenance.FittedRuns).
type FitSet struct {
	digests map[string]bool
	// ids are the runs' IDs (space trimmed), where every entry names
	// one: a record whose ID is not among them is not one of them (its
	// digest covers its ID), which Has tells without the digest (a JSON
	// encoding and a SHA-256 of each record of a file).
	ids map[string]bool
	// unrecorded: the profile is a fit that does not list its runs.
	unrecorded bool
}

// FittedOn returns the records soc was fitted on. A profile that is not a
// fit (a preset) was fitted on none; a fit that does not list them (one
// written before blsim recorded them) is Unrecorded.
func FittedOn(soc *model.SoC) FitSet {
	var f FitSet
	p := soc.Provenance
	if p == nil {
		return f
	}
	ids := map[string]bool{}
	for _, r := range p.FittedRuns {
		d, id, _ := strings.Cut(strings.TrimSpace(r), " ")
		if d != "" {
			if f.digests == nil {
				f.digests = map[string]bool{}
			}
			f.digests[d] = true
			if id = strings.TrimSpace(id); id == "" {
				ids = nil // an entry without its ID: digests alone tell
			} else if ids != nil {
				ids[id] = true
			}
		}
	}
	if len(f.digests) > 0 {
		f.ids = ids
	}
	f.unrecorded = len(f.digests) == 0 && p.Runs > 0
	return f
}

// Has reports whether m is one of the records the profile was fitted on.
func (f FitSet) Has(m *measure.Measurement) bool {
	if len(f.digests) == 0 || f.ids != nil && !f.ids[strings.TrimSpace(m.ID)] {
		return false
	}
	return f.digests[RunDigest(m)]
}

// Unrecorded reports whether the profile is a fit (its provenance counts
// the runs fitted) that does not list which: whether a point is in the
// fit cannot be told.
func (f FitSet) Unrecorded() bool { return f.unrecorded }

// fittedConfigs returns the configurations (configKey) of ms that have a
// run in f: a configuration counts as fitted when any of its runs was, as
// its merged throughput is then not independent of the fit.
func (f FitSet) fittedConfigs(ms []measure.Measurement) map[string]bool {
	if len(f.digests) == 0 {
		return nil
	}
	out := map[string]bool{}
	for i := range ms {
		m := &ms[i]
		if m.OK() && Throughput(m) && f.Has(m) {
			out[configKey(m)] = true
		}
	}
	return out
}

// Configs tells, for the merged throughputs of the records ms (Merge),
// whether their configuration had a run in f: a configuration counts as
// fitted when any of its runs was.
func (f FitSet) Configs(ms []measure.Measurement) func(*measure.Measurement) bool {
	keys := f.fittedConfigs(ms)
	return func(m *measure.Measurement) bool { return keys[configKey(m)] }
}

// Parity is what a parity plot of soc against measurements needs
// (predict.ParityPoints): predicted, the throughput soc predicts for a
// measurement by plain simulation of its own plan and workload (w when it
// names none; w may be nil), and fitted, whether soc was fitted on a
// merged throughput of the records raw (FitSet.Configs), or nil when its
// provenance does not say (Unrecorded).
func Parity(soc *model.SoC, w *model.Workload, raw []measure.Measurement) (predicted func(*measure.Measurement) (float64, error), fitted func(*measure.Measurement) bool) {
	pr := NewPredictor()
	if w != nil {
		pr.Add(w)
	}
	if set := FittedOn(soc); !set.Unrecorded() {
		fitted = set.Configs(raw)
	}
	return func(m *measure.Measurement) (float64, error) { return pr.Predict(soc, m) }, fitted
}
