package public

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/blsim/blsim/hfconfig"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/quantize"
	"github.com/blsim/blsim/sim"
)

// Status is how a row counts.
type Status string

// The statuses of a row.
const (
	Scored         Status = "scored"
	Setting        Status = "set a value"
	Gapped         Status = "gap"
	NotExpressible Status = "not expressible"
)

// Poll is the pools' spin level: llama-bench's and llama-cli's default.
const Poll = 50

// Result is one row, predicted or not.
type Result struct {
	Row
	Status Status `json:"status"`
	// Why says why a row is not expressible, or its gap, or what it set.
	Why string `json:"why,omitempty"`
	// Pool is how the threads sat: "big=4,little=4".
	Pool      string  `json:"pool,omitempty"`
	Predicted float64 `json:"predicted_tps,omitempty"`
	ErrPct    float64 `json:"err_pct,omitempty"`
	// The ratio to the sweep's measured best row, measured and predicted
	// (HasRatio: the row is in a sweep and not its best).
	HasRatio       bool     `json:"has_ratio,omitempty"`
	RatioMeasured  float64  `json:"ratio_measured,omitempty"`
	RatioPredicted float64  `json:"ratio_predicted,omitempty"`
	RatioErrPct    float64  `json:"ratio_err_pct,omitempty"`
	Notes          []string `json:"notes,omitempty"`
}

// Predict predicts one row: its SoC preset in its build's era, its model
// and scheme (or workload), its test and its threads. A row blsim cannot
// express comes back with Status NotExpressible and why; a row naming a
// SoC preset outside PlannedSoCs, or a model or workload preset that does
// not exist, is an error naming the row. Sets, if any, change the row's
// SoC before it is simulated (a what-if: the presets' values are then not
// what is checked).
func Predict(r Row, sets ...Set) (Result, error) {
	res, _, err := simulate(r, sets)
	return res, err
}

// simulate is Predict with the simulation itself (nil where the row is
// not expressible): what bounds each row's time (sim.Result.Bound, Pool).
func simulate(r Row, sets []Set) (Result, *sim.Result, error) {
	res := Result{Row: r, Status: Scored}
	switch {
	case r.Sets != "":
		res.Status, res.Why = Setting, r.Sets
	case r.Gap != "":
		res.Status, res.Why = Gapped, r.Gap
	}
	no := func(why string) (Result, *sim.Result, error) {
		res.Status, res.Why = NotExpressible, why
		return res, nil, nil
	}
	if !slices.Contains(PlannedSoCs, r.SoC) {
		return res, nil, fmt.Errorf("row %s: soc %q is not a preset blsim has or plans (%s)", r.ID, r.SoC, strings.Join(PlannedSoCs, ", "))
	}
	if r.NotExpressible != "" {
		return no(r.NotExpressible)
	}
	if !slices.Contains(presets.SoCNames(), r.SoC) {
		return no("no preset " + r.SoC + " yet")
	}
	s, err := presets.SoC(r.SoC)
	if r.DRAM != "" {
		s, err = presets.SoCWithDRAM(r.SoC, r.DRAM)
	}
	if err != nil {
		return res, nil, fmt.Errorf("row %s: %w", r.ID, err)
	}
	w, scheme, notes, err := workloadOf(r)
	if err != nil {
		return res, nil, fmt.Errorf("row %s: %w", r.ID, err)
	}
	run, _ := r.Run()
	w = w.WithRun(run)
	era := EraOf(r.Date)
	era.Packed = r.Packed
	s, eraNotes := era.Apply(s, w, scheme)
	if r.DRAM != "" {
		eraNotes = append(eraNotes, fmt.Sprintf("the device's memory %s: %.3g GB/s peak, %.3g sustained", r.DRAM, s.DRAM.PeakGBs, s.DRAM.SustainedGBs))
	}
	if len(r.Packed) > 0 {
		eraNotes = append(eraNotes, "the build packs "+strings.Join(r.Packed, ", ")+" at load: the repacked path")
	}
	if s.Handoff.TimesliceUS == 0 {
		// A barrier's wait for a descheduled thread is the OS's slice.
		s.Handoff.TimesliceUS = r.Policy().TimesliceUS()
	}
	if s.Handoff.BackgroundCPUs == 0 {
		s.Handoff.BackgroundCPUs = FamilyBackgroundCPUs[r.Family]
	}
	res.Notes = append(notes, eraNotes...)
	if len(sets) > 0 {
		if err := applySets(s, sets); err != nil {
			return res, nil, fmt.Errorf("row %s: %w", r.ID, err)
		}
		res.Notes = append(res.Notes, "what-if: "+joinSets(sets))
	}
	plan, pool, why := poolOf(r, s)
	if why != "" {
		return no(why)
	}
	res.Pool = pool
	out, err := sim.Run(s, w, plan)
	if err != nil {
		return res, nil, fmt.Errorf("row %s: %w", r.ID, err)
	}
	res.Predicted = out.TPS
	res.ErrPct = 100 * (out.TPS/r.TPS - 1)
	return res, out, nil
}

