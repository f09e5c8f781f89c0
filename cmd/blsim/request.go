package main

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/blsim/blsim/internal/progress"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
	"github.com/blsim/blsim/sim"
	"github.com/spf13/pflag"
)

// requestFlags are the flags that say what to predict, the same in every
// command that predicts (predict, plot, report): they become one
// predict.Request.
type requestFlags struct {
	SoC           string
	Workload      string
	Engines       string
	Threads       string
	BigThreads    int
	LittleThreads int
	Split         string
	Frac          string
	Poll          int
	Prompt        int
	Ubatch        int
	Gen           int
	Test          string
	Depth         int
	Draws         int
	Busy          string
	Placement     string
	// flags is the command's flag set: what was given, and what not.
	flags  *pflag.FlagSet
	ownRun model.Run // the workload's own, which a measurement that records none ran
	// measuredWL is the workload the --measurements ran (readMeasurements),
	// predicted unless --workload is given.
	measuredWL *model.Workload
	// progress, when set, gets a progress bar for a long prediction.
	progress io.Writer
}

// longUbatches is the ubatch count, and longEngines the engine count,
// from which a prediction shows its progress: each step then simulates
// that many ubatches hundreds of times (about 20 ms per ubatch-step on a
// 2-vCPU machine), or searches a split over that many engines (seconds
// to a minute a step; docs/guarantees.md).
const longUbatches, longEngines = 64, 4

// register adds the flags to f with the same names, meanings and defaults
// in every command.
func (r *requestFlags) register(f *pflag.FlagSet) {
	r.flags = f
	f.StringVar(&r.SoC, "soc", "rk3588", "SoC profile: a preset name or a YAML file")
	f.StringVar(&r.Workload, "workload", "qwen3.5-35b-a3b", "workload: a preset name, a YAML file or a GGUF model file")
	f.StringVar(&r.Engines, "engines", "", "engines of the split, main first, comma-separated (default: the SoC's first two)")
	f.StringVar(&r.Threads, "threads", "", "threads per engine, comma-separated, one per engine (default: min(4, its cores) each)")
	f.IntVar(&r.BigThreads, "big-threads", 4, "threads of the first (big) engine (when not given: min(4, its cores))")
	f.IntVar(&r.LittleThreads, "little-threads", 4, "threads of each engine after the first (when not given: min(4, its cores))")
	f.StringVar(&r.Split, "split", "both", "how to split the expert ops: token, expert or both")
	f.StringVar(&r.Frac, "frac", "0.12", "the requested split: the second engine's share in [0,1], with more engines one share per engine\nafter the first (\"0.1,0.3\"), or auto (only the best; the default with more than two engines)")
	f.IntVar(&r.Poll, "poll", 50, "spin level of the pools, 0..100 (ggml --poll)")
	f.IntVar(&r.Prompt, "prompt", 0, "prompt tokens (default: the workload's, 512)")
	f.IntVar(&r.Ubatch, "ubatch", 0, "ubatch size (default: the workload's, 512)")
	f.IntVar(&r.Gen, "gen", 0, "tokens generated after the prompt, one per graph (llama-bench -n; with --prompt 0 a tg test, else pp+tg as -pg)")
	f.StringVar(&r.Test, "test", "pp", "llama-bench test: pp (the prompt), tg (--gen tokens, default 128, no prompt) or pg (both);\nwhen not given, --prompt 0 with --gen is a tg test and --gen alone pg")
	f.IntVar(&r.Depth, "depth", 0, "KV-cache depth before the test (llama-bench -d; default: the workload's, 0)")
	f.IntVar(&r.Draws, "draws", sim.DefaultDraws, "parameter samples for the uncertainty interval")
	f.StringVar(&r.Placement, "placement", "", "for a thread sweep: the OS policy that places -t N without a mask: linux, android, macos or windows\n(default linux; docs/threads.md)")
	f.StringVar(&r.Busy, "busy", "", "for a thread sweep: cores of each cluster busy with another task, which its pools share (big=1,little=2)")
}

func (r *requestFlags) given(name string) bool { return r.flags != nil && r.flags.Changed(name) }

