package predict

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// ThreadsSchema is the schema tag of a ThreadsSweep document.
const ThreadsSchema = "blsim/threads/v1"

// ThreadsRequest asks how stock llama.cpp's one thread pool fares at each
// thread count and set of clusters (-t, --cpu-mask), for prefill and for
// decode, beside the split dispatcher.
type ThreadsRequest struct {
	SoC      *model.SoC
	Workload *model.Workload
	// Prompt is the pp test (nil: the workload's own); Gen the tokens of
	// the tg test (0: DefaultGenTokens).
	Prompt *model.Run
	Gen    int
	Poll   int
	// Draws chooses the recommendation's intervals: 0, first-order; N,
	// Monte Carlo over N parameter draws (Request.Draws).
	Draws int
	// Busy is how many cores of each swept engine (by name) run something
	// else at full load, which every pool shares them with
	// (model.Plan.BusyCores); the split dispatcher's rows are then left
	// out, with a note: its plans run on idle cores.
	Busy map[string]int
	// Placement is the OS policy that places the unpinned rows, `-t N`
	// without a mask (model.SoC.Place; "": linux).
	Placement model.Placement
	// from, when not nil, is the prediction the sweep is beside
	// (ThreadsBeside): a test it predicted reuses its evaluator's runs.
	from *Prediction
}

// ThreadsRow is one pool (or the split dispatcher) with its pp and tg
// t/s.
type ThreadsRow struct {
	// Mask names the clusters the threads run on: "big", "big+little",
	// "big+mid+little", "little", "big+smt" (the cores and then their
	// SMT siblings), "unpinned" (where the OS's policy puts -t N), or
	// "split" for the split dispatcher's best plan.
	Mask    string     `json:"mask"`
	Plan    model.Plan `json:"plan"`
	Threads int        `json:"threads"`
	PPTPS   float64    `json:"pp_tps"`
	TGTPS   float64    `json:"tg_tps"`
	// CPUMask is the pool's --cpu-mask in hex ("0xf0"), when the profile
	// gives its clusters' CPU ids (model.Engine.CPUs, SMTCPUs); ""
	// otherwise, and for an unpinned row.
	CPUMask string `json:"cpu_mask,omitempty"`
	// Unpinned is a row the OS placed (ThreadsSweep.Placement).
	Unpinned bool `json:"unpinned,omitempty"`
}

// ThreadsSweep is every row, and the recommendation for each phase.
type ThreadsSweep struct {
	Schema   string `json:"schema"`
	SoC      string `json:"soc"`
	Workload string `json:"workload"`
	PP       string `json:"pp"`
	TG       string `json:"tg"`
	// Placement is the policy of the unpinned rows.
	Placement model.Placement `json:"placement"`
	Rows      []ThreadsRow    `json:"rows"`
	// BestPP and BestTG are the pools to run for each phase (the split
	// and unpinned rows aside): the fastest, the best point estimate,
	// whether or not its gain over the first cluster's best is beyond the
	// prediction's uncertainty (PPOverFirst and TGOverFirst say). AllCores
	// is every core in one pool, one thread a core, as llama.cpp's
	// default -t is on a chip it does not know as hybrid.
	BestPP   ThreadsRow `json:"best_pp"`
	BestTG   ThreadsRow `json:"best_tg"`
	AllCores ThreadsRow `json:"all_cores"`
	// UnpinnedPP and UnpinnedTG are the unpinned rows at the
	// recommendation's thread counts: what `-t N` alone gives.
	UnpinnedPP ThreadsRow `json:"unpinned_pp"`
	UnpinnedTG ThreadsRow `json:"unpinned_tg"`
	// PPAllCores and TGAllCores are every core's pool against the
	// recommendation, for each phase.
	PPAllCores Judgement `json:"pp_all_cores"`
	TGAllCores Judgement `json:"tg_all_cores"`
	// PPOverFirst and TGOverFirst are the recommendation against the
	// fastest pool on the first (fastest) cluster where the two differ
	// (nil otherwise): its gain, interval and verdict (sim.JudgePlan).
	// Where the verdict is not a WIN (Alternative.Sure), the model cannot
	// tell the two apart.
	PPOverFirst *Alternative `json:"pp_over_first,omitempty"`
	TGOverFirst *Alternative `json:"tg_over_first,omitempty"`
	// Busy is the request's busy cores by engine (nil: none).
	Busy map[string]int `json:"busy,omitempty"`
	// Notes are what the sweep could not use of the profile, one line
	// each (CPU ids that do not match the cores; a type of the workload's
	// weights a cluster has no kernel rate for).
	Notes []string `json:"notes,omitempty"`
}