// workloadOf is the row's workload: its model preset built with its
// scheme, or its workload preset.
func workloadOf(r Row) (*model.Workload, quantize.Scheme, []string, error) {
	if r.Workload != "" {
		w, err := presets.Workload(r.Workload)
		return w, quantize.F16, nil, err
	}
	p, err := presets.Model(r.Model)
	if err != nil {
		return nil, 0, nil, err
	}
	s, err := quantize.Parse(r.Scheme)
	if err != nil {
		return nil, 0, nil, err
	}
	m, err := hfconfig.Build(p.Config, p.Name, s, quantize.Options{Imatrix: r.Imatrix})
	if err != nil {
		return nil, 0, nil, err
	}
	return m.Workload(), s, m.Quant.Notes, nil
}

// poolOf places the row's threads: where Clusters says (a pinned row),
// or by the row's OS's policy (model.SoC.Place: an unpinned -t N). An
// app's row is placed by the OS's policy too: PocketPal's llama.rn fills a
// mask of the fastest CPUs with --cpu-strict (mybigday/llama.rn PR #208,
// set_best_cores), but ggml applies no affinity on Android
// (model.PlaceAndroid), so the mask never reaches the threads. It returns
// the plan, the pool as the table shows it, and why the row cannot be
// placed ("" when it can).
func poolOf(r Row, s *model.SoC) (model.Plan, string, string) {
	if cc, _ := r.clusterCounts(); len(cc) > 0 {
		var names []string
		var counts []int
		for _, c := range cc {
			e, _, err := s.Engine(c[0])
			n, _ := strconv.Atoi(c[1])
			if err != nil || e.IsAccelerator() || n > e.Cores {
				return model.Plan{}, "", fmt.Sprintf("clusters %s: not CPU clusters of %s with that many cores", r.Clusters, s.Name)
			}
			names, counts = append(names, c[0]), append(counts, n)
		}
		p := model.NewPool(names, counts, Poll)
		return p, PoolText(p), ""
	}
	pl, err := s.Place(r.Threads, r.Policy(), model.PlaceOptions{Poll: Poll})
	if err != nil {
		return model.Plan{}, "", err.Error()
	}
	return pl.Plan, PoolText(pl.Plan), ""
}

// PoolText is a pool plan as the table shows it: each engine's threads,
// with those on SMT siblings and the cores allowed where they narrow it:
// "big=4,little=4", "p=16(8 smt),e=16", "big=5(4 cores)".
func PoolText(p model.Plan) string {
	var parts []string
	for i, name := range p.Engines {
		s := fmt.Sprintf("%s=%d", name, p.Threads[i])
		var notes []string
		if i < len(p.SMT) && p.SMT[i] > 0 {
			notes = append(notes, fmt.Sprintf("%d smt", p.SMT[i]))
		}
		if i < len(p.Allowed) {
			notes = append(notes, fmt.Sprintf("%d cores", p.Allowed[i].Cores))
		}
		if len(notes) > 0 {
			s += "(" + strings.Join(notes, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ",")
}

// ratios sets each sweep row's ratio to the sweep's measured best row
// (among the rows predicted), measured and predicted.
func ratios(res []Result) {
	best := map[string]int{}
	for i, r := range res {
		if r.Sweep == "" || r.Status == NotExpressible {
			continue
		}
		if b, ok := best[r.Sweep]; !ok || r.TPS > res[b].TPS {
			best[r.Sweep] = i
		}
	}
	for i := range res {
		r := &res[i]
		b, ok := best[r.Sweep]
		if !ok || b == i || r.Status == NotExpressible {
			continue
		}
		r.HasRatio = true
		r.RatioMeasured = r.TPS / res[b].TPS
		r.RatioPredicted = r.Predicted / res[b].Predicted
		r.RatioErrPct = 100 * (r.RatioPredicted/r.RatioMeasured - 1)
	}
}

// mape is the mean of the absolute values (0 for none: the targets say
// N 0).
func mape(errs []float64) float64 {
	if len(errs) == 0 {
		return 0
	}
	s := 0.0
	for _, e := range errs {
		s += math.Abs(e)
	}
	return s / float64(len(errs))
}
