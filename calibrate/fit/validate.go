package fit

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

// Validation is the error of a profile's predictions: held out, unless
// Fitted says some of the points were those the profile was fitted on.
type Validation struct {
	Mode string  `json:"mode"` // predict, loo, holdout
	N    int     `json:"n"`
	MAPE float64 `json:"mape"`
	// MaxErrPct is the largest absolute relative error in percent.
	MaxErrPct float64 `json:"max_err_pct"`
	// Worst lists the configurations, worst first; Residual.InFit marks
	// those the profile was fitted on.
	Worst []Residual `json:"worst"`
	// Fitted is the error over the points the profile was fitted on:
	// in-sample, not held out. Only Predictions finds any, when some of
	// the measurements are records the profile's provenance lists
	// (FittedOn); LeaveOneOut and Holdout refit without the points they
	// score.
	Fitted Group `json:"fitted"`
	// HeldOut is the error over the other points, those the profile was
	// not fitted on.
	HeldOut Group `json:"held_out"`
	// FitUnrecorded says the profile is a fit that does not list the runs
	// it was fitted on (FitSet.Unrecorded): its points count as HeldOut,
	// but may have been fitted.
	FitUnrecorded bool `json:"fit_unrecorded,omitempty"`
	// Disturbed lists the configurations left unscored because other
	// processes disturbed every run of them.
	Disturbed []Disturbance `json:"disturbed,omitempty"`
}

// Group is the error over some of a validation's points.
type Group struct {
	N    int     `json:"n"`
	MAPE float64 `json:"mape"`
	// MaxErrPct is the largest absolute relative error in percent.
	MaxErrPct float64 `json:"max_err_pct"`
	// SpreadMAPE is the MAPE a perfect model would score on these points
	// from the runs' own spread alone: the mean over the points of the
	// expected absolute error of a measured value with standard error
	// Residual.SpreadPct (√(2/π) of it). BeyondSpreadPct is the RMS error
	// that spread does not explain, √max(0, mean err² − mean SpreadPct²):
	// the model's own. Both in percent; 0 without spreads.
	SpreadMAPE      float64 `json:"spread_mape,omitempty"`
	BeyondSpreadPct float64 `json:"beyond_spread_pct,omitempty"`
	// Values is the typical (median) count of values a point's measured
	// statistic is the median of: its rounds.
	Values int `json:"values,omitempty"`
}

// Predictions scores soc on every throughput in ms without refitting. A
// configuration with a run the profile was fitted on (its provenance's
// list, FittedOn) is in-sample: Residual.InFit, counted in
// Validation.Fitted; the others are held out. Of o, only Stat is used: it
// says how runs of one configuration are merged.
func Predictions(soc *model.SoC, ms []measure.Measurement, o Options) (*Validation, error) {
	if _, err := ParseStat(string(o.Stat)); err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	obs, disturbed := splitDisturbed(throughputs(ms, o.Stat))
	if len(obs) == 0 {
		if len(disturbed) > 0 {
			return nil, &InterferenceError{Disturbed: disturbed, N: len(disturbed), Stat: o.Stat}
		}
		return nil, ErrNoThroughput
	}
	vals, dram, err := predictAll(NewPredictor(), soc, obs)
	if err != nil {
		return nil, err
	}
	rows, _, _ := residualTable(obs, vals, dram, o.Stat)
	set := FittedOn(soc)
	fitted := set.fittedConfigs(ms)
	for i := range rows {
		rows[i].InFit = fitted[configKey(&obs[i])]
	}
	v := summarize("predict", rows)
	v.FitUnrecorded = set.Unrecorded()
	v.Disturbed = disturbed
	return v, nil
}

// LeaveOneOut refits prior without each throughput in turn and predicts the
// one left out.
func LeaveOneOut(prior *model.SoC, ms []measure.Measurement, o Options) (*Validation, error) {
	obs := throughputs(ms, o.Stat)
	if len(obs) < 2 {
		return nil, ErrNoThroughput
	}
	micro := micros(ms)
	var rows []Residual
	pred := NewPredictor()
	for i := range obs {
		train := append(append([]measure.Measurement(nil), micro...), obs[:i]...)
		train = append(train, obs[i+1:]...)
		r, err := Fit(prior, train, o)
		if err != nil {
			return nil, err
		}
		sr, err := pred.Simulate(r.SoC, &obs[i])
		if err != nil {
			return nil, err
		}
		v := sr.TPS
		rows = append(rows, Residual{ID: obs[i].ID, Label: obs[i].Label(), Measured: obs[i].Median, Predicted: v,
			ErrPct: measure.ErrPct(v, obs[i].Median), DRAMBoundPct: 100 * sr.Bound.DRAM, CapBoundPct: 100 * sr.Bound.EngineCap,
			SpreadPct: spreadPct(&obs[i], o.Stat), Values: max(1, len(obs[i].Samples))})
	}
	return summarize("loo", rows), nil
}

