package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/blsim/blsim/internal/progress"
	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
	"github.com/spf13/pflag"
)

// RequestFlags are the flags that say what to predict, the same in every
// command that predicts (predict, plot, report): they become one
// predict.Request, or, in predict, llama-bench's table of several
// (predict.BenchRequest: see Table).
type RequestFlags struct {
	SoC           string
	Workload      string
	Engines       string
	EngineThreads string // the split's threads per engine ("4,4")
	Threads       string // llama-bench's -t: one pool's total threads, a list
	BigThreads    int
	LittleThreads int
	Split         string
	Frac          string
	Poll          string // a list, as llama-bench's --poll
	Prompt        string // -p, a list
	Ubatch        string // -ub, a list
	Gen           string // -n, a list
	Test          string
	Depth         int
	Draws         int
	Busy          string
	Placement     string
	// Command names the command in an error about a list it cannot take
	// ("plot"); "" is predict.
	Command string
	// Flags is the command's flag set: what was given, and what not.
	Flags  *pflag.FlagSet
	OwnRun model.Run // the workload's own, which a measurement that records none ran
	// MeasuredWL is the workload the --measurements ran
	// (ReadMeasurements), predicted unless --workload is given.
	MeasuredWL *model.Workload
	// Progress, when set, gets a progress bar for a long prediction.
	Progress io.Writer
}

// longUbatches is the ubatch count, and longEngines the engine count,
// from which a prediction shows its progress: each step then simulates
// that many ubatches hundreds of times (about 20 ms per ubatch-step on a
// 2-vCPU machine), or searches a split over that many engines (seconds
// to a minute a step; docs/guarantees.md).
const longUbatches, longEngines = 64, 4

// Register adds the flags to f with the same names, meanings and defaults
// in every command. -p, -n and -t are llama-bench's short flags; -ub is
// read as --ubatch (LlamaBenchArgs), since a flag library's short flags
// are one letter.
func (r *RequestFlags) Register(f *pflag.FlagSet) {
	r.Flags = f
	f.StringVar(&r.SoC, "soc", "rk3588", "SoC profile: a preset name or a YAML file (predict: a comma list, a row each)")
	f.StringVar(&r.Workload, "workload", "qwen3.5-35b-a3b", "workload: a preset name, a YAML file or a GGUF model file (predict: a comma list, a row each)")
	f.StringVar(&r.Engines, "engines", "", "engines of the split, main first, comma-separated (default: the SoC's first two)")
	f.StringVar(&r.EngineThreads, "engine-threads", "", "the split's threads per engine, comma-separated, main first (default: min(4, its cores) each)")
	f.StringVarP(&r.Threads, "threads", "t", "", "llama-bench's -t: one llama.cpp pool's total threads, placed as the OS places -t N without --cpu-mask\n(--placement); a list or range (4,8 or 1-8) is a run each; gives predict's table (the split's own: --engine-threads)")
	f.IntVar(&r.BigThreads, "big-threads", 4, "threads of the first (big) engine (when not given: min(4, its cores))")
	f.IntVar(&r.LittleThreads, "little-threads", 4, "threads of each engine after the first (when not given: min(4, its cores))")
	f.StringVar(&r.Split, "split", "both", "how to split the expert ops: token, expert or both")
	f.StringVar(&r.Frac, "frac", "0.12", "the requested split: the second engine's share in [0,1], with more engines one share per engine\nafter the first (\"0.1,0.3\"), or auto (only the best; the default with more than two engines)")
	f.StringVar(&r.Poll, "poll", "50", "spin level of the pools, 0..100 (ggml --poll); predict: a list (0,50) is a run each")
	f.StringVarP(&r.Prompt, "prompt", "p", "", "prompt tokens (llama-bench -p; default: the workload's, 512); predict: a list or range (128,512), a pp test each")
	f.StringVar(&r.Ubatch, "ubatch", "", "ubatch size (llama-bench -ub, which blsim takes too; default: the workload's, 512); predict: a list, a run each")
	f.StringVarP(&r.Gen, "gen", "n", "", "tokens generated (llama-bench -n): beside a prompt a tg test each, as llama-bench makes them\n(predict's table); with --prompt 0 one tg test; --test pg runs a prompt and then the tokens")
	f.StringVar(&r.Test, "test", "pp", "llama-bench test: pp (the prompt), tg (--gen tokens, default 128, no prompt) or pg (both, as -pg)")
	f.IntVar(&r.Depth, "depth", 0, "KV-cache depth before the test (llama-bench -d; default: the workload's, 0)")
	f.IntVar(&r.Draws, "draws", 0, "the 90% intervals: 0 is first-order (each uncertain parameter at ±σ, two runs each; it ignores\nhow parameters interact), N > 0 is Monte Carlo over N random draws")
	f.StringVar(&r.Placement, "placement", "", "the OS policy that places -t N without a mask (a thread sweep's unpinned rows, predict's -t):\nlinux, android, macos or windows (default linux; docs/threads.md)")
	f.StringVar(&r.Busy, "busy", "", "for a thread sweep: cores of each cluster busy with another task, which its pools share (big=1,little=2)")
}

