package runner

import (
	"reflect"
	"strings"
	"testing"

	"github.com/blsim/blsim/calibrate/llamabench"
	"github.com/blsim/blsim/model"
)

func knobs(kv ...string) Point {
	p := Point{Knobs: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Knobs[kv[i]] = kv[i+1]
	}
	return p
}

func TestDefaultMappingPlan(t *testing.T) {
	rec := llamabench.Record{NThreads: 8, Poll: 20, Fields: map[string]string{"n_threads": "8", "poll": "20"}}
	noPoll := llamabench.Record{NThreads: 4, Fields: map[string]string{"n_threads": "4"}}
	native := func(threads, poll int) model.Plan {
		return model.Plan{Mode: "native", Engines: []string{"big"}, Fracs: []float64{1}, Threads: []int{threads}, Poll: poll}
	}
	split := func(mode string, f float64, big, little, poll int) model.Plan {
		return model.Plan{Mode: model.Mode(mode), Engines: []string{"big", "little"}, Fracs: []float64{roundFrac(1 - f), f},
			Threads: []int{big, little}, Poll: poll}
	}
	for _, tc := range []struct {
		name string
		p    Point
		rec  llamabench.Record
		want model.Plan
		msg  string
	}{
		{"no knobs: native, from the record", knobs(), rec, native(8, 20), ""},
		{"no poll anywhere: ggml's 50", knobs(), noPoll, native(4, 50), ""},
		{"the seed's split", knobs("ORK_MOE_BIGLITTLE", "1", "ORK_BL_LITTLE_FRAC", "0.3", "ORK_BL_POLL", "0", "ORK_BL_SPLIT", "expert", "-t", "4"),
			rec, split("expert", 0.3, 4, 4, 0), ""},
		{"token by default, little threads 4, poll from --poll", knobs("ORK_MOE_BIGLITTLE", "true", "ORK_BL_LITTLE_FRAC", "0.12", "--poll", "100"),
			rec, split("token", 0.12, 8, 4, 100), ""},
		{"ORK_BL_POLL wins over --poll", knobs("ORK_MOE_BIGLITTLE", "1", "ORK_BL_LITTLE_FRAC", "0.1", "ORK_BL_POLL", "0", "--poll", "50"),
			rec, split("token", 0.1, 8, 4, 0), ""},
		{"explicit thread counts", knobs("ORK_MOE_BIGLITTLE", "1", "ORK_BL_LITTLE_FRAC", "0.25", "ORK_BL_BIG_THREADS", "3", "ORK_BL_LITTLE_THREADS", "2", "-t", "7"),
			rec, split("token", 0.25, 3, 2, 20), ""},
		{"fraction 0 is native", knobs("ORK_MOE_BIGLITTLE", "1", "ORK_BL_LITTLE_FRAC", "0"), rec, native(8, 20), ""},
		{"switched off", knobs("ORK_MOE_BIGLITTLE", "0", "ORK_BL_LITTLE_FRAC", "0.2", "ORK_BL_SPLIT", "expert"), rec, native(8, 20), ""},
		{"a bad knob is an error even when off", knobs("ORK_MOE_BIGLITTLE", "0", "ORK_BL_SPLIT", "bogus"), rec, model.Plan{}, `ORK_BL_SPLIT="bogus" is not a split mode the mapping knows (expert, experts, token, tokens)`},
		{"neither on nor off", knobs("ORK_MOE_BIGLITTLE", "2", "ORK_BL_LITTLE_FRAC", "0.2"), rec, model.Plan{}, `ORK_MOE_BIGLITTLE="2" is neither on (1, true, on, yes) nor off (0, false, off, no)`},
		{"poll out of range", knobs("ORK_BL_POLL", "101"), rec, model.Plan{}, `ORK_BL_POLL="101" is not a poll level 0..100`},
		{"no switch", knobs("ORK_BL_LITTLE_FRAC", "0.2"), rec, native(8, 20), ""},
		{"experts is expert", knobs("ORK_MOE_BIGLITTLE", "1", "ORK_BL_LITTLE_FRAC", "1", "ORK_BL_SPLIT", "Experts"), rec, split("expert", 1, 8, 4, 20), ""},
		{"no fraction", knobs("ORK_MOE_BIGLITTLE", "1"), rec, model.Plan{}, "ORK_BL_LITTLE_FRAC is not set"},
		{"bad fraction", knobs("ORK_MOE_BIGLITTLE", "1", "ORK_BL_LITTLE_FRAC", "abc"), rec, model.Plan{}, "not a fraction"},
		{"fraction above 1", knobs("ORK_MOE_BIGLITTLE", "1", "ORK_BL_LITTLE_FRAC", "1.5"), rec, model.Plan{}, "not a fraction"},
		{"unknown split", knobs("ORK_MOE_BIGLITTLE", "1", "ORK_BL_LITTLE_FRAC", "0.2", "ORK_BL_SPLIT", "layer"), rec, model.Plan{}, `"layer"`},
		{"bad poll", knobs("ORK_BL_POLL", "101"), rec, model.Plan{}, "poll level"},
		{"thread list", knobs("-t", "4,8"), rec, model.Plan{}, "thread count"},
		{"threads unknown", knobs(), llamabench.Record{}, model.Plan{}, "ORK_BL_BIG_THREADS or -t or --threads is not set"},
	} {
		got, err := DefaultMapping().Plan(tc.p, tc.rec)
		if tc.msg != "" {
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%s: %+v, %v; want an error with %q", tc.name, got, err, tc.msg)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
	p, _ := DefaultMapping().Plan(knobs("ORK_MOE_BIGLITTLE", "1", "ORK_BL_LITTLE_FRAC", "0.3", "-t", "4"), rec)
	if p.Fracs[0] != 0.7 {
		t.Errorf("1-0.3 = %v, want 0.7", p.Fracs[0])
	}
	if got := DefaultMapping().EnvNames(); !reflect.DeepEqual(got, []string{"ORK_MOE_BIGLITTLE", "ORK_BL_LITTLE_FRAC", "ORK_BL_POLL", "ORK_BL_SPLIT", "ORK_BL_LITTLE_THREADS", "ORK_BL_BIG_THREADS"}) {
		t.Errorf("env names %q", got)
	}
}

func TestParseMapping(t *testing.T) {
	const fork = `
# another fork's knobs
little_frac: [GGML_HYBRID_FRAC]
poll: --poll
split: GGML_HYBRID_MODE
split_values: {rows: token, experts: expert}
little_threads: GGML_HYBRID_EFFICIENCY_THREADS
big_threads: -t
engines: {big: perf, little: eff}
`
	m, err := ParseMapping([]byte(fork), "fork.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rec := llamabench.Record{NThreads: 6, Fields: map[string]string{"n_threads": "6"}}
	got, err := m.Plan(knobs("GGML_HYBRID_FRAC", "0.2", "GGML_HYBRID_MODE", "rows", "GGML_HYBRID_EFFICIENCY_THREADS", "2"), rec)
	want := model.Plan{Mode: "token", Engines: []string{"perf", "eff"}, Fracs: []float64{0.8, 0.2}, Threads: []int{6, 2}, Poll: 50}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("fork plan %+v, %v; want %+v", got, err, want)
	}
	// No enable knob: a fraction of 0 is native; the seed's names mean nothing.
	got, err = m.Plan(knobs("GGML_HYBRID_FRAC", "0", "ORK_MOE_BIGLITTLE", "1", "ORK_BL_LITTLE_FRAC", "0.5"), rec)
	if err != nil || got.Mode != "native" || got.Engines[0] != "perf" {
		t.Errorf("fraction 0: %+v, %v", got, err)
	}
	// Unset little threads and no default: an error naming the knob.
	if _, err := m.Plan(knobs("GGML_HYBRID_FRAC", "0.2"), rec); err == nil || !strings.Contains(err.Error(), "GGML_HYBRID_EFFICIENCY_THREADS") {
		t.Errorf("little threads unset: %v", err)
	}
	// Defaults fill in, enable values default.
	m, err = ParseMapping([]byte("enable: HY\nlittle_frac: F\nlittle_threads: LT\ndefaults: {LT: 3}\n"), "m")
	if err != nil {
		t.Fatal(err)
	}
	got, err = m.Plan(knobs("HY", "ON", "F", "0.5"), rec)
	if err != nil || got.Mode != "token" || !reflect.DeepEqual(got.Threads, []int{6, 3}) || got.Engines[1] != "little" {
		t.Errorf("defaults: %+v, %v", got, err)
	}

	for _, tc := range []struct{ src, msg string }{
		{"", "empty"},
		{"little_fraction: X\n", "little_fraction"},
		{"engines: {big: a, little: a}\n", "two different"},
		{"engines: {big: a, medium: b}\n", "medium"},
		{"split_values: {rows: layer}\n", `knobs m.yaml: line 1: split_values.rows: "layer" is not a split mode (known: token, expert)`},
		{"split_values:\n  rows: token\n  cols: native\n", `knobs m.yaml: line 3: split_values.cols: "native" is not a split mode (known: token, expert)`},
		{"split_values: [token]\n", "line 1: split_values: want a mapping of the knob's words to token or expert"},
		{"poll: {a: b}\n", "knob name"},
		{"poll: ['']\n", "empty knob name"},
		{"enable: X\nenable_values: []\n", "enable_values"},
		// n_threads is checked where it is parsed: its line, the field, the known names.
		{"poll: P\nn_threads: both\n", `knobs m.yaml: line 2: n_threads: "both" is not a thread count (known: big, total, ignore, or empty for auto)`},
		{"n_threads: [big]\n", `knobs m.yaml: line 1: n_threads: want one word (known: big, total, ignore, or empty for auto)`},
		{"n_threads: Total\n", `knobs m.yaml: line 1: n_threads: "Total" is not a thread count`},
	} {
		if _, err := ParseMapping([]byte(tc.src), "m.yaml"); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseMapping(%q) = %v, want an error with %q", tc.src, err, tc.msg)
		}
	}
}

// TestThreadCountParsed: every n_threads a file may name reads back as its
// constant, empty or left out is auto, and a mapping built in code with an
// unknown count is still refused by Validate.
func TestThreadCountParsed(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want ThreadCount
	}{
		{"poll: P\n", ThreadsAuto},
		{"n_threads: ''\n", ThreadsAuto},
		{"n_threads: big\n", ThreadsBig},
		{"n_threads: total\n", ThreadsTotal},
		{"n_threads: ignore\n", ThreadsIgnore},
	} {
		m, err := ParseMapping([]byte(tc.src), "k.yaml")
		if err != nil || m.NThreads != tc.want {
			t.Errorf("%q: n_threads %q, %v; want %q", tc.src, m.NThreads, err, tc.want)
		}
	}
	m := DefaultMapping()
	m.NThreads = "both"
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), `n_threads: "both" is not a thread count (known: big, total, ignore`) {
		t.Errorf("Validate of n_threads both: %v", err)
	}
}