// BusyText is " with 2 little cores busy" for the sweep's busy cores, by
// engine name ("" with none): what its titles add.
func (t *ThreadsSweep) BusyText() string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(t.Busy)) {
		if n := t.Busy[name]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, name))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " with " + strings.Join(parts, " and ") + " cores busy"
}

// cpuClusters are s's CPU clusters, fastest first (model.Engine.
// CapacityGOPS, the order every OS policy fills them in), the file's
// order among equals.
func cpuClusters(s *model.SoC) []*model.Engine {
	var out []*model.Engine
	for i := range s.Engines {
		if !s.Engines[i].IsAccelerator() {
			out = append(out, &s.Engines[i])
		}
	}
	slices.SortStableFunc(out, func(a, b *model.Engine) int { return cmp.Compare(b.CapacityGOPS(), a.CapacityGOPS()) })
	return out
}

// Threads sweeps the pools over every CPU cluster of the SoC, fastest
// first: the first alone at 1..its cores, then its SMT siblings; each
// further cluster added to the ones before it at 1..its cores; every
// core's SMT siblings after all the cores; each further cluster alone;
// and the pool of -t 1..every hardware thread as the OS places it
// without a mask (the unpinned rows, by the request's Placement). Beside
// them the split dispatcher's best plan for each phase (a token split for
// pp, an expert split for tg, whose graphs are one token) on the first
// two clusters.
func Threads(q ThreadsRequest) (*ThreadsSweep, error) {
	if q.SoC == nil || q.Workload == nil {
		return nil, errors.New("threads: a request needs a SoC and a workload")
	}
	s := q.SoC
	cl := cpuClusters(s)
	if len(cl) == 0 {
		return nil, fieldErr("engines", -1, "soc %s: a thread sweep needs a CPU cluster", s.Name)
	}
	if q.Poll < 0 || q.Poll > 100 {
		return nil, fieldErr("poll", -1, "%d is outside 0..100", q.Poll)
	}
	pol := q.Placement
	if pol == "" {
		pol = model.PlaceLinux
	}
	if _, err := model.ParsePlacement(string(pol)); err != nil || pol == model.PlaceStrict {
		return nil, fieldErr("placement", -1, "%q: the unpinned rows want an OS's policy (linux, android, macos, windows)", pol)
	}
	pp := q.Workload.Run
	if q.Prompt != nil {
		pp = *q.Prompt
	}
	if pp.GenTokens != 0 || pp.PromptTokens < 1 {
		return nil, fieldErr("test", -1, "the pp test needs a prompt and no generated tokens")
	}
	gen := q.Gen
	if gen == 0 {
		gen = DefaultGenTokens
	}
	if gen < 1 || gen > 1<<20 {
		return nil, fieldErr("test", -1, "tg%d: want 1..%d generated tokens", gen, 1<<20)
	}
	tg := model.Run{GenTokens: gen, Ubatch: pp.Ubatch, Depth: pp.Depth}
	wpp, wtg := *q.Workload, *q.Workload
	wpp.Run, wtg.Run = pp, tg
	evPP, evTG := q.from.evaluatorOf(s, q.Workload, pp, q.Draws), q.from.evaluatorOf(s, q.Workload, tg, q.Draws)
	if evPP == nil {
		evPP = sim.NewEvaluator(s, &wpp, q.Draws)
	}
	if evTG == nil {
		evTG = sim.NewEvaluator(s, &wtg, q.Draws)
	}
	out := &ThreadsSweep{Schema: ThreadsSchema, SoC: s.Name, Workload: q.Workload.Name, PP: testName(pp), TG: testName(tg), Placement: pol, Busy: q.Busy}
	var names []string
	for _, e := range cl {
		names = append(names, e.Name)
		if len(e.CPUs) > 0 && len(e.CPUs) != e.Cores {
			out.Notes = append(out.Notes, fmt.Sprintf("engines.%s.cpus lists %d CPU ids for %d cores: the --cpu-mask is named by cluster, not in hex", e.Name, len(e.CPUs), e.Cores))
		}
	}
	for _, w := range fallbackWarnings(s, q.Workload, names) {
		out.Notes = append(out.Notes, w.String())
	}
	for _, name := range slices.Sorted(maps.Keys(q.Busy)) {
		n := q.Busy[name]
		e, _, err := s.Engine(name)
		if err != nil || e.IsAccelerator() {
			return nil, fieldErr("busy", -1, "%s: not one of the swept clusters (%s)", name, strings.Join(names, ", "))
		}
		if n > e.Cores {
			return nil, fieldErr("busy", -1, "%s=%d: %s has %d cores", name, n, name, e.Cores)
		}
	}
	row := func(mask string, p model.Plan, unpinned bool) error {
		if len(q.Busy) > 0 {
			p.BusyCores = make([]int, len(p.Engines))
			for i, name := range p.Engines {
				p.BusyCores[i] = q.Busy[name]
			}
		}
		rp, err := evPP.Run(p)
		if err != nil {
			return err
		}
		rt, err := evTG.Run(p)
		if err != nil {
			return err
		}
		r := ThreadsRow{Mask: mask, Plan: p, Threads: p.PoolThreads(), PPTPS: rp.TPS, TGTPS: rt.TPS, Unpinned: unpinned}
		if !unpinned {
			r.CPUMask, _ = s.PoolCPUMask(p)
		}
		out.Rows = append(out.Rows, r)
		return nil
	}
	// pool is the pool of threads[i] on cluster i of clusters, smt[i] of
	// them on siblings (nil: none).
	pool := func(clusters []*model.Engine, threads, smt []int) model.Plan {
		n := make([]string, len(clusters))
		for i, e := range clusters {
			n[i] = e.Name
		}
		p := model.NewPool(n, threads, q.Poll)
		if smt != nil {
			p.SMT = slices.Clone(smt)
		}
		return p
	}
	first := cl[0]
	for t := 1; t <= first.Cores; t++ {
		if err := row(first.Name, pool(cl[:1], []int{t}, nil), false); err != nil {
			return nil, err
		}
	}
	out.AllCores = out.Rows[len(out.Rows)-1]
	if len(cl) == 1 {
		// Every core's siblings after its cores.
		for k := 1; k <= first.HWThreads()-first.Cores; k++ {
			if err := row(first.Name+"+smt", pool(cl[:1], []int{first.Cores + k}, []int{k}), false); err != nil {
				return nil, err
			}
		}
	}
	counts := []int{first.Cores}
	for i := 1; i < len(cl); i++ {
		mask := strings.Join(names[:i+1], "+")
		for t := 1; t <= cl[i].Cores; t++ {
			if err := row(mask, pool(cl[:i+1], append(slices.Clone(counts), t), nil), false); err != nil {
				return nil, err
			}
		}
		counts = append(counts, cl[i].Cores)
		out.AllCores = out.Rows[len(out.Rows)-1]
	}
	if len(cl) > 1 {
		// Every cluster's cores, then their siblings, fastest cluster's
		// first.
		sib := make([]int, len(cl))
		for i, e := range cl {
			for k := 1; k <= e.HWThreads()-e.Cores; k++ {
				sib[i] = k
				threads := make([]int, len(cl))
				for j := range cl {
					threads[j] = cl[j].Cores + sib[j]
				}
				if err := row(strings.Join(names, "+")+"+smt", pool(cl, threads, sib), false); err != nil {
					return nil, err
				}
			}
		}
	}
	for i := 1; i < len(cl); i++ {
		for t := 1; t <= cl[i].Cores; t++ {
			if err := row(cl[i].Name, pool(cl[i:i+1], []int{t}, nil), false); err != nil {
				return nil, err
			}
		}
	}
	hw := 0
	for _, e := range cl {
		hw += e.HWThreads()
	}
	for t := 1; t <= hw; t++ {
		pl, err := s.Place(t, pol, model.PlaceOptions{Poll: q.Poll})
		if err != nil {
			return nil, err
		}
		if err := row("unpinned", pl.Plan, true); err != nil {
			return nil, err
		}
	}
	if err := pickBoth(out, evPP, evTG, first.Name); err != nil {
		return nil, err
	}
	if len(cl) == 1 {
		return out, nil
	}
	if len(q.Busy) > 0 {
		out.Notes = append(out.Notes, "the split dispatcher's rows are left out: they are modelled on idle cores, and this sweep has busy ones")
		return out, nil
	}
	// The split dispatcher, for comparison: its best plan per phase on
	// the first two clusters.
	big, little := cl[0], cl[1]
	bt, lt := big.DefaultThreads(), little.DefaultThreads()
	split := func(mode model.Mode) model.Plan {
		return model.Plan{Mode: mode, Engines: []string{big.Name, little.Name}, Threads: []int{bt, lt}, Poll: q.Poll}
	}
	ppSplit, ppr, err := evPP.Best(split(model.TokenSplit))
	if err != nil {
		return nil, err
	}
	tgSplit, tgr, err := evTG.Best(split(model.ExpertSplit))
	if err != nil {
		return nil, err
	}
	out.Rows = append(out.Rows,
		ThreadsRow{Mask: "split (pp: " + describeSplit(ppSplit) + ")", Plan: ppSplit, Threads: workingThreads(ppSplit), PPTPS: ppr.TPS},
		ThreadsRow{Mask: "split (tg: " + describeSplit(tgSplit) + ")", Plan: tgSplit, Threads: workingThreads(tgSplit), TGTPS: tgr.TPS})
	return out, nil
}
