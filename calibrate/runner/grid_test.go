package runner

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"0.05:0.30:0.05", []string{"0.05", "0.1", "0.15", "0.2", "0.25", "0.3"}},
		{"0,50", []string{"0", "50"}},
		{"4", []string{"4"}},
		{" token , expert ", []string{"token", "expert"}},
		{"0:1:0.3", []string{"0", "0.3", "0.6", "0.9"}},
		{"1:3:1", []string{"1", "2", "3"}},
		{"-1:1:0.5", []string{"-1", "-0.5", "0", "0.5", "1"}},
		{"0.1:0.1:1", []string{"0.1"}},
		{"0:0.001:0.0005", []string{"0", "0.0005", "0.001"}},
		{"10:30:10", []string{"10", "20", "30"}},
		{"+.5:1.:.25", []string{"0.5", "0.75", "1"}},
		{"$(rm -rf x)", []string{"$(rm -rf x)"}},
	} {
		got, err := ParseValues(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseValues(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "a,,b", "0,0", "1:0:1", "0:1:0", "0:1:-1", "0:1", "0:1:1:1", "a:b:c",
		"1e-3:1:1", "0:100000:1", "0:1:0.0000000000000001", "1.2.3:4:1"} {
		if got, err := ParseValues(in); err == nil {
			t.Errorf("ParseValues(%q) = %q, want an error", in, got)
		}
	}
	// Decimal arithmetic: a hundred steps of 0.01 print as written.
	vals, err := ParseValues("0:1:0.01")
	if err != nil || len(vals) != 101 {
		t.Fatalf("0:1:0.01: %d values, %v", len(vals), err)
	}
	for k, v := range vals {
		if want := strconv.FormatFloat(float64(k)/100, 'f', -1, 64); v != want {
			t.Errorf("value %d = %q, want %q", k, v, want)
		}
	}
}

func TestParseAxes(t *testing.T) {
	for _, tc := range []struct {
		spec string
		arg  bool
		want Axis
	}{
		{"ORK_BL_POLL=0,50", false, Axis{"ORK_BL_POLL", []string{"0", "50"}}},
		{"ORK_BL_LITTLE_FRAC=0.05:0.15:0.05", false, Axis{"ORK_BL_LITTLE_FRAC", []string{"0.05", "0.1", "0.15"}}},
		{"X=a=b", false, Axis{"X", []string{"a=b"}}},
		{"-t=4", true, Axis{"-t", []string{"4"}}},
		{"--poll=0,50", true, Axis{"--poll", []string{"0", "50"}}},
	} {
		parse := ParseEnvAxis
		if tc.arg {
			parse = ParseArgAxis
		}
		got, err := parse(tc.spec)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parse %q = %+v, %v; want %+v", tc.spec, got, err, tc.want)
		}
	}
	for _, spec := range []string{"NOEQUALS", "1BAD=1", "=4", "A-B=1", "X=", "X=1,1"} {
		if _, err := ParseEnvAxis(spec); err == nil {
			t.Errorf("ParseEnvAxis(%q): want an error", spec)
		}
	}
	for _, spec := range []string{"t=4", "-=4", "-t", "--a b=1"} {
		if _, err := ParseArgAxis(spec); err == nil {
			t.Errorf("ParseArgAxis(%q): want an error", spec)
		}
	}
}

func TestPoints(t *testing.T) {
	g := Grid{
		Command: []string{"llama-bench", "-p", "512"},
		Env:     []Axis{{"ORK_MOE_BIGLITTLE", []string{"1"}}, {"F", []string{"0.1", "0.2"}}, {"P", []string{"0", "50"}}},
		Args:    []Axis{{"-t", []string{"4"}}, {"--x", []string{"a", "b"}}},
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	pts := g.Points()
	if len(pts) != 8 || g.Size() != 8 {
		t.Fatalf("%d points, size %d, want 8", len(pts), g.Size())
	}
	var order []string
	ids := map[string]bool{}
	for _, p := range pts {
		order = append(order, p.Env["F"]+"/"+p.Env["P"]+"/"+p.Knobs["--x"])
		ids[p.ID] = true
		if p.Env["ORK_MOE_BIGLITTLE"] != "1" || p.Knobs["-t"] != "4" || p.Knobs["F"] != p.Env["F"] {
			t.Errorf("point %+v", p)
		}
		if _, ok := p.Env["-t"]; ok {
			t.Errorf("arg in env: %+v", p)
		}
	}
	want := []string{"0.1/0/a", "0.1/0/b", "0.1/50/a", "0.1/50/b", "0.2/0/a", "0.2/0/b", "0.2/50/a", "0.2/50/b"}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("order %q, want %q", order, want)
	}
	if len(ids) != 8 {
		t.Errorf("%d distinct IDs, want 8", len(ids))
	}
	if got := pts[1].Args; !reflect.DeepEqual(got, []string{"-t", "4", "--x", "b"}) {
		t.Errorf("args %q", got)
	}
	if got := pts[0].Environ(); !reflect.DeepEqual(got, []string{"F=0.1", "ORK_MOE_BIGLITTLE=1", "P=0"}) {
		t.Errorf("environ %q", got)
	}
	if got := g.Varying(); !reflect.DeepEqual(got, []string{"F", "P", "--x"}) {
		t.Errorf("varying %q", got)
	}
	// Stable: the same again, and whatever the order of the axes.
	again := g.Points()
	for i := range pts {
		if again[i].ID != pts[i].ID {
			t.Fatal("IDs change between calls")
		}
	}
	swapped := g
	swapped.Env = []Axis{g.Env[2], g.Env[0], g.Env[1]}
	for _, p := range swapped.Points() {
		if !ids[p.ID] {
			t.Errorf("reordering the axes changed an ID")
		}
	}
	other := g
	other.Command = []string{"llama-bench", "-p", "128"}
	if other.Points()[0].ID == pts[0].ID {
		t.Error("the ID ignores the command")
	}
	// A grid with no axes is one run.
	if p := (Grid{Command: []string{"x"}}).Points(); len(p) != 1 || len(p[0].Args) != 0 {
		t.Errorf("no axes: %+v", p)
	}
}

