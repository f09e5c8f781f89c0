package public

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// The targets: absolute t/s within 20% (MAPE), ratios to the sweep's best
// within 10% (MAPE), and each sweep's best -t the measured best or within
// 5% of it.
const (
	AbsTargetPct   = 20
	RatioTargetPct = 10
	BestWithinPct  = 5
)

// Sweep is one thread sweep's best -t, measured and predicted.
type Sweep struct {
	ID string `json:"id"`
	// Rows are the sweep's rows that count for its best -t (predicted,
	// neither gapped nor unexpressible).
	Rows []string `json:"rows"`
	// MeasuredBest and PredictedBest are row ids; Threads their -t.
	MeasuredBest         string `json:"measured_best"`
	PredictedBest        string `json:"predicted_best"`
	MeasuredBestThreads  int    `json:"measured_best_threads"`
	PredictedBestThreads int    `json:"predicted_best_threads"`
	// ShortfallPct is how much slower the predicted best measured than
	// the measured best (0 when they are the same row).
	ShortfallPct float64 `json:"shortfall_pct"`
	OK           bool    `json:"ok"`
}

// Target is one target and what the rows give.
type Target struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Limit float64 `json:"limit"`
	N     int     `json:"n"`
	Met   bool    `json:"met"`
	// Misses are the rows (or sweeps) outside the target's bound.
	Misses []string `json:"misses,omitempty"`
}

// Report is the scored table.
type Report struct {
	Family string `json:"family,omitempty"`
	SoC    string `json:"soc,omitempty"`
	// WhatIf are the changes made to every row's SoC (Options.Sets).
	WhatIf  []Set    `json:"what_if,omitempty"`
	Results []Result `json:"rows"`
	Sweeps  []Sweep  `json:"sweeps"`
	// Targets are over the scored rows, the gapped ones left out (what
	// the test asserts); TargetsWithGaps count those too.
	Targets         []Target `json:"targets"`
	SweepsWithGaps  []Sweep  `json:"sweeps_with_gaps"`
	TargetsWithGaps []Target `json:"targets_with_gaps"`
}

// Options narrow a check and change what it predicts.
type Options struct {
	// Family and SoC keep the rows of one family, or of one SoC preset
	// (PlannedSoCs); "" keeps all.
	Family, SoC string
	// Sets are what-if changes made to every row's SoC (Predict).
	Sets []Set
}

// Score predicts every row that o keeps (all with the zero Options), with
// o's what-if changes, and scores them.
func Score(rows []Row, o Options) (*Report, error) {
	if o.Family != "" && !slices.Contains(Families, o.Family) {
		return nil, fmt.Errorf("family %q: want one of %s", o.Family, strings.Join(Families, ", "))
	}
	if o.SoC != "" && !slices.Contains(PlannedSoCs, o.SoC) {
		return nil, fmt.Errorf("soc %q: no row names it (want one of %s)", o.SoC, strings.Join(PlannedSoCs, ", "))
	}
	rep := &Report{Family: o.Family, SoC: o.SoC, WhatIf: o.Sets}
	for _, r := range rows {
		if (o.Family != "" && r.Family != o.Family) || (o.SoC != "" && r.SoC != o.SoC) {
			continue
		}
		res, err := Predict(r, o.Sets...)
		if err != nil {
			return nil, err
		}
		rep.Results = append(rep.Results, res)
	}
	ratios(rep.Results)
	rep.Sweeps = sweeps(rep.Results, false)
	rep.SweepsWithGaps = sweeps(rep.Results, true)
	rep.Targets = targets(rep.Results, rep.Sweeps, false)
	rep.TargetsWithGaps = targets(rep.Results, rep.SweepsWithGaps, true)
	return rep, nil
}

// targets scores the rows against the three targets: the scored rows,
// and the gapped ones too when withGaps.
func targets(res []Result, sw []Sweep, withGaps bool) []Target {
	var abs, rat []float64
	var absMiss, ratMiss, bestMiss []string
	for _, r := range res {
		if r.Status != Scored && !(withGaps && r.Status == Gapped) {
			continue
		}
		abs = append(abs, r.ErrPct)
		if math.Abs(r.ErrPct) > AbsTargetPct {
			absMiss = append(absMiss, r.ID)
		}
		if r.HasRatio {
			rat = append(rat, r.RatioErrPct)
			if math.Abs(r.RatioErrPct) > RatioTargetPct {
				ratMiss = append(ratMiss, r.ID)
			}
		}
	}
	nOK := 0
	for _, s := range sw {
		if s.OK {
			nOK++
		} else {
			bestMiss = append(bestMiss, s.ID)
		}
	}
	a, q := mape(abs), mape(rat)
	return []Target{
		{Name: "absolute t/s MAPE %", Value: a, Limit: AbsTargetPct, N: len(abs), Met: len(abs) > 0 && a <= AbsTargetPct, Misses: absMiss},
		{Name: "within-sweep ratio MAPE %", Value: q, Limit: RatioTargetPct, N: len(rat), Met: len(rat) > 0 && q <= RatioTargetPct, Misses: ratMiss},
		{Name: "sweeps whose best -t is right (within 5%)", Value: float64(nOK), Limit: float64(len(sw)), N: len(sw), Met: nOK == len(sw) && len(sw) > 0, Misses: bestMiss},
	}
}

// sweeps finds each sweep's best -t among its predicted rows (gapped ones
// only withGaps); a sweep of fewer than two is left out.
func sweeps(res []Result, withGaps bool) []Sweep {
	by := map[string][]int{}
	var ids []string
	for i, r := range res {
		if r.Sweep == "" || r.Status == NotExpressible || (r.Status == Gapped && !withGaps) {
			continue
		}
		if _, ok := by[r.Sweep]; !ok {
			ids = append(ids, r.Sweep)
		}
		by[r.Sweep] = append(by[r.Sweep], i)
	}
	sort.Strings(ids)
	var out []Sweep
	for _, id := range ids {
		idx := by[id]
		if len(idx) < 2 {
			continue
		}
		mb, pb := idx[0], idx[0]
		s := Sweep{ID: id}
		for _, i := range idx {
			s.Rows = append(s.Rows, res[i].ID)
			if res[i].TPS > res[mb].TPS {
				mb = i
			}
			if res[i].Predicted > res[pb].Predicted {
				pb = i
			}
		}
		s.MeasuredBest, s.PredictedBest = res[mb].ID, res[pb].ID
		s.MeasuredBestThreads, s.PredictedBestThreads = res[mb].Threads, res[pb].Threads
		s.ShortfallPct = 100 * (1 - res[pb].TPS/res[mb].TPS)
		s.OK = s.ShortfallPct <= BestWithinPct
		out = append(out, s)
	}
	return out
}
