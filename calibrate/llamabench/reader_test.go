package llamabench

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// parseFile parses a fixture with format detection.
func parseFile(t *testing.T, name string) ([]Record, []error, Format) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := NewReader(f, filepath.Join("testdata", name), Auto)
	var recs []Record
	var errs []error
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		var se *SyntaxError
		if err != nil && !errors.As(err, &se) {
			t.Fatalf("%s: fatal error %v", name, err)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		recs = append(recs, rec)
	}
	return recs, errs, rd.Format()
}

func TestParseFixtures(t *testing.T) {
	tests := []struct {
		file     string
		format   Format
		records  int
		errLines []int // lines named by the errors, in order
	}{
		{"rk3588.json", JSON, 5, nil},
		{"rk3588.jsonl", JSONL, 5, nil},
		{"rk3588.csv", CSV, 5, nil},
		{"rk3588.sql", SQL, 5, nil},
		{"rk3588.md", Markdown, 3, nil},
		{"rk3588-sweep.md", Markdown, 4, nil},
		{"rk3588-vulkan.md", Markdown, 2, nil},
		{"drift.jsonl", JSONL, 3, []int{4, 5, 6}},
		{"broken-truncated.jsonl", JSONL, 3, []int{2, 5}},
		{"broken-garbage.jsonl", JSONL, 4, []int{2, 6}},
		{"broken-truncated.json", JSON, 3, []int{134}},
		{"broken-garbage.json", JSON, 4, []int{46, 59}},
		{"broken-missing-column.csv", CSV, 3, []int{3, 4}},
		{"broken.md", Markdown, 2, []int{4, 5, 6}},
		{"empty.jsonl", Auto, 0, []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			recs, errs, format := parseFile(t, tt.file)
			if format != tt.format {
				t.Errorf("format %v, want %v", format, tt.format)
			}
			if len(recs) != tt.records {
				t.Errorf("%d records, want %d", len(recs), tt.records)
			}
			var lines []int
			for _, err := range errs {
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("error %v is not a *SyntaxError", err)
				}
				if se.FileName != filepath.Join("testdata", tt.file) {
					t.Errorf("error names file %q", se.FileName)
				}
				lines = append(lines, se.Line)
			}
			if fmt.Sprint(lines) != fmt.Sprint(tt.errLines) {
				t.Errorf("errors at lines %v, want %v:\n%v", lines, tt.errLines, errs)
			}
			for _, r := range recs {
				if !(r.AvgTS > 0) {
					t.Errorf("line %d: AvgTS %v", r.Line, r.AvgTS)
				}
			}
			checkGolden(t, tt.file+".golden", dump(recs, errs))
		})
	}
}

// TestHeadline checks the first record of every format: Qwen3.5-35B-A3B on
// four RK3588 big cores, pp512 at 26.26 t/s.
func TestHeadline(t *testing.T) {
	for _, file := range []string{"rk3588.json", "rk3588.jsonl", "rk3588.csv", "rk3588.sql", "rk3588.md", "rk3588-sweep.md"} {
		recs, _, _ := parseFile(t, file)
		r := recs[0]
		if r.BuildCommit != "0104b151" || r.BuildNumber != 7950 ||
			r.ModelType != "qwen35moe 35B.A3B Q4_K - Medium" || r.Backends != "CPU" ||
			r.NThreads != 4 || r.NPrompt != 512 || r.NGen != 0 || r.NDepth != 0 ||
			r.NBatch != 2048 || r.NUbatch != 512 || r.Poll != 50 ||
			math.Abs(r.AvgTS-26.26) > 1e-6 || math.Abs(r.StddevTS-0.12) > 0.001 ||
			math.Abs(float64(r.ModelSizeBytes)-21163225088) > 0.005*(1<<30) ||
			math.Abs(float64(r.ModelParams)-34660610048) > 0.005e9 {
			t.Errorf("%s: first record %+v", file, r)
		}
		if strings.HasSuffix(file, ".json") || strings.HasSuffix(file, ".jsonl") {
			if len(r.SamplesNS) != 5 || len(r.SamplesTS) != 5 || r.SamplesTS[2] != 26.26 ||
				r.AvgNS != 19497661204 || r.TestTime.Format(testTimeLayout) != "2026-11-28T09:14:03Z" {
				t.Errorf("%s: samples %v %v, avg_ns %d, time %v", file, r.SamplesNS, r.SamplesTS, r.AvgNS, r.TestTime)
			}
		}
	}
}

func TestFieldsVerbatim(t *testing.T) {
	recs, _, _ := parseFile(t, "drift.jsonl")
	old, next := recs[0], recs[1]
	want := map[string]string{
		"rpc": "0", "use_mmap": "true", "flash_attn": "false", "n_threads": "4",
		"avg_ts": "17.268", "avg_ns": "29650146575", "cuda": "false",
	}
	for k, v := range want {
		if old.Fields[k] != v {
			t.Errorf("old record: Fields[%q] = %q, want %q", k, old.Fields[k], v)
		}
	}
	if old.NThreads != 4 || old.AvgTS != 17.268 || old.AvgNS != 29650146575 || old.NGPULayers != 99 {
		t.Errorf("old record typed as %+v", old)
	}
	want = map[string]string{
		"numa": "isolate", "repack": `{"q4_K": "8x8"}`, "n_expert_used": "8",
		"samples_ns": "[ 19609345079, 19556913675, 19497334349 ]",
	}
	for k, v := range want {
		if next.Fields[k] != v {
			t.Errorf("new record: Fields[%q] = %q, want %q", k, next.Fields[k], v)
		}
	}
	if _, ok := next.Fields["note"]; ok {
		t.Errorf("null field kept: %q", next.Fields["note"])
	}
	// avg_ts is missing: it comes from the samples, as llama-bench computes it.
	if math.Abs(next.AvgTS-26.18333) > 1e-4 || next.Poll != 0 || !next.CPUStrict {
		t.Errorf("new record typed as %+v", next)
	}
}