// Holdout fits prior on the throughputs that match none of patterns (see
// HeldOut) and predicts those that match one.
func Holdout(prior *model.SoC, ms []measure.Measurement, patterns []string, o Options) (*Validation, *Result, error) {
	var train, test []measure.Measurement
	for _, m := range ms {
		if m.OK() && Throughput(&m) && HeldOut(&m, patterns) {
			test = append(test, m)
		} else {
			train = append(train, m)
		}
	}
	switch {
	case len(test) == 0:
		return nil, nil, fmt.Errorf("holdout: no throughput matches %q", patterns)
	case len(throughputs(train, o.Stat)) == 0:
		return nil, nil, fmt.Errorf("holdout: every throughput matches %q: none is left to fit", patterns)
	}
	r, err := Fit(prior, train, o)
	var ie *InterferenceError
	if errors.As(err, &ie) {
		// Count the held-out configurations too, disturbed or not.
		_, dist := splitDisturbed(throughputs(test, o.Stat))
		ie.Disturbed = append(ie.Disturbed, dist...)
		ie.N += len(throughputs(test, o.Stat))
	}
	if err != nil {
		return nil, nil, err
	}
	v, err := Predictions(r.SoC, test, o)
	if errors.As(err, &ie) {
		// Every held-out configuration disturbed: the fit's too.
		ie.Disturbed = append(r.Disturbed, ie.Disturbed...)
		ie.N += len(r.Residuals) + len(r.Disturbed)
	}
	if err != nil {
		return nil, nil, err
	}
	v.Mode = "holdout"
	return v, r, nil
}

// HeldOut reports whether m matches one of patterns: a pattern matches
// when its words appear as whole words, in order and next to each other, in
// the measurement's label ("f=0.15" matches "token f=0.15 poll=0" but not
// "token f=0.155 poll=0"; "expert f=0.35" matches only that split), when it
// is one of the measurement's knobs as NAME=VALUE
// ("ORK_BL_LITTLE_FRAC=0.15"), or when the measurement's ID contains it.
func HeldOut(m *measure.Measurement, patterns []string) bool {
	label := " " + strings.Join(strings.Fields(m.Label()), " ") + " "
	for _, p := range patterns {
		p = strings.Join(strings.Fields(p), " ")
		if p == "" {
			continue
		}
		if strings.Contains(m.ID, p) || strings.Contains(label, " "+p+" ") {
			return true
		}
		if name, value, ok := strings.Cut(p, "="); ok {
			if v, have := m.Knobs[name]; have && v == value {
				return true
			}
		}
	}
	return false
}

// Merge returns the usable throughput measurements of ms, one per
// configuration (kind, workload and plan), in the order each first
// appears: runs of the same configuration (a calibration's rounds, a grid
// run twice) are merged into one, with the first run's knobs but "round"
// and a knob "runs" that counts them. Runs that other processes disturbed
// to the end (measure.Interference.Disturbed) are left out of a
// configuration that has undisturbed runs; a configuration whose runs were
// all disturbed keeps them, and says so. With
// Median (or ""), its value is the median of their medians, its samples
// those medians and its CV their spread (at least a run's own), so a run
// the machine disturbed weighs as little as one sample. With Best, its
// value is the highest throughput of any sample of any run, its samples
// the top quarter of all samples (at least two) and its CV their spread.
// Measurements that are not throughputs, or not ok, are left out.
func Merge(ms []measure.Measurement, stat Stat) []measure.Measurement {
	return throughputs(ms, stat)
}

