package runner

import (
	"strings"
	"testing"
)

func mustAxis(t *testing.T, parse func(string) (Axis, error), spec string) Axis {
	t.Helper()
	a, err := parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestDistinctBoardGrid: the README's board grid with the native runs its
// own warning asks for (ORK_MOE_BIGLITTLE=0,1): 88 points a round, of
// which the 44 native ones are 2 distinct runs (poll 0 and 50); the
// fraction and the split mode cannot change a native run.
func TestDistinctBoardGrid(t *testing.T) {
	g := Grid{Command: []string{"llama-bench", "-m", "model.gguf", "-p", "512", "-n", "0", "-o", "jsonl"},
		Env: []Axis{mustAxis(t, ParseEnvAxis, "ORK_MOE_BIGLITTLE=0,1"), mustAxis(t, ParseEnvAxis, "ORK_BL_LITTLE_FRAC=0.05:0.30:0.025"),
			mustAxis(t, ParseEnvAxis, "ORK_BL_POLL=0,50"), mustAxis(t, ParseEnvAxis, "ORK_BL_SPLIT=token,expert")},
		Args: []Axis{mustAxis(t, ParseArgAxis, "-t=4")}}
	cfg := Config{Grid: g, Mapping: DefaultMapping(), Rounds: 3}
	pts, collapsed := cfg.Distinct()
	if g.Size() != 88 || len(pts) != 46 {
		t.Fatalf("%d points, %d distinct; want 88 and 46", g.Size(), len(pts))
	}
	if collapsed["ORK_BL_LITTLE_FRAC"] != 42 || collapsed["ORK_BL_SPLIT"] != 42 || collapsed["ORK_BL_POLL"] != 0 {
		t.Errorf("collapsed by %v", collapsed)
	}
	native := 0
	for _, p := range pts {
		if p.Knobs["ORK_MOE_BIGLITTLE"] == "0" {
			native++
		}
	}
	if native != 2 {
		t.Errorf("%d native points, want 2 (poll 0 and 50)", native)
	}
	// The kept points are the grid's own: their IDs are those of Points.
	ids := map[string]bool{}
	for _, p := range g.Points() {
		ids[p.ID] = true
	}
	for _, p := range pts {
		if !ids[p.ID] {
			t.Errorf("point %s is not one of the grid's", p.ID)
		}
	}
	if h := cfg.Header("runs.jsonl"); !strings.Contains(h, ": 88 points, 46 distinct (42 collapse: ORK_BL_LITTLE_FRAC, ORK_BL_SPLIT cannot change them) x 3 rounds, in grid order = 138 runs over ") {
		t.Errorf("header: %s", h)
	}
}

// TestIdleKnobs: which knobs cannot change a point's run, by the
// mapping's meaning and by a fork's own declarations.
func TestIdleKnobs(t *testing.T) {
	fork := DefaultMapping()
	fork.Depends = map[string]Condition{"MY_CHUNK": {"ORK_BL_SPLIT": {"expert"}}, "--spin": {"-t": {"2", "4"}}}
	for _, tc := range []struct {
		name  string
		m     Mapping
		knobs map[string]string
		want  string
	}{
		{"split off", DefaultMapping(), map[string]string{"ORK_MOE_BIGLITTLE": "0", "ORK_BL_LITTLE_FRAC": "0.2", "ORK_BL_SPLIT": "token", "ORK_BL_LITTLE_THREADS": "4", "-t": "4"},
			"ORK_BL_LITTLE_FRAC ORK_BL_LITTLE_THREADS ORK_BL_SPLIT"},
		{"split on", DefaultMapping(), map[string]string{"ORK_MOE_BIGLITTLE": "1", "ORK_BL_LITTLE_FRAC": "0.2", "ORK_BL_SPLIT": "token", "-t": "4"}, ""},
		{"a native pool of one thread", DefaultMapping(), map[string]string{"ORK_MOE_BIGLITTLE": "0", "--poll": "0", "-t": "1"}, "--poll"},
		{"a split of one thread each", DefaultMapping(), map[string]string{"ORK_MOE_BIGLITTLE": "1", "ORK_BL_LITTLE_FRAC": "0.2", "ORK_BL_POLL": "0", "-t": "1", "ORK_BL_LITTLE_THREADS": "1"}, ""},
		{"one thread, but from the record", DefaultMapping(), map[string]string{"--poll": "0"}, ""},
		{"a fork's knobs on", fork, map[string]string{"ORK_MOE_BIGLITTLE": "1", "ORK_BL_LITTLE_FRAC": "0.2", "ORK_BL_SPLIT": "expert", "MY_CHUNK": "8", "-t": "4", "--spin": "1"}, ""},
		{"a fork's knobs idle", fork, map[string]string{"ORK_MOE_BIGLITTLE": "1", "ORK_BL_LITTLE_FRAC": "0.2", "ORK_BL_SPLIT": "TOKEN", "MY_CHUNK": "8", "-t": "8", "--spin": "1"}, "--spin MY_CHUNK"},
		{"its condition on a knob not set", fork, map[string]string{"--spin": "1"}, ""},
	} {
		got := strings.Join(tc.m.Idle(Point{Knobs: tc.knobs}), " ")
		if got != tc.want {
			t.Errorf("%s: idle %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestMappingDepends reads depends from a knob mapping file and refuses
// one that names no knob.
func TestMappingDepends(t *testing.T) {
	m, err := ParseMapping([]byte("enable: MY_SPLIT\nlittle_frac: MY_FRAC\ndepends:\n  MY_CHUNK: {MY_SPLIT: [1, on]}\n"), "k.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c := m.Depends["MY_CHUNK"]; len(c["MY_SPLIT"]) != 2 {
		t.Fatalf("depends = %v", m.Depends)
	}
	g := Grid{Command: []string{"b"}, Env: []Axis{{Name: "MY_SPLIT", Values: []string{"0", "on"}}, {Name: "MY_CHUNK", Values: []string{"4", "8"}},
		{Name: "MY_FRAC", Values: []string{"0.5"}}}, Args: []Axis{{Name: "-t", Values: []string{"2"}}}}
	pts, _ := Config{Grid: g, Mapping: m}.Distinct()
	if len(pts) != 3 {
		t.Errorf("%d distinct points, want 3: the chunk matters only with the split on", len(pts))
	}
	for _, bad := range []string{"depends:\n  MY_CHUNK: {}\n", "depends:\n  MY_CHUNK: {MY_CHUNK: [1]}\n", "depends:\n  MY_CHUNK: {MY_SPLIT: []}\n"} {
		if _, err := ParseMapping([]byte(bad), "k.yaml"); err == nil || !strings.Contains(err.Error(), "depends") {
			t.Errorf("%q: err %v", bad, err)
		}
	}
}

// TestDistinctInherited: a mapped variable this process exports reaches
// every run, so it decides what collapses too.
func TestDistinctInherited(t *testing.T) {
	g := Grid{Command: []string{"b"}, Env: []Axis{{Name: "ORK_BL_LITTLE_FRAC", Values: []string{"0.1", "0.2"}}}, Args: []Axis{{Name: "-t", Values: []string{"2"}}}}
	t.Setenv("ORK_MOE_BIGLITTLE", "0")
	if pts, _ := (Config{Grid: g}).Distinct(); len(pts) != 1 {
		t.Errorf("split off in the environment: %d points, want 1", len(pts))
	}
	t.Setenv("ORK_MOE_BIGLITTLE", "1")
	if pts, _ := (Config{Grid: g}).Distinct(); len(pts) != 2 {
		t.Errorf("split on in the environment: %d points, want 2", len(pts))
	}
}
