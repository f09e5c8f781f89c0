package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/blsim/blsim/model"
	"github.com/blsim/blsim/predict"
	"github.com/blsim/blsim/presets"
)

func benchFixture(t *testing.T) *predict.Bench {
	t.Helper()
	s, err := presets.LoadSoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	w, err := presets.LoadWorkload("qwen3.5-35b-a3b")
	if err != nil {
		t.Fatal(err)
	}
	b, err := predict.RunBench(predict.BenchRequest{SoCs: []*model.SoC{s}, Workloads: []*model.Workload{w},
		Prompts: []int{128, 512}, Gens: []int{16}, Threads: []int{4, 8}, Draws: 2})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBenchTableFormats: every -o format carries every row: md as
// llama-bench prints it (numbers right-aligned), csv with llama-bench's
// field names and plain numbers, json the document, jsonl a row a line.
func TestBenchTableFormats(t *testing.T) {
	b := benchFixture(t)
	n := len(b.Rows)
	out := func(f Format) string {
		var buf bytes.Buffer
		if err := BenchTable(&buf, b, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		return buf.String()
	}
	text := strings.Split(strings.TrimRight(out(FormatText), "\n"), "\n")
	if len(text) != n+1 || !strings.Contains(text[0], "threads") || !strings.Contains(text[0], "t/s") || !strings.Contains(text[n], "unpinned (linux): 4 on big, 4 on little") {
		t.Errorf("text:\n%s", strings.Join(text, "\n"))
	}
	md := strings.Split(strings.TrimRight(out(FormatMD), "\n"), "\n")
	if len(md) != n+2 || !strings.HasPrefix(md[0], "| soc ") || !strings.Contains(md[1], "---: |") {
		t.Errorf("md:\n%s", strings.Join(md, "\n"))
	}
	for _, l := range md {
		if len(l) != len(md[0]) || strings.Count(l, "|") != strings.Count(md[0], "|") {
			t.Errorf("md line %q is not as wide as the header %q", l, md[0])
		}
	}
	recs, err := csv.NewReader(strings.NewReader(out(FormatCSV))).ReadAll()
	if err != nil || len(recs) != n+1 {
		t.Fatalf("csv: %d records, %v", len(recs), err)
	}
	if got := strings.Join(recs[0], ","); got != "soc,model,n_threads,where,poll,n_ubatch,n_prompt,n_gen,n_depth,test,avg_ts,split,split_ts,gain_pct,lo_pct,hi_pct,verdict" {
		t.Errorf("csv header %s", got)
	}
	for i, r := range recs[1:] {
		ts, err := strconv.ParseFloat(r[10], 64)
		if err != nil || ts != roundTo(b.Rows[i].AvgTS, 4) || r[2] != strconv.Itoa(b.Rows[i].NThreads) {
			t.Errorf("csv row %d: %v (avg_ts %v)", i, r, b.Rows[i].AvgTS)
		}
	}
	var doc predict.Bench
	if err := json.Unmarshal([]byte(out(FormatJSON)), &doc); err != nil || doc.Schema != predict.BenchSchema || len(doc.Rows) != n || doc.Rows[2].AvgTS != b.Rows[2].AvgTS {
		t.Errorf("json: %v, %+v", err, doc)
	}
	lines := strings.Split(strings.TrimRight(out(FormatJSONL), "\n"), "\n")
	for i, l := range lines {
		var r predict.BenchRow
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Test != b.Rows[i].Test || r.Split == nil {
			t.Errorf("jsonl line %d: %v, %s", i, err, l)
		}
	}
	if len(lines) != n {
		t.Errorf("jsonl: %d lines, want %d", len(lines), n)
	}
	if _, err := ParseFormat("xml"); err == nil || !strings.Contains(err.Error(), "want text, md, csv, json or jsonl") {
		t.Errorf("ParseFormat(xml): %v", err)
	}
}

func roundTo(v float64, prec int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', prec, 64), 64)
	return r
}

// TestThreadsOutFormats: the thread sweep's rows in md, csv and jsonl,
// one line each; text is the table with its advice.
func TestThreadsOutFormats(t *testing.T) {
	s, err := presets.LoadSoC("rk3588")
	if err != nil {
		t.Fatal(err)
	}
	w, err := presets.LoadWorkload("qwen3.5-35b-a3b")
	if err != nil {
		t.Fatal(err)
	}
	sw, err := predict.Threads(predict.ThreadsRequest{SoC: s, Workload: w, Gen: 8, Poll: 50, Draws: 2})
	if err != nil {
		t.Fatal(err)
	}
	n := len(sw.Rows)
	for _, tc := range []struct {
		f     Format
		lines int
		has   string
	}{{FormatMD, n + 2, "| cores "}, {FormatCSV, n + 1, "soc,model,cores,n_threads,cpu_mask,pp_ts,tg_ts"}, {FormatJSONL, n, `"mask":"big"`}, {FormatText, 0, "prefill:"}} {
		var buf bytes.Buffer
		if err := ThreadsOut(&buf, sw, tc.f); err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
		if (tc.lines > 0 && len(got) != tc.lines) || !strings.Contains(buf.String(), tc.has) {
			t.Errorf("%s: %d lines, want %d with %q:\n%s", tc.f, len(got), tc.lines, tc.has, buf.String())
		}
	}
}