// throughputs is Merge.
func throughputs(ms []measure.Measurement, stat Stat) []measure.Measurement {
	var out []measure.Measurement
	// Each configuration's runs, as pointers into ms: a file of many runs
	// is not copied again.
	var groups [][]*measure.Measurement
	runs := map[string]int{} // config key -> index in out and groups
	for i := range ms {
		m := &ms[i]
		if !m.OK() || !Throughput(m) {
			continue
		}
		k := configKey(m)
		g, seen := runs[k]
		if !seen {
			g = len(out)
			runs[k] = g
			out = append(out, *m)
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], m)
	}
	for i := range out {
		group := preferQuiet(groups[i])
		merged := *group[0]
		if len(group) > 1 {
			merged.Samples = nil
			cvSum := 0.0
			for _, g := range group {
				merged.Samples = append(merged.Samples, g.Median)
				cvSum += g.CV
			}
			merged.Summarize()
			// The spread between runs, but never less than a run's own.
			merged.CV = math.Max(merged.CV, cvSum/float64(len(group)))
			merged.Knobs = map[string]string{}
			for k, v := range group[0].Knobs {
				if k != "round" {
					merged.Knobs[k] = v
				}
			}
			merged.Knobs["runs"] = fmt.Sprint(len(group))
			merged.Interference = mergedInterference(group)
		}
		if stat == Best {
			merged.Median, merged.CV, merged.Samples = bestOf(group)
		}
		out[i] = merged
	}
	return out
}

// bestOf is the highest throughput of any sample of any run in group (a
// run's median when it kept no samples), and its relative uncertainty: the
// CV of the top quarter of the samples (at least two), which is how
// repeatable the undisturbed speed is; a run's own CV when there is only
// one value.
func bestOf(group []*measure.Measurement) (best, cv float64, top []float64) {
	var all []float64
	for _, g := range group {
		vals := g.Samples
		if len(vals) == 0 {
			vals = []float64{g.Median}
		}
		for _, v := range vals {
			if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
				all = append(all, v)
			}
		}
	}
	if len(all) == 0 {
		return group[0].Median, group[0].CV, nil
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(all)))
	if len(all) == 1 {
		return all[0], group[0].CV, all
	}
	top = all[:max(2, (len(all)+3)/4)]
	m := measure.Measurement{Samples: top}
	m.Summarize()
	return all[0], m.CV, top
}

// configKey identifies what a throughput measured: its kind, workload and
// plan (its shares to six decimals).
func configKey(m *measure.Measurement) string {
	p := m.Plan
	k := make([]byte, 0, 128)
	k = append(append(append(k, m.Kind...), '|'), m.Workload...)
	k = strconv.AppendUint(append(k, '|'), fnv64(m.WorkloadYAML), 16)
	k = append(append(k, '|'), p.Mode...)
	for _, e := range p.Engines {
		k = strconv.AppendQuote(append(k, '|'), e)
	}
	k = append(k, "|f"...)
	for _, f := range p.Fracs {
		k = strconv.AppendFloat(append(k, ' '), f, 'f', 6, 64)
	}
	k = append(k, "|t"...)
	for _, t := range p.Threads {
		k = strconv.AppendInt(append(k, ' '), int64(t), 10)
	}
	k = strconv.AppendInt(append(k, '|'), int64(p.Poll), 10)
	if r := m.Run; r != nil {
		for _, n := range []int{r.PromptTokens, r.Ubatch, r.Depth, r.GenTokens} {
			k = strconv.AppendInt(append(k, '/'), int64(n), 10)
		}
		if r.FlashAttn {
			k = append(k, "/fa"...)
		}
	}
	return string(k)
}

func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func micros(ms []measure.Measurement) []measure.Measurement {
	var out []measure.Measurement
	for _, m := range ms {
		if m.OK() && !Throughput(&m) {
			out = append(out, m)
		}
	}
	return out
}

// summarize scores rows, in all and split by Residual.InFit.
func summarize(mode string, rows []Residual) *Validation {
	v := &Validation{Mode: mode, N: len(rows)}
	var errs, ses [3][]float64 // all, fitted, held out
	var values [3][]int
	for _, r := range rows {
		g := 2
		if r.InFit {
			g = 1
		}
		for _, i := range []int{0, g} {
			errs[i] = append(errs[i], r.ErrPct)
			ses[i] = append(ses[i], r.SpreadPct)
			values[i] = append(values[i], r.Values)
		}
	}
	var all Group
	for i, g := range []*Group{&all, &v.Fitted, &v.HeldOut} {
		g.N = len(errs[i])
		if g.N > 0 {
			g.MAPE = measure.MAPE(errs[i])
			spreadOf(g, errs[i], ses[i])
			slices.Sort(values[i])
			g.Values = values[i][len(values[i])/2]
		}
		for _, e := range errs[i] {
			g.MaxErrPct = math.Max(g.MaxErrPct, math.Abs(e))
		}
	}
	v.MAPE, v.MaxErrPct = all.MAPE, all.MaxErrPct
	sort.SliceStable(rows, func(i, j int) bool { return math.Abs(rows[i].ErrPct) > math.Abs(rows[j].ErrPct) })
	v.Worst = rows
	return v
}
