package predict

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/sim"
)

// BenchSchema is the schema tag of a Bench document.
const BenchSchema = "blsim/bench/v1"

// BenchRequest asks what llama-bench would print: one row per SoC,
// workload, ubatch, thread count, poll and test, as llama-bench makes one
// run of every combination of its lists (-m, -ub, -t, --poll, and -p, -n
// for the tests), each row beside the split dispatcher's best plan.
type BenchRequest struct {
	SoCs      []*model.SoC
	Workloads []*model.Workload
	// Prompts are the pp tests (-p), Gens the tg tests (-n); a 0 is no
	// test, as in llama-bench. Prompts nil: the workload's own prompt;
	// Gens nil: DefaultGenTokens.
	Prompts, Gens []int
	// Ubatches (-ub) nil: the workload's own; Depth is every test's
	// KV-cache depth (-d; 0: the workload's own).
	Ubatches []int
	Depth    int
	// Threads are llama-bench's -t: one pool's total threads, placed by
	// the OS policy Placement ("": linux) as llama.cpp runs -t N with no
	// --cpu-mask. Nil: predict's native pool, the first engine's threads
	// pinned to it (EngineThreads[0] or its default).
	Threads   []int
	Placement model.Placement
	// Polls (--poll) nil: 50, llama-bench's default.
	Polls []int
	// Engines and EngineThreads are the split dispatcher's engines (nil:
	// the SoC's first two) and each one's threads (nil: its default).
	Engines       []string
	EngineThreads []int
	Draws         int
}

// BenchRow is one llama-bench run, predicted: the fields llama-bench's
// csv and json name (n_threads, poll, n_ubatch, n_prompt, n_gen, avg_ts)
// under its names, with blsim's split beside it.
type BenchRow struct {
	SoC      string `json:"soc"`
	Model    string `json:"model"`
	NThreads int    `json:"n_threads"`
	// Where says where the pool's threads run: "4 on big" (pinned), or
	// "unpinned: 4 on big, 4 on little" as the OS places -t N.
	Where   string     `json:"where"`
	Plan    model.Plan `json:"plan"`
	Poll    int        `json:"poll"`
	NUbatch int        `json:"n_ubatch"`
	NPrompt int        `json:"n_prompt"`
	NGen    int        `json:"n_gen"`
	NDepth  int        `json:"n_depth,omitempty"`
	Test    string     `json:"test"`
	AvgTS   float64    `json:"avg_ts"`
	// Split is the split dispatcher's best plan for the test (a token
	// split for pp, an expert split for tg, whose graphs are one token)
	// judged against the row's pool; nil when the SoC has one engine.
	Split *BenchSplit `json:"split,omitempty"`
}

// BenchSplit is the split dispatcher's best plan for a row, and its gain
// over the row's pool.
type BenchSplit struct {
	Plan  model.Plan `json:"plan"`
	AvgTS float64    `json:"avg_ts"`
	Judgement
}

// Describe names the split plan and its threads, which are its own, not
// the row's -t: "4+4 threads, token split big 0.888 + little 0.112".
func (b *BenchSplit) Describe() string {
	t := make([]string, len(b.Plan.Threads))
	for i, n := range b.Plan.Threads {
		t[i] = strconv.Itoa(n)
	}
	return strings.Join(t, "+") + " threads, " + describeSplit(b.Plan)
}

// Bench is a BenchRequest's table.
type Bench struct {
	Schema string     `json:"schema"`
	Rows   []BenchRow `json:"rows"`
}

// RunBench predicts every row of q: per SoC and workload, per thread
// count and poll, per ubatch the pp tests and then the tg tests (llama-bench
// also runs its pp tests before its tg tests). One sim.Evaluator serves every row of a test, so a row's gain
// shares its pool's perturbed SoCs (sim.Evaluator.Interval).
func RunBench(q BenchRequest) (*Bench, error) {
	if len(q.SoCs) == 0 || len(q.Workloads) == 0 {
		return nil, fieldErr("soc", -1, "a bench needs a SoC and a workload")
	}
	polls := q.Polls
	if polls == nil {
		polls = []int{50}
	}
	for _, p := range polls {
		if p < 0 || p > 100 {
			return nil, fieldErr("poll", -1, "%d is outside 0..100", p)
		}
	}
	pol := q.Placement
	if pol == "" {
		pol = model.PlaceLinux
	}
	out := &Bench{Schema: BenchSchema}
	for _, s := range q.SoCs {
		engines, err := benchEngines(s, q)
		if err != nil {
			return nil, err
		}
		for _, w := range q.Workloads {
			tests, err := benchTests(w, q)
			if err != nil {
				return nil, err
			}
			evs := make([]*sim.Evaluator, len(tests))
			for i := range tests {
				wt := *w
				wt.Run = tests[i]
				evs[i] = sim.NewEvaluator(s, &wt, q.Draws)
			}
			threads := q.Threads
			if threads == nil {
				threads = []int{0}
			}
			for _, t := range threads {
				for _, poll := range polls {
					for i, run := range tests {
						row, err := benchRow(s, w, evs[i], run, engines, t, poll, pol)
						if err != nil {
							return nil, err
						}
						out.Rows = append(out.Rows, row)
					}
				}
			}
		}
	}
	return out, nil
}

