package runner

import (
	"reflect"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/llamabench"
	"github.com/blsim/blsim/measure"
	"github.com/blsim/blsim/model"
)

func TestMismatch(t *testing.T) {
	split := model.Plan{Mode: "token", Engines: []string{"big", "little"}, Fracs: []float64{0.7, 0.3}, Threads: []int{4, 4}, Poll: 50}
	native := model.Plan{Mode: "native", Engines: []string{"big"}, Fracs: []float64{1}, Threads: []int{4}, Poll: 50}
	total := DefaultMapping()
	total.NThreads = ThreadsTotal
	big := DefaultMapping()
	big.NThreads = ThreadsBig
	ignore := DefaultMapping()
	ignore.NThreads = ThreadsIgnore
	for _, tc := range []struct {
		name string
		m    Mapping
		p    Point
		rec  llamabench.Record
		plan model.Plan
		want string // "" matches; else a part of the reason
	}{
		{"stock count", DefaultMapping(), knobs(), llamabench.Record{NThreads: 4}, native, ""},
		{"auto takes a fork's sum", DefaultMapping(), knobs(), llamabench.Record{NThreads: 8}, split, ""},
		{"auto takes the big count", DefaultMapping(), knobs(), llamabench.Record{NThreads: 4}, split, ""},
		{"auto: neither", DefaultMapping(), knobs(), llamabench.Record{NThreads: 6}, split, "n_threads 6, but the knobs imply 4"},
		{"big, told", big, knobs(), llamabench.Record{NThreads: 8}, split, `say "n_threads: total"`},
		{"total, told", total, knobs(), llamabench.Record{NThreads: 4}, split, `say "n_threads: big"`},
		{"total matches", total, knobs(), llamabench.Record{NThreads: 8}, split, ""},
		{"ignored", ignore, knobs(), llamabench.Record{NThreads: 99}, split, ""},
		{"no count printed", big, knobs(), llamabench.Record{}, split, ""},
		{"another prompt", DefaultMapping(), knobs("-p", "512"), llamabench.Record{NThreads: 4, NPrompt: 64}, native, "pp64, but -p=512"},
		{"-p with its tg record", DefaultMapping(), knobs("-p", "512"), llamabench.Record{NThreads: 4, NGen: 32}, native, ""},
		{"another tg", DefaultMapping(), knobs("-n", "32"), llamabench.Record{NThreads: 4, NGen: 128}, native, "tg128, but -n=32"},
		{"-n with its pp record", DefaultMapping(), knobs("-n", "32"), llamabench.Record{NThreads: 4, NPrompt: 512}, native, ""},
		{"the pp+tg asked", DefaultMapping(), knobs("-pg", "64,32"), llamabench.Record{NThreads: 4, NPrompt: 64, NGen: 32}, native, ""},
		{"another pp+tg", DefaultMapping(), knobs("-pg", "64,32"), llamabench.Record{NThreads: 4, NPrompt: 512, NGen: 32}, native, "pp512+tg32, but -pg=64,32"},
		{"another ubatch", DefaultMapping(), knobs("-ub", "64"), llamabench.Record{NThreads: 4, NPrompt: 64, NUbatch: 512}, native, "ubatch is 512, but -ub=64"},
		{"another model", DefaultMapping(), knobs("-m", "/m/a.gguf"), llamabench.Record{NThreads: 4, ModelFilename: "/x/b.gguf"}, native, "model is /x/b.gguf"},
		{"the same model elsewhere", DefaultMapping(), knobs("-m", "/m/a.gguf"), llamabench.Record{NThreads: 4, ModelFilename: "a.gguf"}, native, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.m.Mismatch(tc.p, tc.rec, tc.plan)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("Mismatch = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestThreadsTotalPlan(t *testing.T) {
	m := DefaultMapping()
	m.NThreads = ThreadsTotal
	p := knobs("ORK_MOE_BIGLITTLE", "1", "ORK_BL_LITTLE_FRAC", "0.25", "ORK_BL_LITTLE_THREADS", "2")
	plan, err := m.Plan(p, llamabench.Record{NThreads: 6})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plan.Threads, []int{4, 2}) {
		t.Errorf("threads %v, want big 6-2=4 and little 2", plan.Threads)
	}
	if _, err := ParseMapping([]byte("n_threads: both\n"), "k.yaml"); err == nil || !strings.Contains(err.Error(), `"both"`) {
		t.Errorf("n_threads: both: %v", err)
	}
}

func TestGaps(t *testing.T) {
	axis := func(name string, vals ...string) Axis { return Axis{Name: name, Values: vals} }
	for _, tc := range []struct {
		name string
		cmd  []string
		env  []Axis
		args []Axis
		want []string // parts of the gap lines, in order; nil: none
	}{
		{"complete", []string{"llama-bench", "-p", "512"},
			[]Axis{axis("ORK_MOE_BIGLITTLE", "0", "1"), axis("ORK_BL_LITTLE_FRAC", "0.1", "0.3"), axis("ORK_BL_SPLIT", "token", "expert")},
			[]Axis{axis("-ub", "64", "512")}, nil},
		{"split only", []string{"llama-bench", "-p", "512", "-ub", "64,512"},
			[]Axis{axis("ORK_MOE_BIGLITTLE", "1"), axis("ORK_BL_LITTLE_FRAC", "0.1", "0.3"), axis("ORK_BL_SPLIT", "token", "expert")}, nil,
			[]string{"no native run", "--env ORK_MOE_BIGLITTLE=0,1"}},
		{"one intensity", []string{"llama-bench"},
			[]Axis{axis("ORK_MOE_BIGLITTLE", "0", "1"), axis("ORK_BL_LITTLE_FRAC", "0.2"), axis("ORK_BL_SPLIT", "token", "expert")}, nil,
			[]string{"one arithmetic intensity (ubatch 512)", "--arg -ub=128,512"}},
		{"prompt caps the ubatch", []string{"llama-bench", "-p", "64"},
			[]Axis{axis("ORK_MOE_BIGLITTLE", "0")}, []Axis{axis("-ub", "64", "512")},
			[]string{"one arithmetic intensity (ubatch 64)"}},
		{"one split mode", []string{"llama-bench", "-ub", "16,64"},
			[]Axis{axis("ORK_MOE_BIGLITTLE", "0", "1"), axis("ORK_BL_LITTLE_FRAC", "0.2")}, nil,
			[]string{"splits only by token", "--env ORK_BL_SPLIT=token,expert"}},
		{"stock llama.cpp, one cluster", []string{"llama-bench"}, nil,
			[]Axis{axis("-t", "1", "2"), axis("-ub", "16", "64")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Config{Grid: Grid{Command: tc.cmd, Env: tc.env, Args: tc.args}, Mapping: DefaultMapping()}
			got := strings.Join(c.Gaps(), "\n")
			if tc.want == nil && got != "" {
				t.Errorf("gaps:\n%s\nwant none", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("gaps:\n%s\nwant %q", got, w)
				}
			}
		})
	}
}

func TestPointRuns(t *testing.T) {
	for _, tc := range []struct {
		cmd  []string
		p    Point
		want []measure.Run
	}{
		{[]string{"llama-bench", "-p", "256"}, knobs("-ub", "64"), []measure.Run{{PromptTokens: 256, Ubatch: 64}}},
		{[]string{"llama-bench", "-p", "256"}, knobs(), []measure.Run{{PromptTokens: 256, Ubatch: 256}}}, // 512, capped by the prompt
		{[]string{"llama-bench", "-p", "64,256"}, knobs("-ub", "64"), []measure.Run{{PromptTokens: 64, Ubatch: 64}, {PromptTokens: 256, Ubatch: 64}}},
		{[]string{"llama-bench", "-p", "0", "-n", "32"}, knobs(), []measure.Run{{Ubatch: 512, GenTokens: 32}}},
		{[]string{"llama-bench", "-p", "64", "-n", "32", "-pg", "64,32"}, knobs("-ub", "16"),
			[]measure.Run{{PromptTokens: 64, Ubatch: 16}, {Ubatch: 16, GenTokens: 32}, {PromptTokens: 64, Ubatch: 16, GenTokens: 32}}},
		{[]string{"llama-bench", "-p", "64"}, knobs("-n", "8,16"), []measure.Run{{PromptTokens: 64, Ubatch: 64}, {Ubatch: 512, GenTokens: 8}, {Ubatch: 512, GenTokens: 16}}},
		{[]string{"llama-bench", "-pg=128,16"}, knobs(), []measure.Run{{PromptTokens: 128, Ubatch: 128, GenTokens: 16}}},
		{[]string{"my-fork"}, knobs(), nil}, // its tests are not known
	} {
		c := Config{Grid: Grid{Command: tc.cmd}}
		if got := c.PointRuns(tc.p); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v %v: PointRuns = %+v, want %+v", tc.cmd, tc.p.Knobs, got, tc.want)
		}
	}
}
