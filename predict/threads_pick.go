package predict

import (
	"errors"
	"fmt"
	"strings"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

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

// Judgement is one pool's gain over another, with its interval from the
// SoC's uncertainty (sim.Evaluator.Interval) and its verdict.
type Judgement struct {
	GainPct  float64      `json:"gain_pct"`
	Interval sim.Interval `json:"interval"`
	Verdict  sim.Verdict  `json:"verdict"`
}

// Alternative is another pool with the recommendation's gain over it:
// the fastest pool on the first cluster, where the recommendation is a
// pool over more clusters or SMT siblings.
type Alternative struct {
	Row ThreadsRow `json:"row"`
	Judgement
}

// Sure reports whether the recommendation's gain over a.Row is beyond the
// prediction's uncertainty (a WIN by sim.Judge); where it is not, the
// model cannot tell the two pools apart and both are worth measuring.
func (a *Alternative) Sure() bool { return a == nil || a.Verdict.Sure() }

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

// recommend picks a phase's pool: the fastest of all (the split and
// unpinned rows aside), the best point estimate. Where that is not the
// fastest pool on the first cluster (rows whose Mask is first), it also
// judges its gain over that pool by the one verdict rule (sim.JudgePlan):
// a WIN says the gain is sure, anything else that the interval includes
// zero (or the gain is within 1%), so the two are worth measuring. And it
// judges every core's pool against the pick.
func recommend(ev *sim.Evaluator, rows []ThreadsRow, all ThreadsRow, first string, tps func(ThreadsRow) float64) (ThreadsRow, Judgement, *Alternative, error) {
	var own, fastest ThreadsRow
	for _, r := range rows {
		if r.Unpinned || strings.HasPrefix(r.Mask, "split") {
			continue
		}
		if r.Mask == first && (own.Threads == 0 || tps(r) > tps(own)) {
			own = r
		}
		if fastest.Threads == 0 || tps(r) > tps(fastest) {
			fastest = r
		}
	}
	var over *Alternative
	if fastest.Mask != own.Mask || fastest.Threads != own.Threads {
		j, err := judge(ev, own.Plan, fastest.Plan, tps(own), tps(fastest))
		if err != nil {
			return ThreadsRow{}, Judgement{}, nil, err
		}
		over = &Alternative{Row: own, Judgement: j}
	}
	jall, err := judge(ev, fastest.Plan, all.Plan, tps(fastest), tps(all))
	return fastest, jall, over, err
}

// pickBoth sets the sweep's recommendation for each phase, and the
// unpinned rows at its thread counts.
func pickBoth(out *ThreadsSweep, evPP, evTG *sim.Evaluator, first string) error {
	var err error
	ppTPS := func(r ThreadsRow) float64 { return r.PPTPS }
	tgTPS := func(r ThreadsRow) float64 { return r.TGTPS }
	if out.BestPP, out.PPAllCores, out.PPOverFirst, err = recommend(evPP, out.Rows, out.AllCores, first, ppTPS); err != nil {
		return err
	}
	if out.BestTG, out.TGAllCores, out.TGOverFirst, err = recommend(evTG, out.Rows, out.AllCores, first, tgTPS); err != nil {
		return err
	}
	out.UnpinnedPP, out.UnpinnedTG = out.unpinned(out.BestPP.Threads), out.unpinned(out.BestTG.Threads)
	return nil
}

// unpinned is the unpinned row of n threads (a zero row when the sweep
// has none).
func (t *ThreadsSweep) unpinned(n int) ThreadsRow {
	for _, r := range t.Rows {
		if r.Unpinned && r.Threads == n {
			return r
		}
	}
	return ThreadsRow{}
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

// Flags is the llama.cpp command-line of a pool row under placement pol:
// -t N and its --cpu-mask, in hex with --cpu-strict 1 where the profile
// gives the clusters' CPU ids (CPUMask), else the clusters the mask must
// cover. Where ggml sets no thread affinity (pol.Pins is false) no mask is
// given: on Android the row's CPUs are a CPU set (taskset), on macOS
// nothing can pin them.
func (r ThreadsRow) Flags(pol model.Placement) string {
	parts := r.Where()
	switch {
	case r.Unpinned:
		return fmt.Sprintf("-t %d alone (%s)", r.Threads, parts)
	case pol == model.PlaceAndroid && r.CPUMask != "":
		return fmt.Sprintf("-t %d under taskset %s (%s)", r.Threads, r.CPUMask, parts)
	case pol == model.PlaceAndroid:
		return fmt.Sprintf("-t %d under taskset of %s's cores (%s)", r.Threads, strings.Join(r.Plan.Engines, " and "), parts)
	case !pol.Pins():
		return fmt.Sprintf("-t %d, which %s cannot pin (%s)", r.Threads, pol, parts)
	case r.CPUMask != "":
		return fmt.Sprintf("-t %d --cpu-mask %s --cpu-strict 1 (%s)", r.Threads, r.CPUMask, parts)
	}
	return fmt.Sprintf("-t %d, --cpu-mask of %s's cores (%s)", r.Threads, strings.Join(r.Plan.Engines, " and "), parts)
}

// Where says where a pool row's threads run: "4 on big, 4 on little",
// "16 on big (8 on SMT siblings)".
func (r ThreadsRow) Where() string {
	parts := make([]string, len(r.Plan.Engines))
	for i, e := range r.Plan.Engines {
		parts[i] = fmt.Sprintf("%d on %s", r.Plan.Threads[i], e)
		if i < len(r.Plan.SMT) && r.Plan.SMT[i] > 0 {
			parts[i] += fmt.Sprintf(" (%d on SMT siblings)", r.Plan.SMT[i])
		}
	}
	return strings.Join(parts, ", ")
}

// ThreadsBeside is the thread sweep beside request q: q's prompt for the
// pp test (own's, the workload's own run, when q's test has none, as a tg
// test) and q's generated tokens for the tg test (DefaultGenTokens when
// it has none, as a pp test). p, when not nil, is q's prediction: a test
// it predicted reuses its runs (the split dispatcher's best plan).
func ThreadsBeside(q Request, own model.Run, p *Prediction) (*ThreadsSweep, error) {
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
	return Threads(ThreadsRequest{SoC: q.SoC, Workload: q.Workload, Prompt: &pp, Gen: run.GenTokens, Poll: q.Poll, Draws: q.Draws, Busy: q.Busy, Placement: q.Placement, from: p})
}