// Given says whether the flag name was given on the command line.
func (r *RequestFlags) Given(name string) bool { return r.Flags != nil && r.Flags.Changed(name) }

// one reads a list flag that must hold one value here; def when not given.
func (r *RequestFlags) one(name, v string, def int) (int, error) {
	if !r.Given(name) && v == "" {
		return def, nil
	}
	vals, err := IntList(name, v, math.MinInt32, math.MaxInt32)
	if err != nil {
		return 0, err
	}
	if len(vals) != 1 {
		cmd := cmp.Or(r.Command, "predict --threads-sweep")
		return 0, fmt.Errorf("--%s: %q is %d values: %s takes one (blsim predict makes a table of a list, a row each)", name, v, len(vals), cmd)
	}
	return vals[0], nil
}

// Request reads the flags into one predict.Request, loading the SoC and
// workload. Errors name the flag; a list of more than one value is one.
func (r *RequestFlags) Request() (predict.Request, error) {
	var q predict.Request
	var err error
	if r.Given("threads") {
		return q, fmt.Errorf("--threads: llama-bench's -t (one pool's total threads) makes blsim predict's table; %s takes the split's threads per engine as --engine-threads", cmp.Or(r.Command, "predict --threads-sweep"))
	}
	for _, f := range []string{"soc", "workload"} {
		if v, _ := r.Flags.GetString(f); strings.Contains(v, ",") {
			return q, fmt.Errorf("--%s: %q is a list: %s takes one (blsim predict makes a table of a list, a row each)", f, v, cmp.Or(r.Command, "predict --threads-sweep"))
		}
	}
	if q.SoC, err = presets.LoadSoC(r.SoC); err != nil {
		return q, fmt.Errorf("--soc: %w", err)
	}
	if r.MeasuredWL != nil && !r.Given("workload") {
		w := *r.MeasuredWL
		q.Workload = &w
	} else if q.Workload, err = presets.LoadWorkload(r.Workload); err != nil {
		return q, fmt.Errorf("--workload: %w", err)
	}
	r.OwnRun = q.Workload.Run
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
	if r.EngineThreads != "" {
		if r.Given("big-threads") || r.Given("little-threads") {
			return q, errors.New("--engine-threads: give it or --big-threads and --little-threads, not both")
		}
		if q.Threads, err = predict.ParseThreads(r.EngineThreads, n); err != nil {
			return q, fmt.Errorf("--engine-threads: %w", err)
		}
	} else if r.Given("big-threads") || r.Given("little-threads") {
		if q.Threads, err = r.clusterThreads(n); err != nil {
			return q, err
		}
	}
	frac := r.Frac
	if !r.Given("frac") && n > 2 {
		frac = "auto"
	}
	if frac != "auto" && n >= 2 { // one engine: no split to share (predict says so)
		if q.Fracs, err = predict.ParseShares(frac, n); err != nil {
			return q, fmt.Errorf("--frac: %w", err)
		}
	}
	if q.Poll, err = r.one("poll", r.Poll, 50); err != nil {
		return q, err
	}
	prompt, err := r.one("prompt", r.Prompt, 0)
	if err != nil {
		return q, err
	}
	gen, err := r.one("gen", r.Gen, 0)
	if err != nil {
		return q, err
	}
	ubatch, err := r.one("ubatch", r.Ubatch, 0)
	if err != nil {
		return q, err
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"prompt", prompt}, {"ubatch", ubatch}} {
		if r.Given(c.name) && c.v < 1 && !(c.name == "prompt" && c.v == 0 && (gen > 0 || r.Given("test"))) {
			return q, fmt.Errorf("--%s: %d: want at least 1 (0 only with --gen; leave the flag out for the workload's own)", c.name, c.v)
		}
	}
	for _, c := range []struct { // the ranges a workload file is held to
		flag string
		v    int
		r    model.IntRange
	}{{"prompt", prompt, model.PromptRange}, {"ubatch", ubatch, model.UbatchRange}, {"gen", gen, model.GenRange}, {"depth", r.Depth, model.DepthRange}} {
		if err := c.r.Check(c.v); err != nil && r.Given(c.flag) {
			return q, fmt.Errorf("--%s: %w", c.flag, err)
		}
	}
	if r.Given("test") {
		if err := predict.ApplyTest(&q.Workload.Run, r.Test, prompt, gen); err != nil {
			return q, fmt.Errorf("--test: %w", err)
		}
	} else if prompt > 0 || r.Given("prompt") {
		q.Workload.Run.PromptTokens = prompt
	}
	if r.Given("gen") && !r.Given("test") {
		q.Workload.Run.GenTokens = gen
	}
	if r.Given("depth") {
		q.Workload.Run.Depth = r.Depth
	}
	if ubatch > 0 {
		q.Workload.Run.Ubatch = ubatch
	}
	if r.Draws < 0 || r.Draws > predict.MaxDraws {
		return q, fmt.Errorf("--draws: %d is outside 0..%d (0: first-order intervals, N: Monte Carlo over N draws)", r.Draws, predict.MaxDraws)
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
func (r *RequestFlags) threadFlag(i int) string {
	switch {
	case r.EngineThreads != "":
		return "--engine-threads"
	case i == 0 && r.Given("big-threads"):
		return "--big-threads"
	case i > 0 && r.Given("little-threads"):
		return "--little-threads"
	}
	return "--engine-threads"
}

// clusterThreads is --big-threads and --little-threads, the two-cluster
// form of --engine-threads, as n engines' threads: the first engine's and
// each later one's, 0 (the engine's default) where the flag is not given.
func (r *RequestFlags) clusterThreads(n int) ([]int, error) {
	out := make([]int, n)
	for i := range out {
		flag, v := "little-threads", r.LittleThreads
		if i == 0 {
			flag, v = "big-threads", r.BigThreads
		}
		if !r.Given(flag) {
			continue
		}
		if v < 1 {
			return nil, fmt.Errorf("--%s: %d threads: want at least 1", flag, v)
		}
		out[i] = v
	}
	return out, nil
}

// FlagError names the flag behind a predict.FieldError.
func (r *RequestFlags) FlagError(err error, q predict.Request) error {
	var fe *predict.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	flag := map[string]string{"fracs": "--frac", "modes": "--split", "test": "--test, --prompt, --gen"}[fe.Field]
	switch {
	case fe.Field == "engines" && r.Engines == "":
		flag = "--soc"
	case fe.Field == "threads" || fe.Field == "engine-threads":
		flag = r.threadFlag(fe.Index)
	case fe.Field == "run" && q.Workload != nil:
		flag = fmt.Sprintf("--prompt %d --ubatch %d", q.Workload.Run.PromptTokens, q.Workload.Run.Ubatch)
	case flag == "":
		flag = "--" + fe.Field
	}
	return fmt.Errorf("%s: %w", flag, fe.Err)
}

// Run predicts the request, with errors naming the flag, and a progress
// bar when it is long.
func (r *RequestFlags) Run(q predict.Request) (*predict.Prediction, error) {
	if r.Progress != nil && q.Workload != nil && (q.Workload.Run.Ubatches() >= longUbatches || len(q.Engines) >= longEngines) && q.Progress == nil {
		set, finish := progress.Lazy(r.Progress, fmt.Sprintf("predicting %d ubatches over %d engines", q.Workload.Run.Ubatches(), max(2, len(q.Engines))))
		q.Progress = set
		defer finish()
	}
	q.Placement = "" // the thread sweep's unpinned rows take it; the split's plans are pinned
	p, err := predict.Run(q)
	if err != nil {
		return nil, r.FlagError(err, q)
	}
	return p, nil
}

// Warn prints the prediction's warnings, one line each (for a preset or
// an unchanged copy of one, not what every profile shares: see
// predict.Prediction.Notable and presets.SoCPreset).
func Warn(w io.Writer, p *predict.Prediction, socRef string) {
	for _, x := range p.Notable(presets.SoCPreset(socRef) != "") {
		fmt.Fprintf(w, "warning: %s: %s\n", socRef, x)
	}
	fmt.Fprint(w, p.Span.Note())
}