func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	good := `{"n_prompt": 512, "avg_ts": 26.26}` + "\n"
	r := io.MultiReader(strings.NewReader(good), iotestErr{boom})
	rd := NewReader(r, "x", JSONL)
	if _, err := rd.Next(); err != nil {
		t.Fatalf("first record: %v", err)
	}
	for range 2 {
		if _, err := rd.Next(); err != boom {
			t.Fatalf("got %v, want the read error", err)
		}
	}
	recs, errs := Parse(io.MultiReader(strings.NewReader(good), iotestErr{boom}), "x", JSONL)
	if len(recs) != 1 || len(errs) != 1 || errs[0] != boom {
		t.Errorf("Parse: %d records, errors %v", len(recs), errs)
	}
}

type iotestErr struct{ err error }

func (r iotestErr) Read([]byte) (int, error) { return 0, r.err }

func TestSyntaxError(t *testing.T) {
	err := &SyntaxError{FileName: "bench.jsonl", Line: 7, Msg: "no usable throughput"}
	if got := err.Error(); got != "bench.jsonl:7: no usable throughput" {
		t.Errorf("Error() = %q", got)
	}
}

func TestNoRecords(t *testing.T) {
	tests := []struct {
		in, msg string
		format  Format
	}{
		{"", "empty input", Auto},
		{" \n\n", "empty input", JSON},
		{"[\n\n]\n", "no records", Auto},
		{strings.Join(FieldNames(), ",") + "\n", "no records", Auto},
		{"| model | test | t/s |\n| --- | ---: | ---: |\n\nbuild: x (1)\n", "no records", Auto},
		{"hello world\n", "cannot detect the format (want json, jsonl, csv, md or sql)", Auto},
	}
	for _, tt := range tests {
		recs, errs := Parse(strings.NewReader(tt.in), "in", tt.format)
		if len(recs) != 0 || len(errs) != 1 || !strings.HasSuffix(errs[0].Error(), tt.msg) {
			t.Errorf("Parse(%q): %d records, errors %v; want one %q", tt.in, len(recs), errs, tt.msg)
		}
	}
}

func TestParseTest(t *testing.T) {
	tests := []struct {
		in            string
		pp, tg, depth int
		wantErr       bool
	}{
		{"pp512", 512, 0, 0, false},
		{"tg128", 0, 128, 0, false},
		{"pp512+tg128", 512, 128, 0, false},
		{"pp512 @ d1024", 512, 0, 1024, false},
		{"tg128 @ d4096", 0, 128, 4096, false},
		{"pp 512", 512, 0, 0, false},
		{"pp", 0, 0, 0, true},
		{"pp-1", 0, 0, 0, true},
		{"pp512 @ 1024", 0, 0, 0, true},
		{"xx512", 0, 0, 0, true},
		{"", 0, 0, 0, true},
	}
	for _, tt := range tests {
		pp, tg, depth, err := parseTest(tt.in)
		if (err != nil) != tt.wantErr || pp != tt.pp || tg != tt.tg || depth != tt.depth {
			t.Errorf("parseTest(%q) = %d, %d, %d, %v", tt.in, pp, tg, depth, err)
		}
	}
}

// dump writes records and errors as text for the golden files.
func dump(recs []Record, errs []error) string {
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "record at line %d: build %s (%d), backends %q, cpu %q, gpu %q\n",
			r.Line, r.BuildCommit, r.BuildNumber, r.Backends, r.CPUInfo, r.GPUInfo)
		fmt.Fprintf(&b, "  model %q file %q size %d params %d\n", r.ModelType, r.ModelFilename, r.ModelSizeBytes, r.ModelParams)
		fmt.Fprintf(&b, "  batch %d ubatch %d threads %d mask %q strict %v poll %d ngl %d ncmoe %d\n",
			r.NBatch, r.NUbatch, r.NThreads, r.CPUMask, r.CPUStrict, r.Poll, r.NGPULayers, r.NCPUMoE)
		fmt.Fprintf(&b, "  pp %d tg %d depth %d at %s\n", r.NPrompt, r.NGen, r.NDepth, r.TestTime.Format(testTimeLayout))
		fmt.Fprintf(&b, "  avg %d ns ± %d, %.10g t/s ± %.10g, samples %v ns %v t/s\n",
			r.AvgNS, r.StddevNS, r.AvgTS, r.StddevTS, r.SamplesNS, r.SamplesTS)
		keys := make([]string, 0, len(r.Fields))
		for k := range r.Fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprintf(&b, "  fields %s\n", strings.Join(keys, " "))
	}
	for _, err := range errs {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	return b.String()
}

// checkGolden compares got with testdata/name, or rewrites it with -update.
// On a mismatch it leaves got in testdata/name.got.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		os.WriteFile(path+".got", []byte(got), 0o644)
		t.Errorf("%s differs from %s.got; diff them, or run go test -update", path, path)
	}
}