func TestGridValidate(t *testing.T) {
	cmd := []string{"b"}
	for _, tc := range []struct {
		g   Grid
		msg string
	}{
		{Grid{}, "no command"},
		{Grid{Command: cmd, Env: []Axis{{"A", []string{"1"}}, {"A", []string{"2"}}}}, "A given twice"},
		{Grid{Command: cmd, Env: []Axis{{"A", nil}}}, "no values"},
		{Grid{Command: cmd, Env: []Axis{{"A", []string{"1", "1"}}}}, `"1" given twice`},
		{Grid{Command: cmd, Env: []Axis{{"-t", []string{"1"}}}}, "not an environment variable"},
		{Grid{Command: cmd, Args: []Axis{{"t", []string{"1"}}}}, "not a flag name"},
		{Grid{Command: cmd, Env: []Axis{{"A", []string{"a\x00b"}}}}, "NUL"},
		{Grid{Command: cmd, Env: []Axis{{"A", make([]string, 1000)}, {"B", make([]string, 1000)}}}, "twice"},
	} {
		if err := tc.g.Validate(); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.g, err, tc.msg)
		}
	}
	many := func(n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = strconv.Itoa(i)
		}
		return s
	}
	big := Grid{Command: cmd, Env: []Axis{{"A", many(1000)}, {"B", many(1000)}}}
	if err := big.Validate(); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("a million points: %v", err)
	}
}

func TestParseGridFile(t *testing.T) {
	const src = `
command: llama-bench -m "/models/My Model.gguf" -p 512 -n 0 -o jsonl
env:
  ORK_MOE_BIGLITTLE: 1
  ORK_BL_LITTLE_FRAC: "0.05:0.30:0.05"
  ORK_BL_POLL: [0, 50]
  ORK_BL_SPLIT: token,expert
  ODD: ["a,b", "c:d", ""]
args:
  -t: 4
  --poll: [0.10, 50]
timeout_s: 1.5
warmup: 1
retries: 2
rounds: 3
shuffle: true
holdout: [f=0.15, ORK_BL_POLL=0]
`
	gf, err := ParseGridFile([]byte(src), "grid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := Grid{
		Command: []string{"llama-bench", "-m", "/models/My Model.gguf", "-p", "512", "-n", "0", "-o", "jsonl"},
		Env: []Axis{
			{"ORK_MOE_BIGLITTLE", []string{"1"}},
			{"ORK_BL_LITTLE_FRAC", []string{"0.05", "0.1", "0.15", "0.2", "0.25", "0.3"}},
			{"ORK_BL_POLL", []string{"0", "50"}},
			{"ORK_BL_SPLIT", []string{"token", "expert"}},
			{"ODD", []string{"a,b", "c:d", ""}},
		},
		Args: []Axis{{"-t", []string{"4"}}, {"--poll", []string{"0.10", "50"}}},
	}
	if !reflect.DeepEqual(gf.Grid, want) {
		t.Errorf("grid\n%+v\nwant\n%+v", gf.Grid, want)
	}
	if gf.Timeout != 1500*time.Millisecond || gf.Warmup != 1 || gf.Retries != 2 || gf.Rounds != 3 || !gf.Shuffle ||
		!reflect.DeepEqual(gf.Holdout, []string{"f=0.15", "ORK_BL_POLL=0"}) {
		t.Errorf("settings %+v", gf)
	}
	if err := gf.Grid.Validate(); err != nil {
		t.Error(err)
	}

	gf, err = ParseGridFile([]byte("command: [./my bench, --flag]\nenv: {A: 1}\n"), "g")
	if err != nil || !reflect.DeepEqual(gf.Grid.Command, []string{"./my bench", "--flag"}) || gf.Timeout != 0 {
		t.Errorf("list command: %+v %v", gf, err)
	}
	for _, tc := range []struct{ src, msg string }{
		{"", "empty"},
		{"comand: x\n", "comand"},
		{"command: x\nenv: {A: 1}\ntimeout: 5\n", "timeout"},
		{"env: [A, B]\n", "mapping"},
		{"env: {A: }\n", "A"},
		{"env: {A: {b: 1}}\n", "A"},
		{"env: {A: [[1]]}\n", "scalars"},
		{"env: {A: '1:0:1'}\n", "start is above stop"},
		{"env: {-t: 1}\n", "not an environment variable"},
		{"args: {t: 1}\n", "not a flag name"},
		{"command: \"unbalanced\n", ""},
		{"command: \"'x\"\n", "unterminated"},
		{"timeout_s: 0\n", "positive"},
		{"timeout_s: -3\n", "positive"},
		{"retries: -1\n", "negative"},
		{"rounds: -2\n", "negative"},
		{"holdout: [\"\"]\n", "empty pattern"},
		{"shuffle: maybe\n", "line 1"},
	} {
		if _, err := ParseGridFile([]byte(tc.src), "g.yaml"); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseGridFile(%q) = %v, want an error with %q", tc.src, err, tc.msg)
		}
	}
}
