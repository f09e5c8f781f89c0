package cli

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
)

// Table says whether predict's flags ask for llama-bench's table
// (predict.RunBench) rather than one prediction: -t, a list or range of
// more than one value, or -n beside a prompt (llama-bench's pp and tg
// rows) without --test. A list flag whose value does not parse is left
// to Bench to name.
func (r *RequestFlags) Table() bool {
	if r.Given("threads") {
		return true
	}
	for _, f := range []string{"soc", "workload"} {
		if v, _ := r.Flags.GetString(f); strings.Contains(v, ",") {
			return true
		}
	}
	prompts := []int{1} // the workload's own prompt
	for _, f := range []string{"prompt", "gen", "ubatch", "poll"} {
		v, _ := r.Flags.GetString(f)
		if !r.Given(f) {
			continue
		}
		vals, err := IntList(f, v, math.MinInt32, math.MaxInt32)
		if err != nil || len(vals) > 1 {
			return true
		}
		if f == "prompt" {
			prompts = vals
		}
	}
	return r.Given("gen") && !r.Given("test") && prompts[0] != 0
}

// tableRefuses are the flags of one prediction that llama-bench's table
// does not take, with what it does instead.
var tableRefuses = map[string]string{
	"test":           "its tests are -p's and -n's, as llama-bench makes them (--test pg: one prediction)",
	"split":          "each row's split is the best token split for pp, expert split for tg",
	"frac":           "each row's split is the best one",
	"big-threads":    "the split's threads are --engine-threads",
	"little-threads": "the split's threads are --engine-threads",
	"busy":           "busy cores are for --threads-sweep",
}

// Bench reads predict's flags into llama-bench's table: every SoC,
// workload, -ub, -t, --poll and test (-p's pp and -n's tg, 128 when -n
// is not given, as llama-bench's default) a row. Errors name the flag.
func (r *RequestFlags) Bench() (predict.BenchRequest, error) {
	var q predict.BenchRequest
	for _, f := range []string{"test", "split", "frac", "big-threads", "little-threads", "busy"} {
		if r.Given(f) {
			return q, fmt.Errorf("--%s: predict's table (-t, lists, -n beside a prompt) does not take it: %s", f, tableRefuses[f])
		}
	}
	socs, err := StringList("soc", r.SoC)
	if err != nil {
		return q, err
	}
	for _, ref := range socs {
		s, err := presets.LoadSoC(ref)
		if err != nil {
			return q, fmt.Errorf("--soc: %w", err)
		}
		q.SoCs = append(q.SoCs, s)
	}
	wls, err := StringList("workload", r.Workload)
	if err != nil {
		return q, err
	}
	for _, ref := range wls {
		w, err := presets.LoadWorkload(ref)
		if err != nil {
			return q, fmt.Errorf("--workload: %w", err)
		}
		q.Workloads = append(q.Workloads, w)
	}
	lists := []struct {
		name, v string
		rng     model.IntRange
		into    *[]int
	}{
		{"prompt", r.Prompt, model.PromptRange, &q.Prompts},
		{"gen", r.Gen, model.GenRange, &q.Gens},
		{"ubatch", r.Ubatch, model.UbatchRange, &q.Ubatches},
		{"threads", r.Threads, model.IntRange{Min: 1, Max: model.MaxPoolThreads, What: "threads"}, &q.Threads},
		{"poll", r.Poll, model.IntRange{Min: 0, Max: 100, What: "a poll level"}, &q.Polls},
	}
	for _, l := range lists {
		if !r.Given(l.name) && l.name != "poll" {
			continue
		}
		vals, err := IntList(l.name, l.v, math.MinInt32, math.MaxInt32)
		if err != nil {
			return q, err
		}
		for _, v := range vals {
			if err := l.rng.Check(v); err != nil {
				return q, fmt.Errorf("--%s: %w", l.name, err)
			}
		}
		*l.into = vals
	}
	if r.Given("depth") {
		if err := model.DepthRange.Check(r.Depth); err != nil {
			return q, fmt.Errorf("--depth: %w", err)
		}
		q.Depth = r.Depth
	}
	q.Engines = predict.ParseEngines(r.Engines)
	if len(q.Engines) == 1 {
		return q, fmt.Errorf("--engines: %q names one engine; a split needs two or more", r.Engines)
	}
	if r.EngineThreads != "" {
		if q.EngineThreads, err = IntList("engine-threads", r.EngineThreads, 1, model.MaxPoolThreads); err != nil {
			return q, err
		}
	}
	if r.Draws < 0 || r.Draws > predict.MaxDraws {
		return q, fmt.Errorf("--draws: %d is outside 0..%d (0: first-order intervals, N: Monte Carlo over N draws)", r.Draws, predict.MaxDraws)
	}
	q.Draws = r.Draws
	if q.Placement, err = predict.ParseUnpinned(r.Placement); err != nil {
		return q, fmt.Errorf("--placement: %w", err)
	}
	return q, nil
}

// RunBench predicts the table, with errors naming the flag.
func (r *RequestFlags) RunBench(q predict.BenchRequest) (*predict.Bench, error) {
	b, err := predict.RunBench(q)
	var fe *predict.FieldError
	if errors.As(err, &fe) && (fe.Field == "run" || fe.Field == "test") {
		return nil, fmt.Errorf("--prompt, --gen, --ubatch: %w", fe.Err)
	}
	if err != nil {
		return nil, r.FlagError(err, predict.Request{})
	}
	return b, nil
}

// LlamaBenchArgs rewrites llama-bench's two-letter short flag -ub (and
// -ub=V) as --ubatch in the arguments of the commands that predict, which
// a flag library's one-letter short flags cannot name; other arguments
// and other commands are left as they are (a grid's --arg -ub=16,64 is
// the command's to pass on).
func LlamaBenchArgs(args []string) []string {
	if len(args) == 0 || (args[0] != "predict" && args[0] != "plot" && args[0] != "report") {
		return args
	}
	out := make([]string, len(args))
	for i, a := range args {
		switch {
		case a == "--":
			copy(out[i:], args[i:])
			return out
		case a == "-ub":
			a = "--ubatch"
		case strings.HasPrefix(a, "-ub="):
			a = "--ubatch=" + a[len("-ub="):]
		}
		out[i] = a
	}
	return out
}