// benchEngines are the split's engines with their threads on s: the
// request's, or the SoC's first two at their defaults; one engine when
// the SoC has no second (no split then).
func benchEngines(s *model.SoC, q BenchRequest) ([]benchEngine, error) {
	names := q.Engines
	if names == nil {
		for i := 0; i < len(s.Engines) && i < 2; i++ {
			names = append(names, s.Engines[i].Name)
		}
	}
	if q.EngineThreads != nil && len(q.EngineThreads) != len(names) {
		return nil, fieldErr("engine-threads", -1, "%d values for %d engines: want %s (one thread count per engine, main first)", len(q.EngineThreads), len(names), exampleList("4", len(names)))
	}
	out := make([]benchEngine, len(names))
	for i, n := range names {
		e, _, err := s.Engine(n)
		if err != nil {
			return nil, fieldErr("engines", i, "%v", err)
		}
		out[i] = benchEngine{name: n, threads: e.DefaultThreads()}
		if q.EngineThreads != nil {
			if t := q.EngineThreads[i]; t < 1 || (!e.IsAccelerator() && t > e.HWThreads()) {
				return nil, fieldErr("engine-threads", i, "%d threads for engine %q, but it has %d hardware threads", t, n, e.HWThreads())
			}
			out[i].threads = q.EngineThreads[i]
		}
	}
	if len(out) == 0 {
		return nil, fieldErr("engines", -1, "soc %s has no engine", s.Name)
	}
	return out, nil
}

type benchEngine struct {
	name    string
	threads int
}

// benchTests are the runs of w the request's lists make: per ubatch,
// a pp run per prompt and then a tg run per generated-token count.
func benchTests(w *model.Workload, q BenchRequest) ([]model.Run, error) {
	prompts, gens, ubs := q.Prompts, q.Gens, q.Ubatches
	if prompts == nil {
		prompts = []int{w.Run.PromptTokens}
	}
	if gens == nil {
		gens = []int{DefaultGenTokens}
	}
	if ubs == nil {
		ubs = []int{w.Run.Ubatch}
	}
	depth := w.Run.Depth
	if q.Depth > 0 {
		depth = q.Depth
	}
	var out []model.Run
	for _, ub := range ubs {
		for _, p := range prompts {
			if p > 0 {
				out = append(out, model.Run{PromptTokens: p, Ubatch: ub, Depth: depth})
			}
		}
		for _, n := range gens {
			if n > 0 {
				out = append(out, model.Run{GenTokens: n, Ubatch: ub, Depth: depth})
			}
		}
	}
	if len(out) == 0 {
		return nil, fieldErr("test", -1, "every -p and -n is 0: no test to predict")
	}
	for _, r := range out {
		wr := *w
		wr.Run = r
		if err := wr.Validate(); err != nil {
			return nil, fieldErr("run", -1, "%s (ubatch %d): %v", testName(r), r.Ubatch, err)
		}
	}
	return out, nil
}

// benchRow predicts one run: the pool (t threads placed by pol, or the
// first engine's pinned pool when t is 0) and the split's best plan.
func benchRow(s *model.SoC, w *model.Workload, ev *sim.Evaluator, run model.Run, engines []benchEngine, t, poll int, pol model.Placement) (BenchRow, error) {
	var base model.Plan
	var where string
	if t == 0 {
		base = model.NewNative(engines[0].name, engines[0].threads, poll)
		t = engines[0].threads
		where = fmt.Sprintf("%d on %s", t, engines[0].name)
	} else {
		pl, err := s.Place(t, pol, model.PlaceOptions{Poll: poll})
		if err != nil {
			return BenchRow{}, fieldErr("threads", -1, "%v", err)
		}
		base = pl.Plan
		where = fmt.Sprintf("unpinned (%s): %s", pol, ThreadsRow{Plan: base}.Where())
	}
	res, err := ev.Run(base)
	if err != nil {
		return BenchRow{}, err
	}
	row := BenchRow{SoC: s.Name, Model: w.Name, NThreads: t, Where: where, Plan: base, Poll: poll,
		NUbatch: run.Ubatch, NPrompt: run.PromptTokens, NGen: run.GenTokens, NDepth: run.Depth, Test: testName(run), AvgTS: res.TPS}
	if len(engines) < 2 {
		return row, nil
	}
	mode := model.TokenSplit
	if run.PromptTokens == 0 {
		mode = model.ExpertSplit
	}
	split := model.Plan{Mode: mode, Poll: poll}
	for _, e := range engines {
		split.Engines = append(split.Engines, e.name)
		split.Threads = append(split.Threads, e.threads)
	}
	bp, br, err := ev.Best(split)
	if err != nil {
		return BenchRow{}, fmt.Errorf("%s %s: %w", s.Name, strings.Join(split.Engines, "+"), err)
	}
	j, err := judge(ev, base, bp, res.TPS, br.TPS)
	if err != nil {
		return BenchRow{}, err
	}
	row.Split = &BenchSplit{Plan: bp, AvgTS: br.TPS, Judgement: j}
	return row, nil
}
