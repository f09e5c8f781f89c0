package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestLlamaBenchHabits: predict takes llama-bench's flags with its
// meaning: -p, -n, -ub, -t and --poll lists and ranges, --soc and
// --workload lists, each combination a row of one table, -t one pool's
// total threads, and -o text|md|csv|json|jsonl.
func TestLlamaBenchHabits(t *testing.T) {
	rows := func(out string) []string { return strings.Split(strings.TrimRight(out, "\n"), "\n") }
	for _, tc := range []struct {
		name string
		args []string
		rows int // lines of output
		has  []string
	}{
		{"the issue's --prompt 128,512", []string{"--prompt", "128,512"}, 1 + 3, []string{"pp128", "pp512", "tg128", "4 on big"}},
		{"-p -n -t md", []string{"-p", "128,512", "-n", "32", "-t", "4,8", "-o", "md"}, 2 + 6,
			[]string{"| soc ", "unpinned (linux): 4 on big, 4 on little", "| tg32 ", "---: |"}},
		{"-t range", []string{"-t", "2-8+2", "-n", "0", "-o", "csv"}, 1 + 4, []string{"soc,model,n_threads,", ",2,unpinned (linux): 2 on big,", `,8,"unpinned (linux): 4 on big, 4 on little"`}},
		{"-ub and poll", []string{"-ub", "128,256", "--poll", "0,50", "-n", "0", "-o", "csv"}, 1 + 4, []string{",0,128,", ",50,256,"}},
		{"-ub=", []string{"-ub=256", "-n", "0", "-o", "csv"}, 1 + 1, []string{",50,256,512,0,"}},
		{"socs and workloads", []string{"--soc", "rk3588,pi5", "--workload", "qwen3.5-35b-a3b,llama-2-7b", "-p", "64", "-n", "0", "-o", "jsonl"}, 4,
			[]string{`"soc":"rk3588","model":"qwen3.5-35b-a3b"`, `"soc":"pi5","model":"llama-2-7b"`}},
		{"a one-row table in md", []string{"-n", "0", "-o", "md"}, 3, []string{"| pp512 ", "26.26"}},
		{"the seed, unchanged", nil, 0, []string{"native (big only)      -  26.26"}},
	} {
		args := append([]string{"predict", "--draws", "2"}, tc.args...)
		out, errs, code := runCLI(t, args...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", tc.name, code, errs)
			continue
		}
		if tc.rows > 0 && len(rows(out)) != tc.rows {
			t.Errorf("%s: %d lines, want %d:\n%s", tc.name, len(rows(out)), tc.rows, out)
		}
		for _, h := range tc.has {
			if !strings.Contains(out, h) {
				t.Errorf("%s: no %q in\n%s", tc.name, h, out)
			}
		}
	}
	// -o json is the table's document, --json the prediction's.
	out, _, _ := runCLI(t, "predict", "--draws", "2", "-t", "4", "-o", "json")
	var doc struct {
		Schema string `json:"schema"`
		Rows   []struct {
			NThreads int     `json:"n_threads"`
			AvgTS    float64 `json:"avg_ts"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Schema != "blsim/bench/v1" || len(doc.Rows) != 2 || doc.Rows[0].NThreads != 4 || !(doc.Rows[0].AvgTS > 0) {
		t.Errorf("-t 4 -o json: %v %+v", err, doc)
	}
	if out, _, code := runCLI(t, "predict", "--draws", "2", "-o", "json"); code != 0 || !strings.Contains(out, `"schema": "blsim/prediction/v1"`) {
		t.Errorf("-o json alone: the prediction, exit %d\n%.300s", code, out)
	}
	if out, _, code := runCLI(t, "predict", "--threads-sweep", "-n", "8", "-o", "md"); code != 0 || !strings.Contains(out, "| cores ") || !strings.Contains(out, "| unpinned ") {
		t.Errorf("--threads-sweep -o md: exit %d\n%s", code, out)
	}
}

// TestLlamaBenchErrors: every bad list is one line naming the flag and
// the form wanted; a flag the table or a one-prediction command cannot
// honour is refused, never ignored.
func TestLlamaBenchErrors(t *testing.T) {
	png := filepath.Join(t.TempDir(), "x.png")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "--prompt", "128,x"}, `--prompt: "x": not a whole number; want a whole number, a comma list (128,512) or a range (1-8, 1-8+2, 16-512*2)`},
		{[]string{"predict", "-t", "8-1"}, `--threads: "8-1": a range's last value is below its first`},
		{[]string{"predict", "-t", "0"}, "--threads: 0 is outside [1, 512] for threads"},
		{[]string{"predict", "--poll", "0,101"}, "--poll: 101 is outside [0, 100] for a poll level"},
		{[]string{"predict", "-ub", "0,64"}, "--ubatch: 0 is outside [1, 65536] for a ubatch"},
		{[]string{"predict", "--soc", "rk3588,,pi5"}, "--soc: \"rk3588,,pi5\" has an empty name"},
		{[]string{"predict", "--soc", "rk3588,nosuch"}, "--soc: "},
		{[]string{"predict", "-p", "0", "-n", "0", "-t", "4"}, "--prompt, --gen, --ubatch: every -p and -n is 0"},
		{[]string{"predict", "-t", "4", "--split", "token"}, "--split: predict's table"},
		{[]string{"predict", "-t", "4", "--sweep"}, "--sweep: predict's table"},
		{[]string{"predict", "-t", "4", "--engine-threads", "4"}, "--engine-threads: 1 values for 2 engines: want 4,4"},
		{[]string{"predict", "-o", "xml"}, `-o: "xml": want text, md, csv, json or jsonl`},
		{[]string{"predict", "--threads-sweep", "-p", "128,512"}, `--prompt: "128,512" is 2 values: predict --threads-sweep takes one`},
		{[]string{"predict", "--threads-sweep", "-t", "4"}, "--threads: --threads-sweep tries every thread count"},
		{[]string{"plot", "split", "-p", "128,512", "-o", png}, `--prompt: "128,512" is 2 values: plot takes one`},
		{[]string{"plot", "split", "-t", "4", "-o", png}, "--threads: llama-bench's -t (one pool's total threads) makes blsim predict's table; plot takes the split's threads per engine as --engine-threads"},
		{[]string{"plot", "split", "--soc", "rk3588,pi5", "-o", png}, `--soc: "rk3588,pi5" is a list: plot takes one`},
	} {
		_, errs, code := runCLI(t, tc.args...)
		if code == 0 || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 || strings.Contains(errs, "strconv") {
			t.Errorf("%v: exit %d, stderr %q; want one line with %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestValidateOutputFormats: validate -o md|csv|jsonl lists every
// configuration it scored, worst first; json is the document, as --json;
// a format it lacks is one line.
func TestValidateOutputFormats(t *testing.T) {
	runs := writeRuns(t, t.TempDir())
	base := []string{"validate", "--measurements", runs, "--soc", "rk3588"}
	csvOut, errs, code := runCLI(t, append(base, "-o", "csv")...)
	lines := strings.Split(strings.TrimSpace(csvOut), "\n")
	if code != 0 || len(lines) != 11 || lines[0] != "id,label,set,measured_ts,predicted_ts,err_pct,dram_bound_pct,cap_bound_pct" || !strings.Contains(lines[1], ",held out,") {
		t.Errorf("-o csv: exit %d %s\n%s", code, errs, csvOut)
	}
	if md, _, code := runCLI(t, append(base, "-o", "md")...); code != 0 || !strings.HasPrefix(md, "| id ") || strings.Count(md, "\n") != 12 {
		t.Errorf("-o md: exit %d\n%s", code, md)
	}
	jl, _, code := runCLI(t, append(base, "-o", "jsonl")...)
	var r struct {
		ID       string  `json:"id"`
		Measured float64 `json:"measured"`
	}
	if first, _, _ := strings.Cut(jl, "\n"); code != 0 || strings.Count(jl, "\n") != 10 || json.Unmarshal([]byte(first), &r) != nil || r.ID == "" || !(r.Measured > 0) {
		t.Errorf("-o jsonl: exit %d\n%s", code, jl)
	}
	a, _, _ := runCLI(t, append(base, "-o", "json")...)
	b, _, _ := runCLI(t, append(base, "--json")...)
	if a != b || !strings.Contains(a, `"mode": "predict"`) {
		t.Errorf("-o json and --json differ:\n%s\n%s", a, b)
	}
	if _, errs, code := runCLI(t, append(base, "-o", "xml")...); code == 0 || !strings.Contains(errs, `-o: "xml": want text, md, csv, json or jsonl`) {
		t.Errorf("-o xml: exit %d %s", code, errs)
	}
}