// request reads the flags into a predict.Request, loading the SoC and
// workload. Errors name the flag.
func (r *requestFlags) request() (predict.Request, error) {
	var q predict.Request
	var err error
	if q.SoC, err = presets.LoadSoC(r.SoC); err != nil {
		return q, fmt.Errorf("--soc: %w", err)
	}
	if r.measuredWL != nil && !r.given("workload") {
		w := *r.measuredWL
		q.Workload = &w
	} else if q.Workload, err = presets.LoadWorkload(r.Workload); err != nil {
		return q, fmt.Errorf("--workload: %w", err)
	}
	r.ownRun = q.Workload.Run
	if q.Modes, err = predict.ParseModes(r.Split); err != nil {
		return q, fmt.Errorf("--split: %w", err)
	}
	q.Engines = predict.ParseEngines(r.Engines)
	n := len(q.Engines)
	if n == 1 {
		return q, fmt.Errorf("--engines: %q names one engine; a split needs two or more", r.Engines)
	}
	if n == 0 {
		n = min(2, len(q.SoC.Engines))
	}
	if r.Threads != "" {
		if r.given("big-threads") || r.given("little-threads") {
			return q, errors.New("--threads: give it or --big-threads and --little-threads, not both")
		}
		if q.Threads, err = predict.ParseThreads(r.Threads, n); err != nil {
			return q, fmt.Errorf("--threads: %w", err)
		}
	} else if r.given("big-threads") || r.given("little-threads") {
		if q.Threads, err = predict.PerEngineThreads(n, r.BigThreads, r.LittleThreads, r.given("big-threads"), r.given("little-threads")); err != nil {
			return q, r.flagError(err, q)
		}
	}
	frac := r.Frac
	if !r.given("frac") && n > 2 {
		frac = "auto"
	}
	if frac != "auto" && n >= 2 { // one engine: no split to share (predict says so)
		if q.Fracs, err = predict.ParseShares(frac, n); err != nil {
			return q, fmt.Errorf("--frac: %w", err)
		}
	}
	q.Poll = r.Poll
	for _, name := range []string{"prompt", "ubatch"} {
		if v, _ := r.flags.GetInt(name); r.given(name) && v < 1 && !(name == "prompt" && v == 0 && (r.Gen > 0 || r.given("test"))) {
			return q, fmt.Errorf("--%s: %d: want at least 1 (0 only with --gen; leave the flag out for the workload's own)", name, v)
		}
	}
	for _, c := range []struct { // the ranges a workload file is held to
		flag string
		v    int
		r    model.IntRange
	}{{"prompt", r.Prompt, model.PromptRange}, {"ubatch", r.Ubatch, model.UbatchRange}, {"gen", r.Gen, model.GenRange}, {"depth", r.Depth, model.DepthRange}} {
		if err := c.r.Check(c.v); err != nil && r.given(c.flag) {
			return q, fmt.Errorf("--%s: %w", c.flag, err)
		}
	}
	if r.given("test") {
		if err := predict.ApplyTest(&q.Workload.Run, r.Test, r.Prompt, r.Gen); err != nil {
			return q, fmt.Errorf("--test: %w", err)
		}
	} else if r.Prompt > 0 || r.given("prompt") {
		q.Workload.Run.PromptTokens = r.Prompt
	}
	if r.given("gen") && !r.given("test") {
		q.Workload.Run.GenTokens = r.Gen
	}
	if r.given("depth") {
		q.Workload.Run.Depth = r.Depth
	}
	if r.Ubatch > 0 {
		q.Workload.Run.Ubatch = r.Ubatch
	}
	if r.Draws < 1 || r.Draws > predict.MaxDraws {
		return q, fmt.Errorf("--draws: %d is outside 1..%d (the interval needs samples)", r.Draws, predict.MaxDraws)
	}
	q.Draws = r.Draws
	if q.Busy, err = predict.ParseBusy(r.Busy); err != nil {
		return q, fmt.Errorf("--busy: %w", err)
	}
	if q.Placement, err = predict.ParseUnpinned(r.Placement); err != nil {
		return q, fmt.Errorf("--placement: %w", err)
	}
	return q, nil
}

// threadFlag is the flag that set engine i's threads.
func (r *requestFlags) threadFlag(i int) string {
	switch {
	case r.Threads != "":
		return "--threads"
	case i == 0 && r.given("big-threads"):
		return "--big-threads"
	case i > 0 && r.given("little-threads"):
		return "--little-threads"
	}
	return "--threads"
}

// flagError names the flag behind a predict.FieldError.
func (r *requestFlags) flagError(err error, q predict.Request) error {
	var fe *predict.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	flag := map[string]string{"fracs": "--frac", "modes": "--split", "test": "--test, --prompt, --gen"}[fe.Field]
	switch {
	case fe.Field == "engines" && r.Engines == "":
		flag = "--soc"
	case fe.Field == "threads":
		flag = r.threadFlag(fe.Index)
	case fe.Field == "run":
		flag = fmt.Sprintf("--prompt %d --ubatch %d", q.Workload.Run.PromptTokens, q.Workload.Run.Ubatch)
	case flag == "":
		flag = "--" + fe.Field
	}
	return fmt.Errorf("%s: %w", flag, fe.Err)
}

// run predicts the request, with errors naming the flag, and a progress
// bar when it is long.
func (r *requestFlags) run(q predict.Request) (*predict.Prediction, error) {
	if r.progress != nil && q.Workload != nil && (q.Workload.Run.Ubatches() >= longUbatches || len(q.Engines) >= longEngines) && q.Progress == nil {
		set, finish := progress.Lazy(r.progress, fmt.Sprintf("predicting %d ubatches over %d engines", q.Workload.Run.Ubatches(), max(2, len(q.Engines))))
		q.Progress = set
		defer finish()
	}
	q.Placement = "" // the thread sweep's unpinned rows take it; the split's plans are pinned
	p, err := predict.Run(q)
	if err != nil {
		return nil, r.flagError(err, q)
	}
	return p, nil
}

// warn prints the prediction's warnings, one line each (for a preset, not
// what every profile shares: see predict.Prediction.Notable).
func warn(w io.Writer, p *predict.Prediction, socRef string) {
	for _, x := range p.Notable(slices.Contains(presets.SoCNames(), socRef)) {
		fmt.Fprintf(w, "warning: %s: %s\n", socRef, x)
	}
	fmt.Fprint(w, p.Span.Note())
}
