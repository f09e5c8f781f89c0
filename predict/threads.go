package predict

import (
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
	// Draws are the parameter samples of the recommendation's intervals
	// (0: sim.DefaultDraws).
	Draws int
	// Busy is how many cores of each swept engine (by name) run something
	// else at full load, which every pool shares them with
	// (model.Plan.BusyCores); the split dispatcher's rows are then left
	// out, with a note: its plans run on idle cores.
	Busy map[string]int
}

// ThreadsRow is one pool (or the split dispatcher) with its pp and tg
// t/s.
type ThreadsRow struct {
	// Mask names the clusters the threads run on: "big", "big+little",
	// "little", or "split" for the split dispatcher's best plan.
	Mask    string     `json:"mask"`
	Plan    model.Plan `json:"plan"`
	Threads int        `json:"threads"`
	PPTPS   float64    `json:"pp_tps"`
	TGTPS   float64    `json:"tg_tps"`
	// CPUMask is the pool's --cpu-mask in hex ("0xf0"), when the profile
	// gives its clusters' CPU ids (model.Engine.CPUs); "" otherwise.
	CPUMask string `json:"cpu_mask,omitempty"`
}

// ThreadsSweep is every row, and the recommendation for each phase.
type ThreadsSweep struct {
	Schema   string       `json:"schema"`
	SoC      string       `json:"soc"`
	Workload string       `json:"workload"`
	PP       string       `json:"pp"`
	TG       string       `json:"tg"`
	Rows     []ThreadsRow `json:"rows"`
	// BestPP and BestTG are the pools to run for each phase (the split
	// row aside: stock llama.cpp cannot run it): the fastest pool on the
	// first cluster, unless a pool over more clusters is faster by a WIN,
	// beyond the prediction's uncertainty (sim.Judge). AllCores is every
	// core in one pool, as llama.cpp's default -t does.
	BestPP   ThreadsRow `json:"best_pp"`
	BestTG   ThreadsRow `json:"best_tg"`
	AllCores ThreadsRow `json:"all_cores"`
	// PPAllCores and TGAllCores are every core's pool against the
	// recommendation, for each phase.
	PPAllCores Judgement `json:"pp_all_cores"`
	TGAllCores Judgement `json:"tg_all_cores"`
	// FasterPP and FasterTG are the fastest pool of a phase where it is
	// not the recommendation: faster by a margin the model cannot tell
	// from zero (nil otherwise).
	FasterPP *Alternative `json:"faster_pp,omitempty"`
	FasterTG *Alternative `json:"faster_tg,omitempty"`
	// Busy is the request's busy cores by engine (nil: none).
	Busy map[string]int `json:"busy,omitempty"`
	// Notes are what the sweep could not use of the profile, one line
	// each (CPU ids that do not match the cores).
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

// Threads sweeps the pools over the SoC's first two CPU clusters: the
// first alone at 1..its cores, the first's cores plus 1..the second's,
// and the second alone; and the split dispatcher's best plan for each
// phase (a token split for pp, an expert split for tg, whose graphs are
// one token). A SoC of one CPU cluster (a Raspberry Pi 5) sweeps that
// cluster alone.
func Threads(q ThreadsRequest) (*ThreadsSweep, error) {
	if q.SoC == nil || q.Workload == nil {
		return nil, errors.New("threads: a request needs a SoC and a workload")
	}
	s := q.SoC
	if len(s.Engines) < 1 || s.Engines[0].IsAccelerator() || len(s.Engines) > 1 && s.Engines[1].IsAccelerator() {
		return nil, fieldErr("engines", -1, "soc %s: a thread sweep needs one or two CPU clusters first", s.Name)
	}
	if q.Poll < 0 || q.Poll > 100 {
		return nil, fieldErr("poll", -1, "%d is outside 0..100", q.Poll)
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
	evPP, evTG := sim.NewEvaluator(s, &wpp, q.Draws), sim.NewEvaluator(s, &wtg, q.Draws)
	big := &s.Engines[0]
	out := &ThreadsSweep{Schema: ThreadsSchema, SoC: s.Name, Workload: q.Workload.Name, PP: testName(pp), TG: testName(tg), Busy: q.Busy}
	for i := range s.Engines[:min(2, len(s.Engines))] {
		if e := &s.Engines[i]; len(e.CPUs) > 0 && len(e.CPUs) != e.Cores {
			out.Notes = append(out.Notes, fmt.Sprintf("engines.%s.cpus lists %d CPU ids for %d cores: the --cpu-mask is named by cluster, not in hex", e.Name, len(e.CPUs), e.Cores))
		}
	}
	swept := s.Engines[:min(2, len(s.Engines))]
	for _, name := range slices.Sorted(maps.Keys(q.Busy)) {
		n := q.Busy[name]
		e, i, err := s.Engine(name)
		if err != nil || i >= len(swept) {
			var names []string
			for _, e := range swept {
				names = append(names, e.Name)
			}
			return nil, fieldErr("busy", -1, "%s: not one of the swept clusters (%s)", name, strings.Join(names, ", "))
		}
		if n > e.Cores {
			return nil, fieldErr("busy", -1, "%s=%d: %s has %d cores", name, n, name, e.Cores)
		}
	}
	row := func(mask string, p model.Plan) error {
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
		cm, _ := s.CPUMask(p.Engines, p.Threads)
		out.Rows = append(out.Rows, ThreadsRow{Mask: mask, Plan: p, Threads: p.PoolThreads(), PPTPS: rp.TPS, TGTPS: rt.TPS, CPUMask: cm})
		return nil
	}
	for t := 1; t <= big.Cores; t++ {
		if err := row(big.Name, model.NewPool([]string{big.Name}, []int{t}, q.Poll)); err != nil {
			return nil, err
		}
	}
	pick := func() error {
		var err error
		ppTPS := func(r ThreadsRow) float64 { return r.PPTPS }
		tgTPS := func(r ThreadsRow) float64 { return r.TGTPS }
		if out.BestPP, out.PPAllCores, out.FasterPP, err = recommend(evPP, out.Rows, out.AllCores, big.Name, ppTPS); err != nil {
			return err
		}
		out.BestTG, out.TGAllCores, out.FasterTG, err = recommend(evTG, out.Rows, out.AllCores, big.Name, tgTPS)
		return err
	}
	if len(s.Engines) == 1 {
		out.AllCores = out.Rows[big.Cores-1]
		if err := pick(); err != nil {
			return nil, err
		}
		return out, nil
	}
	little := &s.Engines[1]
	for t := 1; t <= little.Cores; t++ {
		if err := row(big.Name+"+"+little.Name, model.NewPool([]string{big.Name, little.Name}, []int{big.Cores, t}, q.Poll)); err != nil {
			return nil, err
		}
	}
	for t := 1; t <= little.Cores; t++ {
		if err := row(little.Name, model.NewPool([]string{little.Name}, []int{t}, q.Poll)); err != nil {
			return nil, err
		}
	}
	out.AllCores = out.Rows[big.Cores+little.Cores-1]
	if err := pick(); err != nil {
		return nil, err
	}
	if len(q.Busy) > 0 {
		out.Notes = append(out.Notes, "the split dispatcher's rows are left out: they are modelled on idle cores, and this sweep has busy ones")
		return out, nil
	}
	// The split dispatcher, for comparison: its best plan per phase.
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

// workingThreads are the threads of a split plan's engines that take a
// share: an engine given nothing is never woken.
func workingThreads(p model.Plan) int {
	n := 0
	for i, t := range p.Threads {
		if i == 0 || p.Fracs[i] >= 0.0005 {
			n += t
		}
	}
	return n
}

// Judgement is one pool's gain over another, with the interval of its
// parameter draws and its verdict.
type Judgement struct {
	GainPct  float64      `json:"gain_pct"`
	Interval sim.Interval `json:"interval"`
	Verdict  sim.Verdict  `json:"verdict"`
}

// Alternative is a pool faster than the recommendation by a gain the
// model cannot tell from zero.
type Alternative struct {
	Row ThreadsRow `json:"row"`
	Judgement
}

// judge compares plan with base: its gain, interval and verdict
// (sim.JudgePlan).
func judge(ev *sim.Evaluator, base, plan model.Plan, baseTPS, planTPS float64) (Judgement, error) {
	iv, err := ev.Interval(base, plan)
	if err != nil {
		return Judgement{}, err
	}
	g := sim.GainPct(planTPS, baseTPS)
	return Judgement{GainPct: g, Interval: iv, Verdict: sim.JudgePlan(plan, g, iv)}, nil
}

// recommend picks a phase's pool: the fastest on the first cluster (rows
// whose Mask is first), or the fastest of all where it wins over that;
// and says how every core and a faster pool that does not win compare.
func recommend(ev *sim.Evaluator, rows []ThreadsRow, all ThreadsRow, first string, tps func(ThreadsRow) float64) (ThreadsRow, Judgement, *Alternative, error) {
	var own, fastest ThreadsRow
	for i, r := range rows {
		if r.Mask == first && (own.Threads == 0 || tps(r) > tps(own)) {
			own = r
		}
		if i == 0 || tps(r) > tps(fastest) {
			fastest = r
		}
	}
	pick := own
	var alt *Alternative
	if fastest.Mask != own.Mask || fastest.Threads != own.Threads {
		j, err := judge(ev, own.Plan, fastest.Plan, tps(own), tps(fastest))
		if err != nil {
			return ThreadsRow{}, Judgement{}, nil, err
		}
		if j.Verdict == sim.Win {
			pick = fastest
		} else {
			alt = &Alternative{Row: fastest, Judgement: j}
		}
	}
	jall, err := judge(ev, pick.Plan, all.Plan, tps(pick), tps(all))
	return pick, jall, alt, err
}

// describeSplit names a split row's plan: "token split big 0.888 +
// little 0.112", or "expert split, the dispatcher alone on big" when it
// gives the helpers nothing.
func describeSplit(p model.Plan) string {
	if sim.HelpersIdle(p) {
		return fmt.Sprintf("%s split, the dispatcher alone on %s", p.Mode, p.Engines[0])
	}
	return fmt.Sprintf("%s split %s", p.Mode, p.Shares())
}

// Flags is the llama.cpp command-line of a pool row: -t N and its
// --cpu-mask, in hex with --cpu-strict 1 where the profile gives the
// clusters' CPU ids (CPUMask), else the clusters the mask must cover.
func (r ThreadsRow) Flags() string {
	parts := make([]string, len(r.Plan.Engines))
	for i, e := range r.Plan.Engines {
		parts[i] = fmt.Sprintf("%d on %s", r.Plan.Threads[i], e)
	}
	if r.CPUMask != "" {
		return fmt.Sprintf("-t %d --cpu-mask %s --cpu-strict 1 (%s)", r.Threads, r.CPUMask, strings.Join(parts, ", "))
	}
	return fmt.Sprintf("-t %d, --cpu-mask of %s's cores (%s)", r.Threads, strings.Join(r.Plan.Engines, " and "), strings.Join(parts, ", "))
}

// ThreadsBeside is the thread sweep beside request q: q's prompt for the
// pp test (own's, the workload's own run, when q's test has none, as a tg
// test) and q's generated tokens for the tg test (DefaultGenTokens when
// it has none, as a pp test).
func ThreadsBeside(q Request, own model.Run) (*ThreadsSweep, error) {
	if q.Workload == nil {
		return nil, errors.New("threads: a request needs a SoC and a workload")
	}
	run := q.Workload.Run
	if q.Test != nil {
		run = *q.Test
	}
	pp := run
	if pp.PromptTokens == 0 {
		pp.PromptTokens, pp.Ubatch = own.PromptTokens, own.Ubatch
	}
	pp.GenTokens = 0
	return Threads(ThreadsRequest{SoC: q.SoC, Workload: q.Workload, Prompt: &pp, Gen: run.GenTokens, Poll: q.Poll, Draws: q.Draws, Busy: q.Busy})
}
